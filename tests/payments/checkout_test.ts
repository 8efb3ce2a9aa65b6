/**
 * payments-checkout, payments-customer-portal and crm-billing-api's purchase routes, round trip
 * through the Stripe stand-in: checkout -> the stand-in completes it -> signed webhook -> credits
 * granted exactly once. Prices come from the catalog, never from the body; one payment customer
 * per user, reused.
 */
import assert from "node:assert/strict";
import { createUser, platformTest, serviceClient } from "../helpers/platform.ts";
import {
  call,
  CANCEL_URL,
  ledger,
  packageId,
  planId,
  profileOf,
  sessionIdOf,
  stripeStandIn,
  SUCCESS_URL,
} from "./helpers.ts";

const credit = (credits: number, price: number) => ({
  type: "credit_purchase",
  credits,
  price,
  successUrl: SUCCESS_URL,
  cancelUrl: CANCEL_URL,
});

platformTest("credit purchase round trip: checkout, pay, webhook, credits once", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "pay-credits");
  const r = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: credit(500, 45),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const url = r.body.url as string;
  const sessionId = sessionIdOf(url);
  assert.ok(url.startsWith(stand.baseUrl));

  // What went to Stripe was priced from the catalog, for the user's customer.
  const sent = stand.captures.requests().find((c) => c.path === "/v1/checkout/sessions")!.body as Record<
    string,
    string
  >;
  const profile = await profileOf(p, u.id);
  assert.match(profile.payment_customer_id!, /^cus_/);
  assert.equal(sent.customer, profile.payment_customer_id);
  assert.equal(sent.mode, "payment");
  assert.equal(sent["line_items[0][price_data][unit_amount]"], "4500");
  assert.equal(sent["line_items[0][price_data][currency]"], "eur");
  assert.equal(sent["metadata[user_id]"], u.id);
  assert.equal(sent.success_url, SUCCESS_URL);
  assert.equal((await ledger(p, u.id)).balance, 0);

  // The hosted page's Pay button completes it and sends the signed event to our webhook.
  const paid = await fetch(`${url}/pay`, { method: "POST", redirect: "manual" });
  await paid.body?.cancel();
  assert.equal(paid.status, 303);
  assert.equal(paid.headers.get("location"), SUCCESS_URL.replace("{CHECKOUT_SESSION_ID}", sessionId));
  const delivered = stand.captures.all().filter((c) => c.direction === "out");
  assert.equal(delivered.length, 1);
  assert.equal(delivered[0].status, 200);
  const after = await ledger(p, u.id);
  assert.equal(after.balance, 500);
  assert.deepEqual(after.transactions, [{ amount: 500, kind: "purchase", reference_id: sessionId }]);

  // The same event three more times, concurrently: acknowledged, nothing granted again.
  const event = stand.events.find((e) => e.type === "checkout.session.completed")!;
  const replays = await Promise.all([1, 2, 3].map(() => stand.deliver(event)));
  for (const replay of replays) {
    assert.equal(replay.status, 200);
    assert.equal(JSON.parse(replay.body).duplicate, true);
  }
  assert.equal((await ledger(p, u.id)).balance, 500);
  assert.equal((await ledger(p, u.id)).transactions.length, 1);
  const row = await p.db.query<{ status: string }>(
    `select status from public.payment_checkouts where provider_session_id = $1`,
    [sessionId],
  );
  assert.equal(row.rows[0].status, "complete");
});

platformTest("a first delivery arriving three times at once grants once", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "pay-concurrent");
  const r = await call(p, "crm-billing-api", "/credits/purchase", {
    method: "POST",
    token: u.accessToken,
    body: { package_id: await packageId(p, 100) },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const data = r.body.data as { url: string; session_id: string };
  assert.equal(sessionIdOf(data.url), data.session_id);
  const session = stand.sessions.get(data.session_id)!;
  Object.assign(session, { status: "complete", payment_status: "paid", url: null });
  const event = stand.event("checkout.session.completed", session);
  const results = await Promise.all([1, 2, 3].map(() => stand.deliver(event)));
  assert.deepEqual(results.map((x) => x.status), [200, 200, 200]);
  assert.equal(results.filter((x) => JSON.parse(x.body).duplicate === false).length, 1);
  const after = await ledger(p, u.id);
  assert.equal(after.balance, 100);
  assert.equal(after.transactions.length, 1);
});

