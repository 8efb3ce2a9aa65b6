/** Shared by the payments tests: the Stripe stand-in with the catalog's prices, and ledger reads. */
import type { Platform } from "../../stack/platform.ts";
import type { StripeStandIn } from "../../stack/sandbox/providers/stripe.ts";

export { call } from "../quotes/helpers.ts";

export const SUCCESS_URL = "http://127.0.0.1:3000/billing/done?session={CHECKOUT_SESSION_ID}";
export const CANCEL_URL = "http://127.0.0.1:3000/billing/cancelled";

/** The stand-in, reset (it keeps the catalog plans' prices, as created in the dashboard). */
export function stripeStandIn(p: Platform): StripeStandIn {
  const stand = p.sandbox!.get("stripe");
  stand.reset();
  return stand;
}

/** The checkout session id at the end of a stand-in checkout URL. */
export function sessionIdOf(url: string): string {
  const m = /\/checkout\/(cs_test_\w+)$/.exec(url);
  if (!m) throw new Error(`not a sandbox checkout URL: ${url}`);
  return m[1];
}

export async function ledger(p: Platform, userId: string) {
  const b = await p.db.query<{ balance: string }>(
    `select balance from public.user_credits where user_id = $1`,
    [
      userId,
    ],
  );
  const t = await p.db.query<{ amount: string; kind: string; reference_id: string }>(
    `select amount, kind, reference_id from public.credit_transactions where user_id = $1 order by created_at`,
    [userId],
  );
  return {
    balance: Number(b.rows[0]?.balance ?? 0),
    transactions: t.rows.map((r) => ({ ...r, amount: Number(r.amount) })),
  };
}

export async function profileOf(p: Platform, userId: string) {
  const r = await p.db.query<{ subscription_tier: string; payment_customer_id: string | null }>(
    `select subscription_tier, payment_customer_id from public.user_profiles where user_id = $1`,
    [userId],
  );
  return r.rows[0];
}

export async function packageId(p: Platform, credits: number): Promise<string> {
  return (await p.db.query<{ id: string }>(`select id from public.credit_packages where credits = $1`, [
    credits,
  ]))
    .rows[0].id;
}

export async function planId(p: Platform, tier: string): Promise<string> {
  return (await p.db.query<{ id: string }>(`select id from public.subscription_plans where tier = $1`, [
    tier,
  ]))
    .rows[0].id;
}
