/**
 * The Stripe stand-in, driven by the official SDK the way packages/shared/payments drives the
 * real API: the bracket form wire format, Stripe objects and error shapes, Idempotency-Key
 * replays, injected failures, and events the SDK's own signature check accepts.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import type { Platform } from "../../stack/platform.ts";
import type { StripeStandIn } from "../../stack/sandbox/providers/stripe.ts";
import { parseStripeForm } from "../../stack/sandbox/providers/stripe_wire.ts";
import { platformTest } from "../helpers/platform.ts";

function setup(p: Platform): { stand: StripeStandIn; stripe: Stripe } {
  const stand = p.sandbox!.get("stripe");
  stand.reset();
  const url = new URL(stand.baseUrl);
  const stripe = new Stripe("sk_test_standin", {
    host: url.hostname,
    port: Number(url.port),
    protocol: "http",
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 0,
  });
  return { stand, stripe };
}

Deno.test("bracket form bodies parse into nested objects and indexed arrays", () => {
  const form = parseStripeForm(
    "mode=payment&line_items[0][quantity]=1&line_items[0][price_data][currency]=eur" +
      "&line_items[0][price_data][product_data][name]=100%20credits&line_items[1][price]=price_x" +
      "&metadata[user_id]=u1&expand[0]=customer",
  );
  assert.deepEqual(form, {
    mode: "payment",
    line_items: [
      { quantity: "1", price_data: { currency: "eur", product_data: { name: "100 credits" } } },
      { price: "price_x" },
    ],
    metadata: { user_id: "u1" },
    expand: ["customer"],
  });
});

platformTest("the platform points code at the stand-in with a webhook secret and endpoint", (p) => {
  const stand = p.sandbox!.get("stripe");
  assert.equal(p.env.STRIPE_API_BASE_URL, stand.baseUrl);
  assert.equal(p.env.STRIPE_SECRET_KEY, "sk_test_sandbox_local_placeholder");
  assert.equal(p.env.STRIPE_WEBHOOK_SECRET, stand.webhookSecret);
  assert.match(stand.webhookSecret, /^whsec_/);
  assert.equal(stand.webhookUrl, `${p.url}/functions/v1/payments-webhook`);
  return Promise.resolve();
});

platformTest("customers and checkout sessions in Stripe's wire format, captured", async (p) => {
  const { stand, stripe } = setup(p);
  const customer = await stripe.customers.create({ email: "a@example.com", metadata: { user_id: "u1" } });
  assert.match(customer.id, /^cus_/);
  assert.equal(customer.object, "customer");
  assert.equal(customer.email, "a@example.com");
  assert.deepEqual(customer.metadata, { user_id: "u1" });
  assert.equal((await stripe.customers.retrieve(customer.id)).id, customer.id);

  const session = await stripe.checkout.sessions.create({
    mode: "payment",
    customer: customer.id,
    line_items: [{
      quantity: 2,
      price_data: { currency: "eur", unit_amount: 1999, product_data: { name: "Box" } },
    }],
    success_url: "http://app.test/ok?s={CHECKOUT_SESSION_ID}",
    cancel_url: "http://app.test/no",
    metadata: { credits: "100" },
  });
  assert.match(session.id, /^cs_test_/);
  assert.equal(session.object, "checkout.session");
  assert.equal(session.status, "open");
  assert.equal(session.payment_status, "unpaid");
  assert.equal(session.amount_total, 3998);
  assert.equal(session.currency, "eur");
  assert.equal(session.success_url, `http://app.test/ok?s=${session.id}`);
  assert.equal(session.url, `${stand.baseUrl}/checkout/${session.id}`);

  const sent = stand.captures.requests().find((c) => c.path === "/v1/checkout/sessions")!;
  assert.equal(sent.method, "POST");
  assert.equal(sent.headers["content-type"], "application/x-www-form-urlencoded");
  assert.equal(sent.headers.authorization, "[redacted]");
  assert.match(sent.headers["idempotency-key"], /^stripe-node-retry-/);
  const body = sent.body as Record<string, string>;
  assert.equal(body["line_items[0][price_data][unit_amount]"], "1999");
  assert.equal(body["metadata[credits]"], "100");

  // The hosted page has the pay button.
  const page = await fetch(session.url!);
  assert.match(await page.text(), /<button>Pay<\/button>/);
});

platformTest("errors use Stripe's shape: unknown price, missing params, bad key", async (p) => {
  const { stripe, stand } = setup(p);
  await assert.rejects(
    stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: "price_missing", quantity: 1 }],
      success_url: "http://app.test/ok",
    }),
    (err: Stripe.errors.StripeError) => {
      assert.equal(err.type, "StripeInvalidRequestError");
      assert.equal(err.statusCode, 404);
      assert.equal(err.code, "resource_missing");
      assert.equal(err.param, "line_items[0][price]");
      assert.equal(err.message, "No such price: 'price_missing'");
      assert.match(err.requestId!, /^req_/);
      return true;
    },
  );
  await assert.rejects(
    stripe.checkout.sessions.create({ mode: "payment", success_url: "http://app.test/ok" }),
    (err: Stripe.errors.StripeError) => err.code === "parameter_missing" && err.param === "line_items",
  );
  const url = new URL(stand.baseUrl);
  const badKey = new Stripe("pk_test_public", {
    host: url.hostname,
    port: Number(url.port),
    protocol: "http",
  });
  await assert.rejects(badKey.customers.create({}), (err: Stripe.errors.StripeError) => {
    assert.equal(err.type, "StripeAuthenticationError");
    assert.equal(err.statusCode, 401);
    return true;
  });
});

platformTest("an Idempotency-Key replays the first answer; another body with it is refused", async (p) => {
  const { stripe, stand } = setup(p);
  const [a, b] = await Promise.all([
    stripe.customers.create({ email: "x@example.com" }, { idempotencyKey: "k-1" }),
    stripe.customers.create({ email: "x@example.com" }, { idempotencyKey: "k-1" }),
  ]);
  assert.equal(a.id, b.id);
  assert.equal(stand.customers.size, 1);
  await assert.rejects(
    stripe.customers.create({ email: "other@example.com" }, { idempotencyKey: "k-1" }),
    (err: Stripe.errors.StripeError) => err.type === "StripeIdempotencyError",
  );
});

platformTest("scripted failures answer in Stripe's error shape", async (p) => {
  const { stripe, stand } = setup(p);
  stand.failNext(402, { message: "Your card was declined." });
  await assert.rejects(stripe.customers.create({}), (err: Stripe.errors.StripeError) => {
    assert.equal(err.type, "StripeCardError");
    assert.equal(err.message, "Your card was declined.");
    return true;
  });
  // Only the next request: the one after succeeds.
  assert.match((await stripe.customers.create({})).id, /^cus_/);
});

platformTest("portal sessions need an existing customer", async (p) => {
  const { stripe, stand } = setup(p);
  const customer = await stripe.customers.create({});
  const portal = await stripe.billingPortal.sessions.create({
    customer: customer.id,
    return_url: "http://app.test/b",
  });
  assert.match(portal.id, /^bps_/);
  assert.equal(portal.customer, customer.id);
  assert.equal(portal.return_url, "http://app.test/b");
  assert.equal(portal.url, `${stand.baseUrl}/portal/${portal.id}`);
  await assert.rejects(
    stripe.billingPortal.sessions.create({ customer: "cus_nope" }),
    (err: Stripe.errors.StripeError) => err.statusCode === 404 && err.code === "resource_missing",
  );
});

platformTest("events are signed so that the SDK's async check accepts them", async (p) => {
  const { stripe, stand } = setup(p);
  const event = stand.event("customer.created", { id: "cus_1", object: "customer" });
  let received: { body: string; signature: string } | null = null;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    received = { body: await req.text(), signature: req.headers.get("stripe-signature") ?? "" };
    return new Response("ok");
  });
  const savedUrl = stand.webhookUrl;
  try {
    stand.webhookUrl = `http://127.0.0.1:${server.addr.port}/hook`;
    const result = await stand.deliver(event);
    assert.equal(result.status, 200);
  } finally {
    stand.webhookUrl = savedUrl;
    await server.shutdown();
  }
  const got = received as { body: string; signature: string } | null;
  assert.ok(got);
  assert.match(got.signature, /^t=\d+,v1=[0-9a-f]{64}$/);
  const verified = await stripe.webhooks.constructEventAsync(
    got.body,
    got.signature,
    stand.webhookSecret,
    300,
    Stripe.createSubtleCryptoProvider(),
  );
  assert.equal(verified.id, event.id);
  assert.equal(verified.type, "customer.created");
  await assert.rejects(
    stripe.webhooks.constructEventAsync(
      got.body,
      got.signature,
      "whsec_other",
      300,
      Stripe.createSubtleCryptoProvider(),
    ),
  );
});

platformTest("the stand-in starts with the catalog plans' prices, kept across reset", async (p) => {
  const { stand, stripe } = setup(p);
  const plans = await p.db.query<{ provider_price_id: string; price: string }>(
    `select provider_price_id, price from public.subscription_plans order by price`,
  );
  assert.equal(plans.rows.length, 3);
  for (const plan of plans.rows) {
    const price = await stripe.prices.retrieve(plan.provider_price_id);
    assert.equal(price.unit_amount, Math.round(Number(plan.price) * 100));
    assert.equal(price.currency, "eur");
    assert.equal(price.recurring?.interval, "month");
    assert.equal(price.type, "recurring");
  }
  const made = await stripe.prices.create({ currency: "eur", unit_amount: 500 });
  stand.reset();
  assert.equal(stand.prices.has(made.id), false);
  assert.equal(stand.prices.size, 3);
});
