/**
 * payments-webhook: Stripe-Signature is the only way in (forged, stale, tampered and unsigned
 * events are refused with nothing changed), each event applies once, unknown types are
 * acknowledged and ignored, and a subscription's lifecycle moves the user's tier.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import type { StripeStandIn } from "../../stack/sandbox/providers/stripe.ts";
import { createUser, platformTest, type TestUser } from "../helpers/platform.ts";
import {
  call,
  CANCEL_URL,
  ledger,
  planId,
  profileOf,
  sessionIdOf,
  stripeStandIn,
  SUCCESS_URL,
} from "./helpers.ts";

const now = () => Math.floor(Date.now() / 1000);

/** A credit checkout marked paid at the stand-in, and its completed event, not yet sent. */
async function paidCheckout(p: Platform, stand: StripeStandIn, u: TestUser) {
  const r = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: {
      type: "credit_purchase",
      credits: 100,
      price: 10,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const session = stand.sessions.get(sessionIdOf(r.body.url as string))!;
  Object.assign(session, { status: "complete", payment_status: "paid", url: null });
  return stand.event("checkout.session.completed", session);
}

async function eventsRecorded(p: Platform, id: string): Promise<number> {
  return (await p.db.query(`select 1 from public.payment_events where id = $1`, [id])).rows.length;
}

platformTest("forged, stale, tampered and unsigned events are refused; nothing changes", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "hook-sig");
  const event = await paidCheckout(p, stand, u);
  const attempts: [string, Parameters<StripeStandIn["deliver"]>[1], RegExp][] = [
    ["forged", { secret: "whsec_not_the_endpoint_secret" }, /No signatures found/],
    ["stale", { timestamp: now() - 301 }, /tolerance/],
    [
      "tampered",
      { tamper: (b) => b.replace('"amount_total": 1000', '"amount_total": 1') },
      /No signatures found/,
    ],
    ["unsigned", { sign: false }, /Missing Stripe-Signature/],
  ];
  for (const [what, opts, message] of attempts) {
    const r = await stand.deliver(event, opts);
    assert.equal(r.status, 400, what);
    const body = JSON.parse(r.body);
    assert.equal(body.code, "invalid_signature", what);
    assert.match(body.error, message, what);
    assert.doesNotMatch(r.body, /whsec_/, what);
  }
  // A tampered body must really differ from the signed one.
  assert.ok(JSON.stringify(event.data).includes("1000"));
  assert.equal((await ledger(p, u.id)).balance, 0);
  assert.equal(await eventsRecorded(p, event.id as string), 0);
  // Signed 299 s ago is still inside the window: applied, once.
  const ok = await stand.deliver(event, { timestamp: now() - 299 });
  assert.equal(ok.status, 200, ok.body);
  assert.equal((await ledger(p, u.id)).balance, 100);
  const replay = await stand.deliver(event);
  assert.equal(JSON.parse(replay.body).duplicate, true);
  assert.equal((await ledger(p, u.id)).balance, 100);
});

