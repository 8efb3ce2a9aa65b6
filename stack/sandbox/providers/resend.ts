/**
 * Stand-in for Resend (providers.md §2): POST /emails (the SDK's snake_case body, Idempotency-Key
 * replays answer the same id; the same key with another body is a 409 invalid_idempotent_request,
 * as in Resend), GET /emails and /emails/{id}, the domains API (POST/GET/DELETE
 * /domains, GET /domains/{id}, POST /domains/{id}/verify), Resend's error JSON
 * {statusCode, name, message}. Every accepted email is kept, so the sandbox page can show it
 * like Mailpit does (resend_viewer.ts: list, open one, rendered HTML and text).
 *
 * Webhooks: `emit(emailId, "email.delivered")` sends Resend's event envelope {type, created_at,
 * data} to `webhookUrl`, signed the Svix way (svix-id, svix-timestamp, svix-signature
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the base64 decoding of
 * `webhookSecret` after whsec_). DeliverOptions forge, age, tamper or replay a delivery for
 * tests. Nothing is sent on its own: tests and the page decide when each event happens.
 */
import { StandIn, type StandInRequest } from "../standin.ts";
import type { CallbackResult } from "../standin.ts";
import { renderMailViewer, type SandboxEmail } from "./resend_viewer.ts";

export type { SandboxEmail };

export type Obj = Record<string, unknown>;

export const RESEND_EVENT_TYPES = [
  "email.sent",
  "email.delivered",
  "email.delivery_delayed",
  "email.bounced",
  "email.complained",
  "email.opened",
  "email.clicked",
  "email.failed",
] as const;
export type ResendEventType = (typeof RESEND_EVENT_TYPES)[number];

export interface DeliverOptions {
  /** Signing time in unix seconds (default now): an old one tests the tolerance window. */
  timestamp?: number;
  /** Sign with this secret instead of webhookSecret (a forged signature). */
  secret?: string;
  /** Change the body after signing it (a tampered event). */
  tamper?: (body: string) => string;
  /** Reuse this svix-id (a replayed delivery); default a fresh msg_ id. */
  svixId?: string;
  /** false: no svix-* headers at all. */
  sign?: boolean;
}

const ERROR_NAMES: Record<number, string> = {
  400: "validation_error",
  401: "missing_api_key",
  403: "invalid_api_key",
  404: "not_found",
  405: "method_not_allowed",
  409: "invalid_idempotent_request",
  422: "validation_error",
  429: "rate_limit_exceeded",
  500: "application_error",
};