platformTest(
  "every checkout or portal URL is a top-level url (spec {url}), as the frontend reads it",
  async (p) => {
    const stand = stripeStandIn(p);
    const u = await createUser(p, "pay-url-shape");
    const answers = [
      await call(p, "crm-billing-api", "/credits/purchase", {
        method: "POST",
        token: u.accessToken,
        body: { package_id: await packageId(p, 100) },
      }),
      await call(p, "crm-billing-api", "/subscriptions/create-checkout", {
        method: "POST",
        token: u.accessToken,
        body: { plan_id: await planId(p, "pro") },
      }),
    ];
    for (const r of answers) {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const url = r.body.url as string;
      assert.ok(url.startsWith(`${stand.baseUrl}/checkout/`), JSON.stringify(r.body));
      const session_id = sessionIdOf(url);
      // Earlier clients read data.url: the same checkout again, nothing else.
      assert.deepEqual(r.body, { url, session_id, data: { url, session_id } });
    }
    const spec = await call(p, "payments-checkout", "", {
      method: "POST",
      token: u.accessToken,
      body: credit(100, 10),
    });
    assert.deepEqual(Object.keys(spec.body), ["url"]);
    const portal = await call(p, "payments-customer-portal", "", {
      method: "POST",
      token: u.accessToken,
      body: { returnUrl: "http://127.0.0.1:3000/account" },
    });
    assert.deepEqual(Object.keys(portal.body), ["url"]);
    assert.match(portal.body.url as string, /\/portal\/bps_\w+$/);
  },
);

platformTest("amounts must match the catalog: an off-catalog price is refused before Stripe", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "pay-offcatalog");
  for (const body of [credit(500, 1), credit(1_000_000, 45), credit(499, 45)]) {
    const r = await call(p, "payments-checkout", "", { method: "POST", token: u.accessToken, body });
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.code, "unknown_credit_package");
  }
  assert.equal(stand.captures.requests().length, 0);
  const rows = await p.db.query(`select 1 from public.payment_checkouts where user_id = $1`, [u.id]);
  assert.equal(rows.rows.length, 0);
});

platformTest("bad bodies are 400s naming the field; anon and the service role are 401", async (p) => {
  stripeStandIn(p);
  const u = await createUser(p, "pay-bad");
  const bad: unknown[] = [
    {},
    { type: "gift", successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL },
    { ...credit(100, 10), credits: -1 },
    { ...credit(100, 10), price: "10" },
    { ...credit(100, 10), successUrl: "javascript:alert(1)" },
    { ...credit(100, 10), user_id: u.id },
    { type: "subscription", successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL },
  ];
  for (const body of bad) {
    const r = await call(p, "payments-checkout", "", { method: "POST", token: u.accessToken, body });
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.code, "validation_failed", JSON.stringify(r.body));
  }
  const portal = await call(p, "payments-customer-portal", "", {
    method: "POST",
    token: u.accessToken,
    body: { returnUrl: "not a url" },
  });
  assert.equal(portal.status, 400);
  assert.equal(
    (await call(p, "payments-checkout", "", { method: "POST", token: null, body: credit(100, 10) })).status,
    401,
  );
  assert.equal(
    (await call(p, "payments-checkout", "", { method: "POST", body: credit(100, 10) })).status,
    401,
  );
  const service = await call(p, "payments-checkout", "", {
    method: "POST",
    token: p.config.serviceRoleKey,
    body: credit(100, 10),
  });
  assert.equal(service.status, 401);
  const missing = await call(p, "crm-billing-api", "/credits/purchase", {
    method: "POST",
    token: u.accessToken,
    body: { package_id: "00000000-0000-4000-8000-000000000000" },
  });
  assert.equal(missing.status, 404);
});

platformTest(
  "one payment customer per user: created once under concurrency, reused by the portal",
  async (p) => {
    const stand = stripeStandIn(p);
    const u = await createUser(p, "pay-portal");
    const portals = await Promise.all([1, 2, 3].map(() =>
      call(p, "payments-customer-portal", "", {
        method: "POST",
        token: u.accessToken,
        body: { returnUrl: "http://127.0.0.1:3000/account" },
      })
    ));
    for (const r of portals) assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(stand.customers.size, 1);
    const customer = (await profileOf(p, u.id)).payment_customer_id!;
    const [only] = stand.customers.values();
    assert.equal(only.id, customer);
    assert.equal(only.email, u.email);
    for (const r of portals) {
      const id = /\/portal\/(bps_\w+)$/.exec(r.body.url as string)![1];
      assert.equal(stand.portalSessions.get(id)!.customer, customer);
      assert.equal(stand.portalSessions.get(id)!.return_url, "http://127.0.0.1:3000/account");
    }
    // A checkout afterwards uses the same customer; so does a portal after it.
    const checkout = await call(p, "payments-checkout", "", {
      method: "POST",
      token: u.accessToken,
      body: credit(100, 10),
    });
    assert.equal(checkout.status, 200);
    assert.equal(stand.sessions.get(sessionIdOf(checkout.body.url as string))!.customer, customer);
    assert.equal(stand.customers.size, 1);
    const creates = stand.captures.requests().filter((c) =>
      c.path === "/v1/customers" && c.method === "POST"
    );
    assert.ok(creates.length >= 1);
    assert.ok(creates.every((c) => c.headers["idempotency-key"] === `customer-for-user-${u.id}`));
  },
);

