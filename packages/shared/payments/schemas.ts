/**
 * Request and response schemas of the billing surfaces (spec "Billing"): crm-billing-api,
 * payments-checkout and payments-customer-portal.
 */
import { z } from "zod";

const ts = z.string().meta({ format: "date-time" });
/** A page of ours the provider redirects to: http(s) only. */
const RedirectUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).max(2048);

export const CreateSubscriptionCheckoutBody = z.strictObject({ plan_id: z.uuid() });
export const PurchaseCreditsBody = z.strictObject({ package_id: z.uuid() });

export const PaymentsCheckoutBody = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("credit_purchase"),
    credits: z.number().positive(),
    /** In EUR: must be the catalog price of a package with exactly these credits. */
    price: z.number().positive(),
    successUrl: RedirectUrl,
    cancelUrl: RedirectUrl,
  }),
  z.strictObject({
    type: z.literal("subscription"),
    priceId: z.string().min(1).max(255),
    successUrl: RedirectUrl,
    cancelUrl: RedirectUrl,
  }),
], { error: "type must be credit_purchase or subscription" });
export type PaymentsCheckoutBody = z.infer<typeof PaymentsCheckoutBody>;

export const PortalBody = z.strictObject({ returnUrl: RedirectUrl });

export const UrlResponse = z.object({ url: z.url() }).meta({ id: "RedirectUrl" });

const Checkout = z.object({ url: z.url(), session_id: z.string() });

/**
 * crm-billing-api's checkout answer: `url` at the top level, the spec's shape for a redirect URL
 * (payments-checkout, payments-customer-portal: {url}), so one client reads `url` from every
 * function; `data` repeats it for clients of the earlier {data: {url, session_id}} answer.
 */
export const CheckoutData = Checkout.extend({ data: Checkout }).meta({ id: "BillingCheckout" });

export const SubscriptionData = z.object({
  data: z.object({
    id: z.uuid(),
    status: z.string(),
    current_period_start: ts.nullable(),
    current_period_end: ts.nullable(),
    subscription_plans: z.object({ name: z.string(), price: z.number(), description: z.string().nullable() })
      .nullable(),
  }).nullable(),
}).meta({ id: "BillingSubscription" });

export const CreditsData = z.object({
  data: z.object({ balance: z.number(), user_id: z.uuid() }),
}).meta({ id: "BillingCredits" });

export const WebhookAck = z.object({
  received: z.literal(true),
  duplicate: z.boolean(),
  type: z.string(),
  outcome: z.record(z.string(), z.unknown()).nullable(),
}).meta({ id: "PaymentsWebhookAck" });