const encoder = new TextEncoder();
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const nowSeconds = () => Math.floor(Date.now() / 1000);
// "Name <a@b.c>" or a bare address.
const FROM = /^(?:[^<>]*<\s*[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+\s*>|[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)$/;
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** The Svix signature of one delivery. */
export async function svixSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (ch) => ch.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${b64(new Uint8Array(mac))}`;
}

function list(v: unknown): string[] | null {
  if (v === undefined || v === null) return [];
  if (typeof v === "string") return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  return null;
}

export class ResendStandIn extends StandIn {
  readonly name = "resend";
  /** Where events go: our email-webhooks function (set by the registry when code uses the sandbox). */
  webhookUrl = "";
  /**
   * The endpoint's signing secret, given to code as RESEND_WEBHOOK_SECRET: made up here, replaced by
   * the sandbox with a configured or kept one.
   */
  webhookSecret = `whsec_${b64(crypto.getRandomValues(new Uint8Array(24)))}`;
  readonly emails = new Map<string, SandboxEmail>();
  readonly domains = new Map<string, Obj>();
  /** Idempotency-Key -> the email it created and the body it was sent with. */
  readonly #idempotency = new Map<string, { id: string; body: string }>();

  override reset(): void {
    super.reset();
    this.emails.clear();
    this.domains.clear();
    this.#idempotency.clear();
  }

  /** Accepted emails, newest first. */
  inbox(): SandboxEmail[] {
    return [...this.emails.values()].reverse();
  }

  /** The Mailpit-like viewer for the sandbox page (`mail` selects one message). */
  panel(query: URLSearchParams): string {
    return renderMailViewer(this.inbox(), query.get("mail"), this.webhookUrl !== "");
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    const name = ERROR_NAMES[status] ?? (status >= 500 ? "application_error" : "validation_error");
    return Response.json({ statusCode: status, name, message }, { status, headers });
  }

  /** Resend's event envelope for an email (bounced/clicked/failed get their detail objects). */
  event(emailId: string, type: ResendEventType, extra: Obj = {}): Obj {
    const email = this.emails.get(emailId);
    if (!email) throw new Error(`the Resend sandbox has no email ${emailId}`);
    const data: Obj = {
      email_id: email.id,
      created_at: email.created_at,
      from: email.from,
      to: email.to,
      subject: email.subject,
      ...(email.tags.length ? { tags: Object.fromEntries(email.tags.map((t) => [t.name, t.value])) } : {}),
    };
    if (type === "email.bounced") {
      data.bounce = {
        message: "The recipient's mail server permanently rejected the email.",
        type: "Permanent",
        subType: "General",
        diagnosticCode: ["smtp; 550 5.1.1 user unknown"],
      };
    }
    if (type === "email.clicked") {
      data.click = {
        ipAddress: "203.0.113.7",
        link: "https://example.com/",
        timestamp: new Date().toISOString(),
        userAgent: "Mozilla/5.0",
      };
    }
    if (type === "email.failed") data.failed = { reason: "The email could not be sent." };
    const merged = { ...data, ...extra };
    return { type, created_at: new Date().toISOString(), data: merged };
  }

  /** Sends an event envelope to webhookUrl, Svix-signed (or forged, stale, tampered, replayed, unsigned). */
  async deliver(event: Obj, opts: DeliverOptions = {}): Promise<CallbackResult> {
    if (!this.webhookUrl) throw new Error("the Resend sandbox has no webhook endpoint (webhookUrl)");
    const body = JSON.stringify(event);
    const id = opts.svixId ?? `msg_${crypto.randomUUID().replaceAll("-", "").slice(0, 27)}`;
    const timestamp = opts.timestamp ?? nowSeconds();
    const headers: Record<string, string> = { "user-agent": "Svix-Webhooks/1.0" };
    if (opts.sign !== false) {
      headers["svix-id"] = id;
      headers["svix-timestamp"] = String(timestamp);
      headers["svix-signature"] = await svixSignature(opts.secret ?? this.webhookSecret, id, timestamp, body);
    }
    const result = await this.sendCallback(this.webhookUrl, opts.tamper ? opts.tamper(body) : body, {
      contentType: "application/json",
      headers,
      sign: false,
    });
    const email = this.emails.get(String((event.data as Obj)?.email_id));
    if (email) {
      email.events.push({ type: String(event.type), at: String(event.created_at), status: result.status });
      email.last_event = String(event.type).replace(/^email\./, "");
    }
    return result;
  }

  /** event() + deliver(): what Resend does when the email moves on. */
  emit(
    emailId: string,
    type: ResendEventType,
    opts: DeliverOptions & { extra?: Obj } = {},
  ): Promise<CallbackResult> {
    return this.deliver(this.event(emailId, type, opts.extra), opts);
  }

  protected override async route(req: StandInRequest): Promise<Response> {
    const parts = req.path.replace(/\/+$/, "").split("/").filter(Boolean);
    // The viewer's "send event" form (not part of Resend's API).
    if (parts[0] === "_sandbox" && parts[1] === "emails" && parts[3] === "events" && req.method === "POST") {
      const type = new URLSearchParams(req.text).get("type") as ResendEventType;
      if (!this.emails.has(parts[2]) || !RESEND_EVENT_TYPES.includes(type)) {
        return this.errorResponse(400, "unknown email or event type");
      }
      await this.emit(parts[2], type);
      return new Response(null, { status: 303, headers: { location: `/?provider=resend&mail=${parts[2]}` } });
    }
    if (!/^Bearer\s+\S+/i.test(req.headers.get("authorization") ?? "")) {
      return this.errorResponse(401, "Missing API key in the authorization header");
    }
    const [resource, id, sub] = parts;
    if (resource === "emails") {
      if (req.method === "POST" && !id) return this.#send(req);
      if (req.method === "GET" && !id) {
        return Response.json({
          object: "list",
          has_more: false,
          data: this.inbox().map(({ events: _, ...e }) => e),
        });
      }
      if (req.method === "GET" && id && !sub) {
        const email = this.emails.get(id);
        if (!email) return this.errorResponse(404, "Email not found");
        const { events: _, ...shown } = email;
        return Response.json(shown);
      }
    }
    if (resource === "domains") return this.#domains(req, id, sub);
    return this.errorResponse(404, `Not found: ${req.method} ${req.path}`);
  }

  #send(req: StandInRequest): Response {
    const b = req.json() as Obj | undefined;
    if (!b || typeof b !== "object") return this.errorResponse(400, "Invalid JSON body");
    if (typeof b.from !== "string" || !b.from) return this.errorResponse(422, "Missing `from` field.");
    if (!FROM.test(b.from)) {
      return this.errorResponse(
        422,
        "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
      );
    }
    const to = list(b.to);
    if (!to || to.length === 0) return this.errorResponse(422, "Missing `to` field.");
    if (to.length > 50) return this.errorResponse(422, "Too many recipients: `to` allows at most 50.");
    const cc = list(b.cc), bcc = list(b.bcc), replyTo = list(b.reply_to);
    if (!cc || !bcc || !replyTo) {
      return this.errorResponse(422, "`cc`, `bcc` and `reply_to` must be strings or arrays of strings.");
    }
    for (const a of [...to, ...cc, ...bcc, ...replyTo]) {
      if (!ADDRESS.test(a.replace(/^.*<\s*([^>]+)\s*>$/, "$1"))) {
        return this.errorResponse(422, `Invalid email address: ${a}`);
      }
    }
    if (typeof b.subject !== "string" || !b.subject) {
      return this.errorResponse(422, "Missing `subject` field.");
    }
    if (typeof b.html !== "string" && typeof b.text !== "string" && !b.template) {
      return this.errorResponse(422, "Missing `html` or `text` field.");
    }
    const tags = b.tags ?? [];
    if (
      !Array.isArray(tags) ||
      !tags.every((t) => /^[A-Za-z0-9_-]{1,256}$/.test(t?.name) && /^[A-Za-z0-9_-]{1,256}$/.test(t?.value))
    ) {
      return this.errorResponse(
        422,
        "Tags should only contain ASCII letters, numbers, underscores, or dashes.",
      );
    }
    const key = req.headers.get("idempotency-key");
    const replayed = key ? this.#idempotency.get(key) : undefined;
    if (replayed && replayed.body !== req.text) {
      return this.errorResponse(
        409,
        "Same idempotency key used with a different request payload. Change your idempotency key or payload.",
      );
    }
    if (replayed) return Response.json({ id: replayed.id });
    const email: SandboxEmail = {
      object: "email",
      id: crypto.randomUUID(),
      from: b.from,
      to,
      cc,
      bcc,
      reply_to: replyTo,
      subject: b.subject,
      html: typeof b.html === "string" ? b.html : null,
      text: typeof b.text === "string" ? b.text : null,
      tags: tags as { name: string; value: string }[],
      headers: (b.headers && typeof b.headers === "object" ? b.headers : {}) as Record<string, string>,
      created_at: new Date().toISOString(),
      last_event: "sent",
      events: [],
    };
    this.emails.set(email.id, email);
    if (key) this.#idempotency.set(key, { id: email.id, body: req.text });
    return Response.json({ id: email.id });
  }

  #domains(req: StandInRequest, id: string | undefined, sub: string | undefined): Response {
    if (req.method === "POST" && !id) {
      const b = req.json() as Obj | undefined;
      const name = typeof b?.name === "string" ? b.name.toLowerCase() : "";
      if (!/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/.test(name)) {
        return this.errorResponse(422, "Invalid `name` field.");
      }
      if ([...this.domains.values()].some((d) => d.name === name)) {
        return this.errorResponse(403, `The ${name} domain has been registered already.`);
      }
      const domain: Obj = {
        id: crypto.randomUUID(),
        name,
        created_at: new Date().toISOString(),
        status: "not_started",
        region: typeof b?.region === "string" ? b.region : "us-east-1",
        records: [
          {
            record: "SPF",
            name: "send",
            type: "MX",
            ttl: "Auto",
            status: "not_started",
            value: "feedback-smtp.us-east-1.amazonses.com",
            priority: 10,
          },
          {
            record: "SPF",
            name: "send",
            type: "TXT",
            ttl: "Auto",
            status: "not_started",
            value: "v=spf1 include:amazonses.com ~all",
          },
          {
            record: "DKIM",
            name: "resend._domainkey",
            type: "TXT",
            ttl: "Auto",
            status: "not_started",
            value: `p=${b64(crypto.getRandomValues(new Uint8Array(48)))}`,
          },
        ],
      };
      this.domains.set(domain.id as string, domain);
      return Response.json(domain, { status: 201 });
    }
    if (req.method === "GET" && !id) {
      return Response.json({
        object: "list",
        has_more: false,
        data: [...this.domains.values()].map(({ records: _, ...d }) => d),
      });
    }
    const domain = id ? this.domains.get(id) : undefined;
    if (!domain) return this.errorResponse(404, "Domain not found");
    if (req.method === "GET" && !sub) return Response.json({ object: "domain", ...domain });
    if (req.method === "POST" && sub === "verify") {
      // Verification runs asynchronously at Resend; the sandbox's DNS always resolves.
      domain.status = "verified";
      for (const r of domain.records as Obj[]) r.status = "verified";
      return Response.json({ object: "domain", id });
    }
    if (req.method === "DELETE" && !sub) {
      this.domains.delete(id!);
      return Response.json({ object: "domain", id, deleted: true });
    }
    return this.errorResponse(405, `Method ${req.method} not allowed`);
  }
}
