/**
 * Stand-in for the Stripe API (providers.md §3), served on a port of its own because the SDK
 * takes a host and a port (`new Stripe(key, {host, port, protocol: "http"})`). It speaks the
 * wire format the official SDK uses: form-encoded bracket bodies, Stripe's JSON objects and its
 * error shape, `Idempotency-Key` as a replay key (the SDK sends one on every POST).
 *
 * Endpoints: customers (create, retrieve), prices (create, retrieve), checkout sessions
 * (create, retrieve, expire), billing portal sessions (create), subscriptions (retrieve, update
 * cancel_at_period_end, cancel). Hosted pages: GET /checkout/{id} has a "Pay" button that
 * completes the session and redirects to its success_url; GET /portal/{id} lists the customer's
 * subscriptions with "Cancel" buttons.
 *
 * Completing a checkout sends the events Stripe sends (for subscription mode
 * customer.subscription.created and invoice.paid, then checkout.session.completed), signed with
 * `webhookSecret` in Stripe-Signature, to `webhookUrl`. Tests script it: `definePrice`,
 * `completeCheckout`, `expireCheckout`, `updateSubscription`, `cancelSubscription`, and
 * `deliver` to send any event again, with another timestamp or secret, or tampered after
 * signing; `failNext` injects errors.
 */
import { type CallbackResult, StandIn, type StandInRequest } from "../standin.ts";
import {
  type Form,
  html,
  invalidParam,
  missingParam,
  noSuch,
  nowSeconds,
  parseStripeForm,
  stripeError,
  stripeId,
  stripeSignature,
} from "./stripe_wire.ts";
import {
  customerObject,
  eventObject,
  invoiceObject,
  type Obj,
  portalSessionObject,
  priceObject,
  type PriceSpec,
  subscriptionObject,
} from "./stripe_objects.ts";

export { type PriceSpec, STRIPE_API_VERSION } from "./stripe_objects.ts";

export interface DeliverOptions {
  /** Signing time in unix seconds (default now): an old one tests the tolerance window. */
  timestamp?: number;
  /** Sign with this secret instead of webhookSecret (a forged signature). */
  secret?: string;
  /** Change the body after signing it (a tampered event). */
  tamper?: (body: string) => string;
  /** false: no Stripe-Signature header at all. */
  sign?: boolean;
}

export interface Delivery {
  event: Obj;
  result: CallbackResult;
}

/**
 * The recurring prices of the platform's plan catalog (20260203000100_payments.sql), as they
 * would be created once in the Stripe dashboard: the stand-in starts with them, and keeps them
 * across reset().
 */
export const PLATFORM_DASHBOARD_PRICES: PriceSpec[] = [
  {
    id: "price_starter_monthly",
    unit_amount: 1900,
    recurring: { interval: "month" },
    product_name: "Starter",
  },
  { id: "price_pro_monthly", unit_amount: 4900, recurring: { interval: "month" }, product_name: "Pro" },
  {
    id: "price_enterprise_monthly",
    unit_amount: 19900,
    recurring: { interval: "month" },
    product_name: "Enterprise",
  },
];

export class StripeStandIn extends StandIn {
  readonly name = "stripe";
  /** Where events go: our payments webhook (set by the registry when code points at the sandbox). */
  webhookUrl = "";
  /**
   * The endpoint's signing secret (whsec_...), given to code as STRIPE_WEBHOOK_SECRET: made up here,
   * replaced by the sandbox with a configured or kept one.
   */
  webhookSecret = stripeId("whsec_", 32);
  readonly customers = new Map<string, Obj>();
  readonly prices = new Map<string, Obj>();
  readonly sessions = new Map<string, Obj>();
  readonly portalSessions = new Map<string, Obj>();
  readonly subscriptions = new Map<string, Obj>();
  /** Every event built, oldest first. */
  readonly events: Obj[] = [];
  #idempotency = new Map<string, { request: string; status: number; body: string }>();

  /** `dashboardPrices` exist from the start, as prices made in the dashboard do. */
  constructor(readonly dashboardPrices: PriceSpec[] = []) {
    super();
    for (const price of dashboardPrices) this.definePrice(price);
  }

