/**
 * Stand-in for Twilio Programmable Messaging (providers.md §1) under /2010-04-01/Accounts/{sid}:
 * POST Messages.json (form fields To, From or MessagingServiceSid, Body, MediaUrl repeated,
 * ContentSid + ContentVariables, StatusCallback; 201 with the Message resource in snake_case),
 * GET Messages.json (a page), GET Messages/{sid}.json, GET Balance.json and GET
 * IncomingPhoneNumbers.json (TWILIO_SANDBOX_NUMBERS until a test resets the stand-in); HTTP Basic auth with the account SID and auth token; Twilio's
 * error JSON {code, message, more_info, status}.
 *
 * Callbacks, signed as Twilio signs them (X-Twilio-Signature: base64 HMAC-SHA1 keyed with the
 * auth token over the URL plus the sorted POST fields, computed here with the official SDK):
 * every message with a StatusCallback gets `sent` then `delivered` (with Price/PriceUnit), or
 * `sent` then `undelivered` with an ErrorCode for numbers a test marked with failNumber().
 * With autoCallbacks on (the default, for `deno task start`) they go out shortly after the
 * send; tests turn it off and call flushCallbacks() / sendStatus() so nothing happens on its own.
 * injectIncoming() posts an incoming message (e.g. STOP) to messaging-webhook?type=incoming.
 */
import { type CallbackOptions, type CallbackResult, StandIn, type StandInRequest } from "../standin.ts";

/**
 * The X-Twilio-Signature of a callback, by the SDK's own function. The SDK (120 ms to import)
 * loads with the first signed callback, not when the platform boots.
 */
async function twilioSignature(
  token: string,
  url: string,
  params: Record<string, string | string[]>,
): Promise<string> {
  const { default: twilio } = await import("twilio");
  return twilio.getExpectedTwilioSignature(token, url, params);
}

/** The auth token code is given while the stand-in serves (and the key its callbacks are signed with). */
export const TWILIO_SANDBOX_TOKEN = "sandbox-twilio-auth-token-placeholder";
/** A well-formed account SID (AC + 32 hex digits) that is obviously not a real account. */
export const TWILIO_SANDBOX_ACCOUNT = `AC${"0".repeat(24)}5a4db0c5`;

export interface SandboxMessage {
  sid: string;
  to: string;
  from: string | null;
  messaging_service_sid: string | null;
  body: string;
  media_urls: string[];
  content_sid: string | null;
  content_variables: string | null;
  status_callback: string | null;
  status: string;
  num_segments: string;
  price: string | null;
  price_unit: string;
  error_code: number | null;
  error_message: string | null;
  date_created: string;
  date_updated: string;
  date_sent: string | null;
  /** Callback statuses still to send, in order. */
  pending: string[];
}

export interface IncomingNumberScript {
  phoneNumber: string;
  friendlyName?: string;
  sms?: boolean;
}

/**
 * The numbers a fresh stand-in owns, so sync-channels finds them (Twilio's magic test number
 * +15005550006 and a second line). reset() empties the list: tests add their own.
 */
export const TWILIO_SANDBOX_NUMBERS: readonly IncomingNumberScript[] = [
  { phoneNumber: "+15005550006", friendlyName: "Sandbox SMS line" },
  { phoneNumber: "+15005550007", friendlyName: "Sandbox second line" },
];

/**
 * A form as the SDK's signature functions take it: a repeated field (several MediaUrl) as an
 * array of its values, so every value is signed (Object.fromEntries would keep only the last).
 */
export function signedParams(form: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name);
    out[name] = values.length === 1 ? values[0] : values;
  }
  return out;
}

export interface SignOptions {
  /** Sign with this token instead of the auth token (a forged signature). */
  token?: string;
  /** Change the form body after signing it (a tampered callback). */
  tamper?: (params: URLSearchParams) => void;
  /** false: send no signature at all. */
  sign?: boolean;
}

const API = "/2010-04-01/Accounts/";
const E164 = /^\+[1-9]\d{1,14}$/;
// GSM 03.38 basic set and extension table: a body of only these is 7-bit (160 chars, 153 per part).
const GSM = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà^{}\\[~]|€",
);

/** Twilio's segment count: GSM-7 160/153, otherwise UCS-2 70/67 characters. */
export function segmentCount(body: string): number {
  const chars = [...body];
  if (chars.length === 0) return 1;
  const gsm = chars.every((ch) => GSM.has(ch));
  const [single, part] = gsm ? [160, 153] : [70, 67];
  return chars.length <= single ? 1 : Math.ceil(chars.length / part);
}

/** RFC 2822 as Twilio writes dates: "Thu, 30 Jul 2015 20:12:31 +0000". */
function rfc2822(d = new Date()): string {
  return d.toUTCString().replace("GMT", "+0000");
}