platformTest("a JSON body that is not an event, and unknown event types", async (p) => {
  const stand = stripeStandIn(p);
  const unknown = stand.event("charge.refund.updated", { id: "re_1", object: "refund" });
  const r = await stand.deliver(unknown);
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.body), {
    received: true,
    type: "charge.refund.updated",
    duplicate: false,
    outcome: { status: "ignored" },
  });
  // Anyone may reach the URL (no JWT), but without the signature nothing is read.
  const res = await fetch(`${p.url}/functions/v1/payments-webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": `t=${now()},v1=${"0".repeat(64)}` },
    body: "{}",
  });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).code, "invalid_signature");
});

platformTest("a subscription's lifecycle moves the user's tier", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "hook-sub");
  const none = await call(p, "crm-billing-api", "/subscriptions", { token: u.accessToken });
  assert.deepEqual(none.body, { data: null });

  const r = await call(p, "crm-billing-api", "/subscriptions/create-checkout", {
    method: "POST",
    token: u.accessToken,
    body: { plan_id: await planId(p, "pro") },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const { url, session_id } = r.body.data as { url: string; session_id: string };
  const sent = stand.captures.requests().find((c) => c.path === "/v1/checkout/sessions")!.body as Record<
    string,
    string
  >;
  assert.equal(sent.mode, "subscription");
  assert.equal(sent["line_items[0][price]"], "price_pro_monthly");
  assert.equal(sent["subscription_data[metadata][user_id]"], u.id);
  // No SITE_URL configured: the sandbox's landing page (tests/sandbox/outside_tools_test.ts).
  assert.ok(sent.success_url.startsWith(`${p.sandbox!.siteUrl}/billing?checkout=success`), sent.success_url);
  assert.equal(sessionIdOf(url), session_id);

  const deliveries = await stand.completeCheckout(session_id);
  assert.deepEqual(deliveries.map((d) => [d.event.type, d.result.status]), [
    ["customer.subscription.created", 200],
    ["invoice.paid", 200],
    ["checkout.session.completed", 200],
  ]);
  assert.equal(JSON.parse(deliveries[1].result.body).outcome.status, "ignored");
  assert.equal((await profileOf(p, u.id)).subscription_tier, "pro");
  const subId = stand.sessions.get(session_id)!.subscription as string;
  const item = (stand.subscriptions.get(subId)!.items as { data: Record<string, number>[] }).data[0];

  const current = await call(p, "crm-billing-api", "/subscriptions", { token: u.accessToken });
  const data = current.body.data as Record<string, unknown>;
  assert.equal(data.status, "active");
  assert.equal(Date.parse(data.current_period_start as string), item.current_period_start * 1000);
  assert.equal(Date.parse(data.current_period_end as string), item.current_period_end * 1000);
  assert.deepEqual(data.subscription_plans, {
    name: "Pro",
    price: 49,
    description: "For growing teams: everything in Starter plus AI agents and price monitoring.",
  });

  // A second subscription while this one lives is refused.
  const again = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: {
      type: "subscription",
      priceId: "price_starter_monthly",
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    },
  });
  assert.equal(again.status, 409);
  assert.equal(again.body.code, "subscription_exists");

  // Upgrade, fall past due (the tier stays while Stripe retries), cancel.
  const upgraded = await stand.updateSubscription(subId, { priceId: "price_enterprise_monthly" });
  assert.equal(upgraded.result.status, 200);
  assert.equal((await profileOf(p, u.id)).subscription_tier, "enterprise");
  await stand.updateSubscription(subId, { status: "past_due" });
  assert.equal((await profileOf(p, u.id)).subscription_tier, "enterprise");
  const cancelled = await stand.cancelSubscription(subId);
  assert.equal(cancelled.result.status, 200);
  assert.equal((await profileOf(p, u.id)).subscription_tier, "free");
  const ended = await call(p, "crm-billing-api", "/subscriptions", { token: u.accessToken });
  assert.equal((ended.body.data as Record<string, unknown>).status, "canceled");

  // Late and replayed events change nothing: an update older than the deletion, and the creation again.
  const late = stand.event("customer.subscription.updated", {
    ...stand.subscriptions.get(subId)!,
    status: "active",
  });
  late.created = (late.created as number) - 3600;
  const lateResult = await stand.deliver(late);
  assert.equal(JSON.parse(lateResult.body).outcome.status, "stale");
  assert.equal(JSON.parse((await stand.deliver(deliveries[0].event)).body).duplicate, true);
  assert.equal((await profileOf(p, u.id)).subscription_tier, "free");

  // Another user sees none of it; the user reads their own rows.
  const other = await createUser(p, "hook-sub-other");
  assert.deepEqual((await other.client.from("subscriptions").select("id")).data, []);
  assert.equal((await u.client.from("subscriptions").select("id")).data!.length, 1);
  assert.deepEqual((await call(p, "crm-billing-api", "/subscriptions", { token: other.accessToken })).body, {
    data: null,
  });
});

platformTest("subscription checkouts take catalog plans only", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "hook-plan");
  const r = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: {
      type: "subscription",
      priceId: "price_free_forever",
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    },
  });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, "unknown_plan");
  const missing = await call(p, "crm-billing-api", "/subscriptions/create-checkout", {
    method: "POST",
    token: u.accessToken,
    body: { plan_id: "00000000-0000-4000-8000-000000000000" },
  });
  assert.equal(missing.status, 404);
  assert.equal(stand.captures.requests().filter((c) => c.path === "/v1/checkout/sessions").length, 0);
  const ok = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: {
      type: "subscription",
      priceId: "price_starter_monthly",
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(stand.sessions.get(sessionIdOf(ok.body.url as string))!.mode, "subscription");
});

platformTest("an expired checkout is marked expired and can no longer be paid", async (p) => {
  const stand = stripeStandIn(p);
  const u = await createUser(p, "hook-expired");
  const r = await call(p, "payments-checkout", "", {
    method: "POST",
    token: u.accessToken,
    body: {
      type: "credit_purchase",
      credits: 100,
      price: 10,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    },
  });
  const id = sessionIdOf(r.body.url as string);
  const expired = await stand.expireCheckout(id);
  assert.equal(expired.result.status, 200);
  assert.equal(JSON.parse(expired.result.body).outcome.status, "expired");
  const row = await p.db.query<{ status: string }>(
    `select status from public.payment_checkouts where provider_session_id = $1`,
    [id],
  );
  assert.equal(row.rows[0].status, "expired");
  const page = await fetch(`${r.body.url}/pay`, { method: "POST", redirect: "manual" });
  await page.body?.cancel();
  assert.equal(page.status, 409);
  assert.equal((await ledger(p, u.id)).balance, 0);
});