  override reset(): void {
    super.reset();
    for (
      const m of [this.customers, this.sessions, this.portalSessions, this.subscriptions, this.#idempotency]
    ) {
      m.clear();
    }
    this.prices.clear();
    for (const price of this.dashboardPrices) this.definePrice(price);
    this.events.length = 0;
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    return stripeError(status, message, {}, headers);
  }

  protected override async signCallback(_url: string, body: string, headers: Headers): Promise<void> {
    headers.set("stripe-signature", await stripeSignature(body, this.webhookSecret, nowSeconds()));
  }

  // ---- scripting ----

  /** Makes a price exist (as created in the dashboard); returns the price object. */
  definePrice(spec: PriceSpec): Obj {
    const price = priceObject(spec);
    this.prices.set(price.id as string, price);
    return price;
  }

  /** Pays an open session (as the hosted page's "Pay" button) and sends its events. */
  async completeCheckout(
    sessionId: string,
    opts: { paymentStatus?: "paid" | "unpaid" } = {},
  ): Promise<Delivery[]> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`the Stripe sandbox has no checkout session ${sessionId}`);
    if (session.status !== "open") throw new Error(`checkout session ${sessionId} is ${session.status}`);
    session.status = "complete";
    session.url = null;
    session.payment_status = opts.paymentStatus ?? "paid";
    const customer = session.customer ? this.customers.get(session.customer as string) : undefined;
    session.customer_details = {
      email: customer?.email ?? session.customer_email ?? null,
      name: customer?.name ?? null,
    };
    const sent: Delivery[] = [];
    if (session.mode === "subscription") {
      const sub = this.#createSubscription(session);
      session.subscription = sub.id;
      session.invoice = sub.latest_invoice;
      sent.push(await this.#emit("customer.subscription.created", sub));
      sent.push(await this.#emit("invoice.paid", invoiceObject(sub)));
    } else {
      session.payment_intent = stripeId("pi_");
    }
    sent.push(await this.#emit("checkout.session.completed", session));
    return sent;
  }

  /** Lets an open session lapse (as after 24 hours) and sends checkout.session.expired. */
  expireCheckout(sessionId: string): Promise<Delivery> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`the Stripe sandbox has no checkout session ${sessionId}`);
    if (session.status !== "open") throw new Error(`checkout session ${sessionId} is ${session.status}`);
    Object.assign(session, { status: "expired", url: null });
    return this.#emit("checkout.session.expired", session);
  }

  /** Changes a subscription (status, price, cancel_at_period_end) and sends customer.subscription.updated. */
  updateSubscription(
    id: string,
    changes: { status?: string; priceId?: string; cancel_at_period_end?: boolean },
  ): Promise<Delivery> {
    const sub = this.#subscription(id);
    const previous: Obj = {};
    if (changes.status !== undefined) {
      previous.status = sub.status;
      sub.status = changes.status;
    }
    if (changes.cancel_at_period_end !== undefined) {
      previous.cancel_at_period_end = sub.cancel_at_period_end;
      sub.cancel_at_period_end = changes.cancel_at_period_end;
    }
    if (changes.priceId !== undefined) {
      const price = this.prices.get(changes.priceId);
      if (!price) throw new Error(`the Stripe sandbox has no price ${changes.priceId}`);
      const item = (sub.items as { data: Obj[] }).data[0];
      previous.items = structuredClone(sub.items);
      item.price = price;
    }
    return this.#emit("customer.subscription.updated", sub, previous);
  }

  /** Cancels a subscription now and sends customer.subscription.deleted. */
  cancelSubscription(id: string): Promise<Delivery> {
    const sub = this.#subscription(id);
    sub.status = "canceled";
    sub.canceled_at = sub.ended_at = nowSeconds();
    return this.#emit("customer.subscription.deleted", sub);
  }

  /** An event object as Stripe builds it (recorded in `events`, not sent). */
  event(type: string, object: Obj, previous?: Obj): Obj {
    const event = eventObject(type, object, previous);
    this.events.push(event);
    return event;
  }