platformTest("Stripe failures are 502s with Stripe's message, and nothing is recorded", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "pay-fail");
  // The customer is created first; the checkout call fails.
  await call(p, "payments-customer-portal", "", {
    method: "POST",
    token: u.accessToken,
    body: { returnUrl: "http://127.0.0.1:3000/account" },
  });
  stand.failNext(500, { message: "Something went wrong on Stripe's end.", times: 2 });
  const r = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: credit(100, 10),
  });
  assert.equal(r.status, 502);
  assert.equal(r.body.code, "payment_provider_error");
  assert.match(r.body.error as string, /Something went wrong on Stripe's end/);
  assert.doesNotMatch(JSON.stringify(r.body), /sk_test/);
  const rows = await p.db.query(`select 1 from public.payment_checkouts where user_id = $1`, [u.id]);
  assert.equal(rows.rows.length, 0);
});

platformTest("an amount Stripe charged that differs from ours grants nothing", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "pay-mismatch");
  const r = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: credit(1000, 80),
  });
  const id = sessionIdOf(r.body.url as string);
  stand.sessions.get(id)!.amount_total = 100;
  const [delivery] = await stand.completeCheckout(id);
  assert.equal(delivery.result.status, 200);
  assert.equal(JSON.parse(delivery.result.body).outcome.status, "amount_mismatch");
  assert.equal((await ledger(p, u.id)).balance, 0);
});

platformTest("an unpaid completion grants later, on async_payment_succeeded, once", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "pay-async");
  const r = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: credit(100, 10),
  });
  const id = sessionIdOf(r.body.url as string);
  const [first] = await stand.completeCheckout(id, { paymentStatus: "unpaid" });
  assert.equal(JSON.parse(first.result.body).outcome.status, "awaiting_payment");
  assert.equal((await ledger(p, u.id)).balance, 0);
  const session = stand.sessions.get(id)!;
  session.payment_status = "paid";
  const succeeded = stand.event("checkout.session.async_payment_succeeded", session);
  assert.equal((await stand.deliver(succeeded)).status, 200);
  assert.equal((await ledger(p, u.id)).balance, 100);
  // GET /credits shows it to the user.
  const credits = await call(p, "crm-billing-api", "/credits", { token: u.accessToken });
  assert.deepEqual(credits.body, { data: { balance: 100, user_id: u.id } });
  // Users cannot write the catalog or their checkouts themselves.
  const write = await u.client.from("credit_packages").update({ price: 0.01 }).neq("name", "").select();
  assert.equal(write.error?.code, "42501");
  const prices = await u.client.from("credit_packages").select("price").order("price");
  assert.deepEqual(prices.data, [{ price: 10 }, { price: 45 }, { price: 80 }]);
  const own = await u.client.from("payment_checkouts").select("provider_session_id");
  assert.deepEqual(own.data, [{ provider_session_id: id }]);
  const other = await createUser(p, "pay-async-other");
  assert.deepEqual((await other.client.from("payment_checkouts").select("id")).data, []);
  assert.equal((await serviceClient(p).from("payment_events").select("id")).data!.length > 0, true);
  assert.deepEqual((await u.client.from("payment_events").select("id")).data, []);
});

platformTest(
  "without a Stripe key payments are 503; a refused key is a 502 that does not echo it",
  async (p) => {
    stripeStandIn(p);
    const u = await createUser(p, "pay-keys");
    const saved = p.env.STRIPE_SECRET_KEY;
    try {
      delete p.env.STRIPE_SECRET_KEY;
      const off = await call(p, "payments-checkout", "", {
        method: "POST",
        token: u.accessToken,
        body: credit(100, 10),
      });
      assert.equal(off.status, 503);
      assert.equal(off.body.code, "payments_not_configured");
      p.env.STRIPE_SECRET_KEY = "pk_test_a_publishable_key_by_mistake";
      const refused = await call(p, "payments-customer-portal", "", {
        method: "POST",
        token: u.accessToken,
        body: { returnUrl: "http://127.0.0.1:3000/account" },
      });
      assert.equal(refused.status, 502);
      assert.match(refused.body.error as string, /refused the server's API key/);
      assert.doesNotMatch(JSON.stringify(refused.body), /pk_test/);
    } finally {
      p.env.STRIPE_SECRET_KEY = saved;
    }
    assert.equal((await profileOf(p, u.id)).payment_customer_id, null);
  },
);
