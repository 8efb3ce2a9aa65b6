/**
 * Billing: what a user may buy (the catalog: subscription_plans, credit_packages), one payment
 * customer per user, checkout and customer-portal sessions at the provider, and the user's
 * subscription and balance. Prices come from the catalog on the server; a body only names what
 * to buy. Every checkout is recorded (payment_checkouts) before its URL is handed out, and the
 * webhook (webhook.ts) grants from that record.
 *
 * `db` is the service client (the handler has authorised the caller: a signed-in user acting
 * for themself); reads the user may do themself take their own client.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { type DbError, dbError } from "../supabase/postgrest.ts";
import { dec, decFromNumber } from "../money.ts";
import { providerError, type Stripe } from "./provider.ts";

export interface BillingUser {
  id: string;
  email: string | null;
}

export interface CheckoutUrls {
  successUrl: string;
  cancelUrl: string;
}

export interface CheckoutResult {
  url: string;
  session_id: string;
}

export interface CreditPackage {
  id: string;
  name: string;
  credits: number;
  price: number;
  currency: string;
}

export interface SubscriptionPlan {
  id: string;
  name: string;
  tier: string;
  price: number;
  currency: string;
  provider_price_id: string;
}

const LIVE_STATUSES = ["trialing", "active", "past_due"];
const PACKAGE = "id, name, credits, price, currency";
const PLAN = "id, name, tier, price, currency, provider_price_id";

/** A failed read or write: a refusal as the one mapping says, a fault as billing_failed. */
function failed(what: string, error: DbError): DomainError {
  return dbError(error, "Billing record", 0, {
    code: "billing_failed",
    message: `Could not ${what}: ${error.message}`,
  });
}

/** EUR (at most 2 decimals, from the catalog) to cents. */
export function toCents(price: number | string): number {
  return Number(dec(String(price)) / 100n);
}

// ---- catalog ----

/** The active package with exactly these credits at exactly this EUR price; else a 400. */
export async function packageFor(db: SupabaseClient, credits: number, price: number): Promise<CreditPackage> {
  if (decFromNumber(credits) === null || decFromNumber(price) === null) {
    throw DomainError.invalid("credits and price must be positive numbers with at most 4 decimals");
  }
  const r = await db.from("credit_packages").select(PACKAGE).eq("is_active", true).eq("credits", credits)
    .eq("price", price).maybeSingle();
  if (r.error) throw failed("read the credit packages", r.error);
  if (!r.data) {
    throw DomainError.invalid(
      `No credit package of ${credits} credits for ${price} EUR; see the credit_packages catalog`,
      { credits, price },
      "unknown_credit_package",
    );
  }
  return r.data as CreditPackage;
}

export async function packageById(db: SupabaseClient, id: string): Promise<CreditPackage> {
  const r = await db.from("credit_packages").select(PACKAGE).eq("is_active", true).eq("id", id).maybeSingle();
  if (r.error) throw failed("read the credit packages", r.error);
  if (!r.data) throw DomainError.notFound("Credit package not found", "unknown_credit_package");
  return r.data as CreditPackage;
}

export async function planBy(
  db: SupabaseClient,
  by: { id: string } | { priceId: string },
): Promise<SubscriptionPlan> {
  let q = db.from("subscription_plans").select(PLAN).eq("is_active", true);
  q = "id" in by ? q.eq("id", by.id) : q.eq("provider_price_id", by.priceId);
  const r = await q.maybeSingle();
  if (r.error) throw failed("read the subscription plans", r.error);
  if (!r.data) {
    if ("id" in by) throw DomainError.notFound("Subscription plan not found", "unknown_plan");
    throw DomainError.invalid(`No subscription plan has the price ${by.priceId}`, undefined, "unknown_plan");
  }
  return r.data as SubscriptionPlan;
}

// ---- the payment customer ----

/**
 * The user's payment customer, created at the provider on first need and stored on their
 * profile. Safe under concurrency: creation carries an idempotency key per user (concurrent
 * first calls get the same customer back), and the id is stored only where none is yet, so
 * every caller ends up with the one stored id.
 */
export async function ensureCustomer(db: SupabaseClient, stripe: Stripe, user: BillingUser): Promise<string> {
  const read = async () => {
    const r = await db.from("user_profiles").select("payment_customer_id").eq("user_id", user.id)
      .maybeSingle();
    if (r.error) throw failed("read the user profile", r.error);
    if (!r.data) throw DomainError.notFound("The user has no profile", "profile_not_found");
    return r.data.payment_customer_id as string | null;
  };
  const existing = await read();
  if (existing) return existing;
  let customerId: string;
  try {
    const customer = await stripe.customers.create(
      { email: user.email ?? undefined, metadata: { user_id: user.id } },
      { idempotencyKey: `customer-for-user-${user.id}` },
    );
    customerId = customer.id;
  } catch (err) {
    throw providerError(err, "create the payment customer");
  }
  const r = await db.from("user_profiles").update({ payment_customer_id: customerId }).eq("user_id", user.id)
    .is("payment_customer_id", null).select("payment_customer_id");
  if (r.error) throw failed("store the payment customer", r.error);
  if (r.data.length === 1) return customerId;
  // Someone stored one first: that is the user's customer.
  const stored = await read();
  if (!stored) throw DomainError.internal("The payment customer could not be stored", "billing_failed");
  return stored;
}

// ---- checkout and portal ----

