/**
 * StandIn: the base of every provider stand-in. The framework part of a request is here:
 * capture it, apply the scripted latency and failures, then let the provider answer in its own
 * API's shape. Providers implement route() (their endpoints), errorResponse() (their error
 * JSON, used for injected failures) and, when they have webhooks, signCallback() (their real
 * signature scheme), which sendCallback() uses to call our receivers.
 */
import { type Captured, CaptureLog, decodeBody, redactHeaders } from "./capture.ts";

/** A request as a provider's route() sees it: the body is already read (and captured). */
export interface StandInRequest {
  method: string;
  /** Path below the stand-in's base URL, e.g. /v1/messages. */
  path: string;
  url: URL;
  headers: Headers;
  text: string;
  /** The body as JSON, or undefined when it is not valid JSON. */
  json(): unknown;
  /** The request's capture, for providers that note more on it (e.g. a model stand-in's rule). */
  captured: Captured;
}

export interface FaultOptions {
  /** How many requests in a row get it (default 1). */
  times?: number;
  message?: string;
  headers?: Record<string, string>;
}

interface Fault {
  status: number;
  message: string;
  headers: Record<string, string>;
}

export interface CallbackOptions {
  /** Default: application/json for objects, form encoding for URLSearchParams, else text/plain. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Sign with the provider's scheme (default true); false sends it unsigned, e.g. to test refusal. */
  sign?: boolean;
}

export interface CallbackResult {
  status: number;
  headers: Headers;
  body: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export abstract class StandIn {
  /** Route prefix on the sandbox server and the name tests look it up by. */
  abstract readonly name: string;
  readonly captures = new CaptureLog();
  /** Where the stand-in is served; set by the sandbox when it mounts it. */
  baseUrl = "";
  #faults: Fault[] = [];
  #latencyMs = 0;

  /** The provider's endpoints. */
  protected abstract route(req: StandInRequest): Response | Promise<Response>;

  /** The provider's error response for `status` (used for injected failures). */
  abstract errorResponse(status: number, message: string, headers?: Record<string, string>): Response;

  /** Called when an injected failure (failNext) answers a request, e.g. to note it in a log of its own. */
  protected onFault(_captured: Captured, _status: number, _message: string): void {}

  /** Adds the provider's signature headers to an outgoing callback. */
  protected signCallback(_url: string, _body: string, _headers: Headers): void | Promise<void> {
    throw new Error(`the ${this.name} stand-in cannot sign callbacks yet`);
  }

  /** The next request(s) get this status, in the provider's error shape, instead of an answer. */
  failNext(status: number, opts: FaultOptions = {}): this {
    const fault = {
      status,
      message: opts.message ?? `Injected failure (HTTP ${status}) from the ${this.name} sandbox`,
      headers: opts.headers ?? {},
    };
    for (let i = 0; i < (opts.times ?? 1); i++) this.#faults.push(fault);
    return this;
  }

  /** Every request waits this long before it is answered (0 turns it off). */
  setLatency(ms: number): this {
    this.#latencyMs = ms;
    return this;
  }

  get pendingFaults(): number {
    return this.#faults.length;
  }

  /** Forgets captures and everything scripted. Providers extend it for their own scripts. */
  reset(): void {
    this.captures.clear();
    this.#faults = [];
    this.#latencyMs = 0;
  }

  /** Entry point from the sandbox server. */
  async serve(req: Request, path: string): Promise<Response> {
    const started = performance.now();
    const url = new URL(req.url);
    const text = req.body ? await req.text() : "";
    const entry = this.captures.add({
      provider: this.name,
      direction: "in",
      time: new Date().toISOString(),
      method: req.method,
      path,
      query: Object.fromEntries(url.searchParams),
      headers: redactHeaders(req.headers),
      body: decodeBody(text, req.headers.get("content-type")),
    });
    if (this.#latencyMs > 0) await sleep(this.#latencyMs);
    const fault = this.#faults.shift();
    let res: Response;
    if (fault) {
      res = this.errorResponse(fault.status, fault.message, fault.headers);
      entry.fault = true;
      this.onFault(entry, fault.status, fault.message);
    } else {
      let parsed: { value: unknown } | null = null;
      res = await this.route({
        method: req.method,
        path,
        url,
        headers: req.headers,
        text,
        captured: entry,
        json() {
          if (!parsed) {
            try {
              parsed = { value: JSON.parse(text) };
            } catch (_) {
              // Providers answer malformed JSON with their own 400; undefined tells them to.
              parsed = { value: undefined };
            }
          }
          return parsed.value;
        },
      });
    }
    entry.status = res.status;
    entry.durationMs = Math.round(performance.now() - started);
    return res;
  }

  /** Sends one of the provider's callbacks (webhooks) to `url`, signed, and captures it. */
  async sendCallback(
    url: string,
    payload: string | URLSearchParams | Record<string, unknown> | unknown[],
    opts: CallbackOptions = {},
  ): Promise<CallbackResult> {
    let body: string;
    let contentType: string;
    if (typeof payload === "string") {
      body = payload;
      contentType = opts.contentType ?? "text/plain";
    } else if (payload instanceof URLSearchParams) {
      body = payload.toString();
      contentType = opts.contentType ?? "application/x-www-form-urlencoded";
    } else {
      body = JSON.stringify(payload);
      contentType = opts.contentType ?? "application/json";
    }
    const headers = new Headers(opts.headers);
    headers.set("content-type", contentType);
    if (opts.sign !== false) await this.signCallback(url, body, headers);
    const target = new URL(url);
    const entry: Captured = this.captures.add({
      provider: this.name,
      direction: "out",
      time: new Date().toISOString(),
      method: "POST",
      path: target.pathname,
      query: Object.fromEntries(target.searchParams),
      url,
      headers: redactHeaders(headers),
      body: decodeBody(body, contentType),
    });
    const started = performance.now();
    const res = await fetch(url, { method: "POST", headers, body });
    const text = await res.text();
    entry.status = res.status;
    entry.durationMs = Math.round(performance.now() - started);
    return { status: res.status, headers: res.headers, body: text };
  }
}
