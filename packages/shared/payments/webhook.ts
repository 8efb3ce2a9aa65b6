/**
 * The payment provider's events, verified (provider.ts verifyWebhook) and applied once: each
 * handled type is one SQL function (20260203000100_payments.sql) that records the event id in
 * the same transaction as its effect, so a replayed or concurrently redelivered event changes
 * nothing again. Other event types are acknowledged and ignored.
 *
 * - checkout.session.completed / async_payment_succeeded: completes our recorded checkout; a
 *   paid credit purchase grants its catalog credits through grant_credits (the ledger).
 * - checkout.session.expired: our open checkout is marked expired.
 * - customer.subscription.created|updated|deleted|paused|resumed: upserts the subscription of
 *   the user owning the customer and sets their tier (the plan's while live, free otherwise).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import type { Stripe } from "./provider.ts";

export interface WebhookOutcome {
  duplicate: boolean;
  outcome: Record<string, unknown> | null;
}

const CHECKOUT_EVENTS = new Set(["checkout.session.completed", "checkout.session.async_payment_succeeded"]);
const SUBSCRIPTION_EVENTS = new Set([
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed",
]);

const iso = (
  unix: number | null | undefined,
) => (typeof unix === "number" ? new Date(unix * 1000).toISOString() : null);
const idOf = (v: string | { id: string } | null) => (typeof v === "string" ? v : v?.id ?? null);

function checkoutArgs(event: Stripe.Event) {
  const s = event.data.object as Stripe.Checkout.Session;
  return {
    fn: "complete_payment_checkout",
    args: {
      p_event_id: event.id,
      p_event_type: event.type,
      p_session_id: s.id,
      p_payment_status: s.payment_status,
      p_amount_total: s.amount_total,
      p_currency: s.currency ?? "",
    },
  };
}

function expiredArgs(event: Stripe.Event) {
  const s = event.data.object as Stripe.Checkout.Session;
  return {
    fn: "expire_payment_checkout",
    args: { p_event_id: event.id, p_event_type: event.type, p_session_id: s.id },
  };
}

function subscriptionArgs(event: Stripe.Event) {
  const sub = event.data.object as Stripe.Subscription;
  const item = sub.items?.data?.[0];
  const customer = idOf(sub.customer as string | { id: string });
  if (!customer) throw DomainError.invalid("The subscription event names no customer");
  return {
    fn: "apply_subscription_event",
    args: {
      p_event_id: event.id,
      p_event_type: event.type,
      p_event_created: iso(event.created),
      p_subscription_id: sub.id,
      p_customer_id: customer,
      p_status: sub.status,
      p_price_id: item?.price?.id ?? null,
      // Current API versions keep the period on the subscription items.
      p_period_start: iso(item?.current_period_start),
      p_period_end: iso(item?.current_period_end),
      p_cancel_at_period_end: sub.cancel_at_period_end ?? false,
      p_canceled_at: iso(sub.canceled_at),
    },
  };
}

/** Applies one verified event; a database failure throws (500) so the provider retries. */
export async function handleEvent(db: SupabaseClient, event: Stripe.Event): Promise<WebhookOutcome> {
  const call = CHECKOUT_EVENTS.has(event.type)
    ? checkoutArgs(event)
    : SUBSCRIPTION_EVENTS.has(event.type)
    ? subscriptionArgs(event)
    : event.type === "checkout.session.expired"
    ? expiredArgs(event)
    : null;
  if (!call) return { duplicate: false, outcome: { status: "ignored" } };
  const r = await db.rpc(call.fn, call.args);
  if (r.error) {
    throw DomainError.internal(
      `Could not apply ${event.type} ${event.id}: ${r.error.message}`,
      "webhook_failed",
    );
  }
  const out = r.data as Record<string, unknown>;
  if (out.duplicate === true) return { duplicate: true, outcome: null };
  return { duplicate: false, outcome: out };
}