async function recordCheckout(
  db: SupabaseClient,
  stripe: Stripe,
  session: Stripe.Checkout.Session,
  row: Record<string, unknown>,
): Promise<CheckoutResult> {
  const r = await db.from("payment_checkouts").insert({ ...row, provider_session_id: session.id });
  if (r.error) {
    // Unrecorded, the session could never be honoured: close it so nobody pays for it.
    await stripe.checkout.sessions.expire(session.id).catch((err) =>
      console.error(`billing: could not expire unrecorded checkout ${session.id}: ${String(err)}`)
    );
    throw failed("record the checkout", r.error);
  }
  if (!session.url) throw DomainError.internal("The checkout session has no URL", "billing_failed");
  return { url: session.url, session_id: session.id };
}

/** A hosted checkout for one credit package, priced from the catalog. */
export async function creditCheckout(
  db: SupabaseClient,
  stripe: Stripe,
  user: BillingUser,
  pkg: CreditPackage,
  urls: CheckoutUrls,
): Promise<CheckoutResult> {
  const customer = await ensureCustomer(db, stripe, user);
  const cents = toCents(pkg.price);
  const metadata = {
    user_id: user.id,
    kind: "credit_purchase",
    package_id: pkg.id,
    credits: String(pkg.credits),
  };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create({
      mode: "payment",
      customer,
      client_reference_id: user.id,
      line_items: [{
        quantity: 1,
        price_data: { currency: pkg.currency, unit_amount: cents, product_data: { name: pkg.name } },
      }],
      success_url: urls.successUrl,
      cancel_url: urls.cancelUrl,
      metadata,
      payment_intent_data: { metadata },
    });
  } catch (err) {
    throw providerError(err, "open the checkout");
  }
  return await recordCheckout(db, stripe, session, {
    user_id: user.id,
    kind: "credit_purchase",
    package_id: pkg.id,
    credits: pkg.credits,
    amount_cents: cents,
    currency: pkg.currency,
  });
}

/** A hosted checkout for a plan; 409 while the user already has a live subscription. */
export async function subscriptionCheckout(
  db: SupabaseClient,
  stripe: Stripe,
  user: BillingUser,
  plan: SubscriptionPlan,
  urls: CheckoutUrls,
): Promise<CheckoutResult> {
  const live = await db.from("subscriptions").select("id").eq("user_id", user.id).in("status", LIVE_STATUSES)
    .limit(1);
  if (live.error) throw failed("read the subscriptions", live.error);
  if (live.data.length > 0) {
    throw DomainError.conflict(
      "You already have an active subscription; change or cancel it in the customer portal",
      undefined,
      "subscription_exists",
    );
  }
  const customer = await ensureCustomer(db, stripe, user);
  const metadata = { user_id: user.id, kind: "subscription", plan_id: plan.id };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create({
      mode: "subscription",
      customer,
      client_reference_id: user.id,
      line_items: [{ price: plan.provider_price_id, quantity: 1 }],
      success_url: urls.successUrl,
      cancel_url: urls.cancelUrl,
      metadata,
      subscription_data: { metadata },
    });
  } catch (err) {
    throw providerError(err, "open the checkout");
  }
  return await recordCheckout(db, stripe, session, {
    user_id: user.id,
    kind: "subscription",
    plan_id: plan.id,
    amount_cents: toCents(plan.price),
    currency: plan.currency,
  });
}

/** The provider's customer portal for the user's (one) customer. */
export async function portalSession(
  db: SupabaseClient,
  stripe: Stripe,
  user: BillingUser,
  returnUrl: string,
): Promise<{ url: string }> {
  const customer = await ensureCustomer(db, stripe, user);
  try {
    const session = await stripe.billingPortal.sessions.create({ customer, return_url: returnUrl });
    return { url: session.url };
  } catch (err) {
    throw providerError(err, "open the customer portal");
  }
}

// ---- the user's own state (their client: RLS shows only their rows) ----

/** The user's live subscription, else their latest one, else null. */
export async function currentSubscription(db: SupabaseClient, userId: string) {
  const r = await db.from("subscriptions")
    .select(
      "id, status, current_period_start, current_period_end, subscription_plans(name, price, description)",
    )
    .eq("user_id", userId).order("created_at", { ascending: false });
  if (r.error) throw failed("read the subscription", r.error);
  const subs = r.data as unknown as {
    id: string;
    status: string;
    current_period_start: string | null;
    current_period_end: string | null;
    subscription_plans: { name: string; price: number | string; description: string | null } | null;
  }[];
  const sub = subs.find((s) => LIVE_STATUSES.includes(s.status)) ?? subs[0];
  if (!sub) return null;
  const plan = sub.subscription_plans;
  return { ...sub, subscription_plans: plan ? { ...plan, price: Number(plan.price) } : null };
}

export async function creditBalance(db: SupabaseClient, userId: string) {
  const r = await db.from("user_credits").select("balance").eq("user_id", userId).maybeSingle();
  if (r.error) throw failed("read the credit balance", r.error);
  return { balance: r.data ? Number(r.data.balance) : 0, user_id: userId };
}

/**
 * Where the provider sends the user after a checkout opened by crm-billing-api (its bodies name
 * only what to buy): PAYMENTS_SUCCESS_URL / PAYMENTS_CANCEL_URL, else pages of SITE_URL (the
 * web app; the local default is supabase/config.toml's site_url).
 */
export function defaultCheckoutUrls(read: (name: string) => string | undefined): CheckoutUrls {
  const site = (read("SITE_URL") ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  return {
    successUrl: read("PAYMENTS_SUCCESS_URL") ??
      `${site}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: read("PAYMENTS_CANCEL_URL") ?? `${site}/billing?checkout=cancelled`,
  };
}