function hexId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return prefix + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const address = (a: string) => a.replace(/^whatsapp:/, "");

export class TwilioStandIn extends StandIn {
  readonly name = "twilio";
  readonly accountSid = TWILIO_SANDBOX_ACCOUNT;
  /**
   * Checks API calls and signs callbacks; given to code as TWILIO_AUTH_TOKEN. The sandbox replaces
   * it with one configured in supabase/functions/.env.
   */
  authToken = TWILIO_SANDBOX_TOKEN;
  /** Where injectIncoming posts (messaging-webhook?type=incoming); set when the platform wires it. */
  incomingUrl = "";
  autoCallbacks = true;
  #messages: SandboxMessage[] = [];
  #failing = new Map<string, { code: number; message: string }>();
  #rejecting = new Map<string, { status: number; code: number; message: string }>();
  /** The account's numbers (IncomingPhoneNumbers): TWILIO_SANDBOX_NUMBERS until a reset(). */
  #numbers: IncomingNumberScript[] = TWILIO_SANDBOX_NUMBERS.map((n) => ({ ...n }));
  #balance = { balance: "20.00000", currency: "USD" };

  override reset(): void {
    super.reset();
    this.#messages = [];
    this.#failing.clear();
    this.#rejecting.clear();
    this.#numbers = [];
    this.#balance = { balance: "20.00000", currency: "USD" };
    this.autoCallbacks = true;
  }

  /** Messages sent to this number are accepted, then end `undelivered` with this error. */
  failNumber(to: string, code = 30003, message = "Unreachable destination handset"): this {
    this.#failing.set(address(to), { code, message });
    return this;
  }

  /** Sends to this number are refused at once (default 21610: the recipient replied STOP). */
  rejectNumber(
    to: string,
    code = 21610,
    message = "Attempt to send to unsubscribed recipient",
    status = 400,
  ): this {
    this.#rejecting.set(address(to), { status, code, message });
    return this;
  }

  setBalance(balance: string, currency = "USD"): this {
    this.#balance = { balance, currency };
    return this;
  }

  addIncomingNumber(n: IncomingNumberScript): this {
    this.#numbers.push(n);
    return this;
  }

