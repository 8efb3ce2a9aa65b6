/**
 * The Stripe objects the stand-in returns and sends, with the fields the API has in the
 * version the SDK pins (providers.md §3): price, customer, checkout.session's companions
 * (billing_portal.session, subscription with its items carrying the current period, invoice)
 * and the event envelope.
 */
import type { Form } from "./stripe_wire.ts";
import { nowSeconds, stripeId } from "./stripe_wire.ts";

export type Obj = Record<string, unknown>;

export const STRIPE_API_VERSION = "2026-10-28.endive";
const MONTH_SECONDS = 30 * 24 * 3600;

export interface PriceSpec {
  id?: string;
  unit_amount: number;
  currency?: string;
  recurring?: { interval: "day" | "week" | "month" | "year"; interval_count?: number } | null;
  product_name?: string;
}

export function priceObject(spec: PriceSpec): Obj {
  return {
    id: spec.id ?? stripeId("price_"),
    object: "price",
    active: true,
    billing_scheme: "per_unit",
    created: nowSeconds(),
    currency: spec.currency ?? "eur",
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: spec.product_name ?? null,
    product: stripeId("prod_", 14),
    recurring: spec.recurring
      ? {
        interval: spec.recurring.interval,
        interval_count: spec.recurring.interval_count ?? 1,
        usage_type: "licensed",
      }
      : null,
    tax_behavior: "unspecified",
    type: spec.recurring ? "recurring" : "one_time",
    unit_amount: spec.unit_amount,
    unit_amount_decimal: String(spec.unit_amount),
  };
}

export function eventObject(type: string, object: Obj, previous?: Obj): Obj {
  return {
    id: stripeId("evt_"),
    object: "event",
    api_version: STRIPE_API_VERSION,
    created: nowSeconds(),
    data: previous
      ? { object: structuredClone(object), previous_attributes: previous }
      : { object: structuredClone(object) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

export function customerObject(form: Form): Obj {
  return {
    id: stripeId("cus_", 14),
    object: "customer",
    address: null,
    balance: 0,
    created: nowSeconds(),
    currency: null,
    delinquent: false,
    description: form.description ?? null,
    email: form.email ?? null,
    invoice_prefix: stripeId("", 8).toUpperCase(),
    livemode: false,
    metadata: form.metadata ?? {},
    name: form.name ?? null,
    phone: null,
    preferred_locales: [],
    tax_exempt: "none",
  };
}

export function portalSessionObject(form: Form, baseUrl: string): Obj {
  const id = stripeId("bps_", 24);
  return {
    id,
    object: "billing_portal.session",
    configuration: stripeId("bpc_", 24),
    created: nowSeconds(),
    customer: form.customer,
    flow: null,
    livemode: false,
    locale: form.locale ?? null,
    on_behalf_of: null,
    return_url: form.return_url ?? null,
    url: `${baseUrl}/portal/${id}`,
  };
}

/** A new active subscription from a paid subscription-mode session (its first line item). */
export function subscriptionObject(session: Obj): Obj {
  const id = stripeId("sub_");
  const now = nowSeconds();
  const item = (session.line_items as Obj[])[0];
  return {
    id,
    object: "subscription",
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    collection_method: "charge_automatically",
    created: now,
    currency: session.currency,
    customer: session.customer,
    ended_at: null,
    items: {
      object: "list",
      data: [{
        id: stripeId("si_", 14),
        object: "subscription_item",
        created: now,
        current_period_start: now,
        current_period_end: now + MONTH_SECONDS,
        metadata: {},
        price: item.price,
        quantity: item.quantity,
        subscription: id,
      }],
      has_more: false,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    latest_invoice: stripeId("in_"),
    livemode: false,
    metadata: (session.subscription_metadata as Obj) ?? {},
    start_date: now,
    status: "active",
    trial_end: null,
  };
}

export function invoiceObject(sub: Obj): Obj {
  const item = (sub.items as { data: Obj[] }).data[0];
  const price = item.price as Obj;
  return {
    id: sub.latest_invoice,
    object: "invoice",
    amount_due: price.unit_amount,
    amount_paid: price.unit_amount,
    currency: price.currency,
    customer: sub.customer,
    status: "paid",
    parent: { type: "subscription_details", subscription_details: { subscription: sub.id } },
    created: nowSeconds(),
    livemode: false,
  };
}