  /** Sends `event` to webhookUrl, signed (or forged, stale, tampered, unsigned per `opts`). */
  async deliver(event: Obj, opts: DeliverOptions = {}): Promise<CallbackResult> {
    if (!this.webhookUrl) throw new Error("the Stripe sandbox has no webhook endpoint (webhookUrl)");
    const body = JSON.stringify(event, null, 2);
    const headers: Record<string, string> = {
      "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
    };
    if (opts.sign !== false) {
      headers["stripe-signature"] = await stripeSignature(
        body,
        opts.secret ?? this.webhookSecret,
        opts.timestamp ?? nowSeconds(),
      );
    }
    return this.sendCallback(this.webhookUrl, opts.tamper ? opts.tamper(body) : body, {
      contentType: "application/json; charset=utf-8",
      headers,
      sign: false,
    });
  }

  async #emit(type: string, object: Obj, previous?: Obj): Promise<Delivery> {
    const event = this.event(type, object, previous);
    return { event, result: await this.deliver(event) };
  }

  #subscription(id: string): Obj {
    const sub = this.subscriptions.get(id);
    if (!sub) throw new Error(`the Stripe sandbox has no subscription ${id}`);
    return sub;
  }

  #createSubscription(session: Obj): Obj {
    const sub = subscriptionObject(session);
    this.subscriptions.set(sub.id as string, sub);
    return sub;
  }

  // ---- the API ----

  protected override async route(req: StandInRequest): Promise<Response> {
    const path = req.path.replace(/\/+$/, "");
    if (path.startsWith("/checkout/") || path.startsWith("/portal/")) return await this.#hosted(req, path);
    if (!path.startsWith("/v1/")) return noSuch("route", path);
    const key = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
    if (!key) {
      return stripeError(
        401,
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      );
    }
    if (!/^(sk|rk)_(test|live)_/.test(key)) {
      return stripeError(401, `Invalid API Key provided: ${key.slice(0, 8)}${"*".repeat(8)}`, {
        code: "api_key_invalid",
      });
    }
    const idemKey = req.method === "POST" ? req.headers.get("idempotency-key") : null;
    const fingerprint = `${req.method} ${path} ${req.text}`;
    if (idemKey) {
      const seen = this.#idempotency.get(idemKey);
      if (seen && seen.request !== fingerprint) {
        return stripeError(
          400,
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
          { type: "idempotency_error" },
        );
      }
      if (seen) {
        return new Response(seen.body, {
          status: seen.status,
          headers: {
            "content-type": "application/json",
            "idempotent-replayed": "true",
            "request-id": stripeId("req_", 14),
          },
        });
      }
    }
    const form = parseStripeForm(req.text);
    const res = this.#api(req.method, path, form);
    if (idemKey && res.status < 500) {
      const body = await res.clone().text();
      this.#idempotency.set(idemKey, { request: fingerprint, status: res.status, body });
    }
    return res;
  }

  #api(method: string, path: string, form: Form): Response {
    const ok = (obj: Obj) => Response.json(obj, { headers: { "request-id": stripeId("req_", 14) } });
    const seg = path.split("/").slice(2);
    const [a, b, c] = seg;
    if (a === "customers" && seg.length === 1 && method === "POST") return ok(this.#createCustomer(form));
    if (a === "customers" && seg.length === 2 && method === "GET") {
      return this.customers.has(b) ? ok(this.customers.get(b)!) : noSuch("customer", b, "id");
    }
    if (a === "prices" && seg.length === 1 && method === "POST") return this.#createPrice(form, ok);
    if (a === "prices" && seg.length === 2 && method === "GET") {
      return this.prices.has(b) ? ok(this.prices.get(b)!) : noSuch("price", b, "price");
    }
    if (a === "checkout" && b === "sessions") {
      if (seg.length === 2 && method === "POST") return this.#createSession(form, ok);
      const session = c ? this.sessions.get(c) : undefined;
      if (!session) return noSuch("checkout.session", c ?? "");
      if (seg.length === 3 && method === "GET") return ok(session);
      if (seg.length === 4 && seg[3] === "expire" && method === "POST") {
        if (session.status !== "open") {
          return stripeError(
            400,
            `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
          );
        }
        Object.assign(session, { status: "expired", url: null });
        return ok(session);
      }
    }
    if (a === "billing_portal" && b === "sessions" && seg.length === 2 && method === "POST") {
      return this.#createPortalSession(form, ok);
    }
    if (a === "subscriptions" && seg.length === 2) {
      const sub = this.subscriptions.get(b);
      if (!sub) return noSuch("subscription", b);
      if (method === "GET") return ok(sub);
      if (method === "POST") {
        if (form.cancel_at_period_end !== undefined) {
          sub.cancel_at_period_end = form.cancel_at_period_end === "true";
        }
        if (form.metadata && typeof form.metadata === "object") {
          sub.metadata = { ...sub.metadata as Obj, ...form.metadata };
        }
        return ok(sub);
      }
      if (method === "DELETE") {
        Object.assign(sub, { status: "canceled", canceled_at: nowSeconds(), ended_at: nowSeconds() });
        return ok(sub);
      }
    }
    return stripeError(
      404,
      `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    );
  }

  #createCustomer(form: Form): Obj {
    const customer = customerObject(form);
    this.customers.set(customer.id as string, customer);
    return customer;
  }

  #createPrice(form: Form, ok: (o: Obj) => Response): Response {
    if (typeof form.currency !== "string") return missingParam("currency");
    const amount = Number(form.unit_amount);
    if (!Number.isInteger(amount) || amount < 0) {
      return invalidParam("unit_amount", "Invalid integer: unit_amount");
    }
    const recurring = form.recurring as Form | undefined;
    return ok(this.definePrice({
      unit_amount: amount,
      currency: form.currency,
      recurring: recurring
        ? { interval: recurring.interval as "month", interval_count: Number(recurring.interval_count ?? 1) }
        : null,
      product_name: (form.product_data as Form | undefined)?.name as string | undefined,
    }));
  }

  #createSession(form: Form, ok: (o: Obj) => Response): Response {
    const mode = form.mode;
    if (mode === undefined) return missingParam("mode");
    if (mode !== "payment" && mode !== "subscription") {
      return invalidParam("mode", `Invalid mode: must be one of payment, setup, or subscription`);
    }
    if (typeof form.success_url !== "string") return missingParam("success_url");
    if (!Array.isArray(form.line_items) || form.line_items.length === 0) return missingParam("line_items");
    if (form.customer !== undefined && !this.customers.has(form.customer as string)) {
      return noSuch("customer", form.customer as string, "customer");
    }
    const items: Obj[] = [];
    let total = 0;
    let currency = "";
    for (const [i, raw] of (form.line_items as Form[]).entries()) {
      const at = `line_items[${i}]`;
      let price: Obj | undefined;
      if (typeof raw.price === "string") {
        price = this.prices.get(raw.price);
        if (!price) return noSuch("price", raw.price, `${at}[price]`);
      } else if (raw.price_data && typeof raw.price_data === "object") {
        const pd = raw.price_data as Form;
        if (typeof pd.currency !== "string") return missingParam(`${at}[price_data][currency]`);
        if (pd.unit_amount === undefined) return missingParam(`${at}[price_data][unit_amount]`);
        if (!pd.product && !(pd.product_data as Form | undefined)?.name) {
          return missingParam(`${at}[price_data][product_data][name]`);
        }
        const rec = pd.recurring as Form | undefined;
        price = this.definePrice({
          unit_amount: Number(pd.unit_amount),
          currency: pd.currency,
          recurring: rec ? { interval: rec.interval as "month" } : null,
        });
      } else {
        return missingParam(`${at}[price]`);
      }
      if (mode === "payment" && price.recurring) {
        return stripeError(
          400,
          "You must provide at least one recurring price in `subscription` mode when using prices. In `payment` mode, prices must be one-time.",
          { param: `${at}[price]` },
        );
      }
      if (mode === "subscription" && !price.recurring) {
        return stripeError(400, "`subscription` mode requires at least one recurring price.", {
          param: `${at}[price]`,
        });
      }
      const quantity = Number(raw.quantity ?? 1);
      if (!Number.isInteger(quantity) || quantity < 1) {
        return invalidParam(`${at}[quantity]`, "Invalid integer: quantity");
      }
      total += (price.unit_amount as number) * quantity;
      currency = price.currency as string;
      items.push({ price, quantity });
    }
    const id = stripeId("cs_test_", 58);
    const session: Obj = {
      id,
      object: "checkout.session",
      amount_subtotal: total,
      amount_total: total,
      cancel_url: form.cancel_url ?? null,
      client_reference_id: form.client_reference_id ?? null,
      created: nowSeconds(),
      currency,
      customer: form.customer ?? null,
      customer_details: null,
      customer_email: form.customer_email ?? null,
      expires_at: nowSeconds() + 24 * 3600,
      invoice: null,
      livemode: false,
      metadata: form.metadata ?? {},
      mode,
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      subscription: null,
      success_url: (form.success_url as string).replaceAll("{CHECKOUT_SESSION_ID}", id),
      url: `${this.baseUrl}/checkout/${id}`,
    };
    this.sessions.set(id, session);
    // Kept beside the session (not part of its wire object): what the subscription is built from.
    Object.defineProperties(session, {
      line_items: { value: items, enumerable: false },
      subscription_metadata: {
        value: (form.subscription_data as Form | undefined)?.metadata ?? {},
        enumerable: false,
      },
    });
    return ok(session);
  }

  #createPortalSession(form: Form, ok: (o: Obj) => Response): Response {
    if (typeof form.customer !== "string") return missingParam("customer");
    if (!this.customers.has(form.customer)) return noSuch("customer", form.customer, "customer");
    const session = portalSessionObject(form, this.baseUrl);
    this.portalSessions.set(session.id as string, session);
    return ok(session);
  }

  // ---- hosted pages ----

  async #hosted(req: StandInRequest, path: string): Promise<Response> {
    const [, kind, id, action, subId] = path.split("/");
    const page = (title: string, body: string, status = 200) =>
      new Response(
        `<!doctype html><meta charset="utf-8"><title>${html(title)}</title><h1>${html(title)}</h1>${body}`,
        { status, headers: { "content-type": "text/html; charset=utf-8" } },
      );
    if (kind === "checkout") {
      const session = this.sessions.get(id);
      if (!session) return page("No such checkout session", "", 404);
      if (req.method === "POST" && action === "pay") {
        if (session.status !== "open") return page(`This checkout session is ${session.status}`, "", 409);
        await this.completeCheckout(id);
        return new Response(null, { status: 303, headers: { location: session.success_url as string } });
      }
      const amount = ((session.amount_total as number) / 100).toFixed(2);
      return page(
        `Stripe sandbox checkout (${session.mode})`,
        `<p>${html(amount)} ${html(String(session.currency).toUpperCase())}, status ${
          html(String(session.status))
        }</p>` +
          (session.status === "open"
            ? `<form method="post" action="/checkout/${html(id)}/pay"><button>Pay</button></form>`
            : ""),
      );
    }
    const portal = this.portalSessions.get(id);
    if (!portal) return page("No such portal session", "", 404);
    if (req.method === "POST" && action === "cancel" && subId) {
      const sub = this.subscriptions.get(subId);
      if (!sub || sub.customer !== portal.customer) return page("No such subscription", "", 404);
      await this.cancelSubscription(subId);
      return new Response(null, { status: 303, headers: { location: (portal.return_url as string) ?? "/" } });
    }
    const subs = [...this.subscriptions.values()].filter((s) => s.customer === portal.customer);
    const rows = subs.map((s) =>
      `<li>${html(String(s.id))}: ${html(String(s.status))}` +
      (s.status === "canceled"
        ? ""
        : ` <form method="post" action="/portal/${html(id)}/cancel/${
          html(String(s.id))
        }"><button>Cancel</button></form>`) +
      "</li>"
    ).join("");
    return page(
      "Stripe sandbox customer portal",
      `<ul>${rows}</ul><a href="${html(String(portal.return_url ?? "/"))}">Return</a>`,
    );
  }
}