  /** Every accepted message, oldest first. */
  messages(): SandboxMessage[] {
    return [...this.#messages];
  }

  message(sid: string): SandboxMessage | undefined {
    return this.#messages.find((m) => m.sid === sid);
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    const code = status === 401
      ? 20003
      : status === 404
      ? 20404
      : status === 429
      ? 20429
      : status >= 500
      ? 20500
      : 21000;
    return this.#error(status, code, message, headers);
  }

  #error(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
    return Response.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, {
      status,
      headers,
    });
  }

  protected override async signCallback(url: string, body: string, headers: Headers): Promise<void> {
    const params = signedParams(new URLSearchParams(body));
    headers.set("X-Twilio-Signature", await twilioSignature(this.authToken, url, params));
  }

  protected route(req: StandInRequest): Response | Promise<Response> {
    if (!req.path.startsWith(API)) {
      return this.errorResponse(404, `The requested resource ${req.path} was not found`);
    }
    const [account, ...rest] = req.path.slice(API.length).split("/");
    const auth = req.headers.get("authorization") ?? "";
    const [user, pass] = auth.startsWith("Basic ") ? atob(auth.slice(6)).split(":") : [];
    if (user !== this.accountSid || pass !== this.authToken) return this.#error(401, 20003, "Authenticate");
    if (account !== this.accountSid) {
      return this.#error(404, 20404, `The requested resource ${req.path} was not found`);
    }
    const resource = rest.join("/");
    if (resource === "Messages.json" && req.method === "POST") return this.#create(req);
    if (resource === "Messages.json" && req.method === "GET") return this.#list(req);
    const one = /^Messages\/(\w+)\.json$/.exec(resource);
    if (one && req.method === "GET") {
      const m = this.message(one[1]);
      return m
        ? Response.json(this.#resource(m))
        : this.#error(404, 20404, `The requested resource ${req.path} was not found`);
    }
    if (resource === "Balance.json" && req.method === "GET") {
      return Response.json({ account_sid: this.accountSid, ...this.#balance });
    }
    if (resource === "IncomingPhoneNumbers.json" && req.method === "GET") return this.#numbersPage(req);
    return this.errorResponse(404, `The requested resource ${req.path} was not found`);
  }

  #create(req: StandInRequest): Response {
    const form = new URLSearchParams(req.text);
    const to = form.get("To");
    const from = form.get("From");
    const service = form.get("MessagingServiceSid");
    const body = form.get("Body") ?? "";
    const media = form.getAll("MediaUrl");
    const contentSid = form.get("ContentSid");
    if (!to) return this.#error(400, 21604, "A 'To' phone number is required.");
    if (!E164.test(address(to))) return this.#error(400, 21211, `Invalid 'To' Phone Number: ${to}`);
    if (!from && !service) return this.#error(400, 21603, "A 'From' phone number is required.");
    if (from && !E164.test(address(from))) return this.#error(400, 21212, `Invalid From Number: ${from}`);
    if (!body && media.length === 0 && !contentSid) {
      return this.#error(400, 21602, "Message body is required.");
    }
    if ([...body].length > 1600) {
      return this.#error(400, 21617, "The concatenated message body exceeds the 1600 character limit.");
    }
    if (contentSid && !/^HX[0-9a-fA-F]{32}$/.test(contentSid)) {
      return this.#error(400, 21655, "The ContentSid is Invalid.");
    }
    const contentVariables = form.get("ContentVariables");
    if (contentVariables !== null) {
      try {
        JSON.parse(contentVariables);
      } catch (_) {
        // Twilio refuses ContentVariables that are not a JSON object string.
        return this.#error(400, 21656, "The ContentVariables Parameter is invalid.");
      }
    }
    const rejected = this.#rejecting.get(address(to));
    if (rejected) return this.#error(rejected.status, rejected.code, rejected.message);
    const now = rfc2822();
    const statusCallback = form.get("StatusCallback");
    const m: SandboxMessage = {
      sid: hexId(media.length ? "MM" : "SM"),
      to,
      from: from ?? null,
      messaging_service_sid: service,
      body,
      media_urls: media,
      content_sid: contentSid,
      content_variables: contentVariables,
      status_callback: statusCallback,
      status: service ? "accepted" : "queued",
      num_segments: String(segmentCount(body)),
      price: null,
      price_unit: "USD",
      error_code: null,
      error_message: null,
      date_created: now,
      date_updated: now,
      date_sent: null,
      pending: statusCallback ? ["sent", this.#failing.has(address(to)) ? "undelivered" : "delivered"] : [],
    };
    this.#messages.push(m);
    if (this.autoCallbacks && m.pending.length) {
      // Like Twilio, callbacks come after the API answer; a short delay lets the sender log the sid first.
      setTimeout(
        () => this.#advance(m).catch((err) => console.error("[twilio sandbox] callback failed:", err)),
        200,
      );
    }
    return Response.json(this.#resource(m), { status: 201 });
  }

  #resource(m: SandboxMessage) {
    const { pending: _, media_urls, content_sid: _c, content_variables: _v, status_callback: _s, ...rest } =
      m;
    return {
      ...rest,
      account_sid: this.accountSid,
      api_version: "2010-04-01",
      direction: "outbound-api",
      num_media: String(media_urls.length),
      subresource_uris: {
        media: `${API}${this.accountSid}/Messages/${m.sid}/Media.json`,
        feedback: `${API}${this.accountSid}/Messages/${m.sid}/Feedback.json`,
      },
      uri: `${API}${this.accountSid}/Messages/${m.sid}.json`,
    };
  }

  #page<T>(req: StandInRequest, key: string, items: T[], resource: string): Response {
    const size = Math.min(Math.max(Number(req.url.searchParams.get("PageSize") ?? 50) || 50, 1), 1000);
    const page = Math.max(Number(req.url.searchParams.get("Page") ?? 0) || 0, 0);
    const slice = items.slice(page * size, (page + 1) * size);
    const base = `${API}${this.accountSid}/${resource}`;
    const uri = (p: number) => `${base}?PageSize=${size}&Page=${p}`;
    return Response.json({
      [key]: slice,
      end: page * size + Math.max(slice.length - 1, 0),
      first_page_uri: uri(0),
      next_page_uri: (page + 1) * size < items.length ? uri(page + 1) : null,
      page,
      page_size: size,
      previous_page_uri: page > 0 ? uri(page - 1) : null,
      start: page * size,
      uri: uri(page),
    });
  }

  #list(req: StandInRequest): Response {
    const to = req.url.searchParams.get("To");
    const from = req.url.searchParams.get("From");
    const found = [...this.#messages].reverse().filter((m) =>
      (!to || m.to === to) && (!from || m.from === from)
    );
    return this.#page(req, "messages", found.map((m) => this.#resource(m)), "Messages.json");
  }

  #numbersPage(req: StandInRequest): Response {
    const now = rfc2822();
    const items = this.#numbers.map((n, i) => ({
      sid: `PN${(i + 1).toString(16).padStart(32, "0")}`,
      account_sid: this.accountSid,
      phone_number: n.phoneNumber,
      friendly_name: n.friendlyName ?? n.phoneNumber,
      capabilities: { voice: true, sms: n.sms !== false, mms: n.sms !== false, fax: false },
      sms_url: "",
      sms_method: "POST",
      status_callback: "",
      status: "in-use",
      origin: "twilio",
      date_created: now,
      date_updated: now,
    }));
    return this.#page(req, "incoming_phone_numbers", items, "IncomingPhoneNumbers.json");
  }

  /** The callback form Twilio posts for `m` at `status` (failures carry ErrorCode, final ones a price). */
  #callbackForm(m: SandboxMessage, status: string): URLSearchParams {
    const form = new URLSearchParams({
      MessageSid: m.sid,
      SmsSid: m.sid,
      MessageStatus: status,
      SmsStatus: status,
      AccountSid: this.accountSid,
      From: m.from ?? "",
      To: m.to,
      ApiVersion: "2010-04-01",
    });
    if (m.messaging_service_sid) form.set("MessagingServiceSid", m.messaging_service_sid);
    if (m.to.startsWith("whatsapp:")) form.set("ChannelPrefix", "whatsapp");
    const failure = this.#failing.get(address(m.to));
    if ((status === "undelivered" || status === "failed") && failure) {
      form.set("ErrorCode", String(failure.code));
      form.set("ErrorMessage", failure.message);
    }
    if (status === "delivered" || status === "undelivered") {
      form.set("Price", (-0.0079 * Number(m.num_segments)).toFixed(5));
      form.set("PriceUnit", m.price_unit);
    }
    return form;
  }

  /** Sends one status callback for message `sid` to its StatusCallback (also moves the stored message). */
  async sendStatus(
    sid: string,
    status: string,
    opts: SignOptions & { extra?: Record<string, string> } = {},
  ): Promise<CallbackResult> {
    const m = this.message(sid);
    if (!m) throw new Error(`the Twilio sandbox has no message ${sid}`);
    if (!m.status_callback) throw new Error(`message ${sid} was sent without a StatusCallback`);
    const form = this.#callbackForm(m, status);
    for (const [k, v] of Object.entries(opts.extra ?? {})) form.set(k, v);
    m.status = status;
    m.date_updated = rfc2822();
    if (status === "sent") m.date_sent = m.date_updated;
    if (form.get("Price")) m.price = form.get("Price");
    if (form.get("ErrorCode")) {
      m.error_code = Number(form.get("ErrorCode"));
      m.error_message = form.get("ErrorMessage");
    }
    return await this.#post(m.status_callback, form, opts);
  }

  /** Sends the pending callbacks of every message (or of one), in order. */
  async flushCallbacks(sid?: string): Promise<CallbackResult[]> {
    const results: CallbackResult[] = [];
    for (const m of this.#messages.filter((m) => !sid || m.sid === sid)) {
      results.push(...await this.#advance(m));
    }
    return results;
  }

  async #advance(m: SandboxMessage): Promise<CallbackResult[]> {
    const results: CallbackResult[] = [];
    for (let status = m.pending.shift(); status; status = m.pending.shift()) {
      results.push(await this.sendStatus(m.sid, status));
    }
    return results;
  }

  /**
   * Posts an incoming message (From a handset To one of our numbers) to messaging-webhook?type=incoming.
   * `extra` adds fields; an array value repeats its field (every value is signed, as Twilio does).
   */
  async injectIncoming(
    msg: { from: string; to: string; body: string; extra?: Record<string, string | string[]> },
    opts: SignOptions & { url?: string } = {},
  ): Promise<CallbackResult> {
    const url = opts.url ?? this.incomingUrl;
    if (!url) throw new Error("the Twilio sandbox has no incoming-message webhook (incomingUrl)");
    const sid = hexId("SM");
    const form = new URLSearchParams({
      MessageSid: sid,
      SmsSid: sid,
      SmsMessageSid: sid,
      AccountSid: this.accountSid,
      From: msg.from,
      To: msg.to,
      Body: msg.body,
      NumMedia: "0",
      NumSegments: String(segmentCount(msg.body)),
      SmsStatus: "received",
      ApiVersion: "2010-04-01",
    });
    for (const [name, value] of Object.entries(msg.extra ?? {})) {
      form.delete(name);
      for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
    }
    return await this.#post(url, form, opts);
  }

  async #post(url: string, form: URLSearchParams, opts: SignOptions): Promise<CallbackResult> {
    if (opts.sign === false && !opts.token && !opts.tamper) {
      return await this.sendCallback(url, form, { sign: false });
    }
    const signature = await twilioSignature(opts.token ?? this.authToken, url, signedParams(form));
    opts.tamper?.(form);
    const co: CallbackOptions = { sign: false, headers: { "X-Twilio-Signature": signature } };
    return await this.sendCallback(url, form, co);
  }
}
