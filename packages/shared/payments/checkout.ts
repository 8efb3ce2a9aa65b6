/**
 * payments-checkout's request: a credit package of the catalog (credits and price must match one
 * exactly; the server prices it) or a subscription plan by its provider price id, opened as a
 * hosted checkout for the user. The provider client comes first, so an unconfigured provider is
 * a 503 before the catalog is read.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { type BillingUser, creditCheckout, packageFor, planBy, subscriptionCheckout } from "./billing.ts";
import type { Stripe } from "./provider.ts";
import type { PaymentsCheckoutBody } from "./schemas.ts";

export async function openCheckout(
  db: SupabaseClient,
  stripe: () => Stripe,
  user: BillingUser,
  body: PaymentsCheckoutBody,
): Promise<{ url: string }> {
  const urls = { successUrl: body.successUrl, cancelUrl: body.cancelUrl };
  const client = stripe();
  const { url } = body.type === "credit_purchase"
    ? await creditCheckout(db, client, user, await packageFor(db, body.credits, body.price), urls)
    : await subscriptionCheckout(db, client, user, await planBy(db, { priceId: body.priceId }), urls);
  return { url };
}
