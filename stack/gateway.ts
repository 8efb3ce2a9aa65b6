/**
 * The API gateway on :54321, doing what Supabase's local Kong does: route by prefix with the
 * prefix stripped, map `apikey` to `Authorization` (Kong's request-transformer expression in
 * supabase/cli start.go), say who connected (Kong's `X-Forwarded-For: $proxy_add_x_forwarded_for`
 * and `X-Real-IP: $remote_addr`: the TCP peer appended to any X-Forwarded-For the client sent,
 * and X-Real-IP replaced by the peer, so the right-most X-Forwarded-For entry and X-Real-IP are
 * the only addresses a service may trust), and answer CORS for auth, rest and storage. Functions
 * answer their own CORS, as on hosted Supabase, where the gateway adds none for them.
 */
export type Service = (req: Request, path: string) => Response | Promise<Response>;

export interface GatewayKeys {
  anonKey: string;
  serviceRoleKey: string;
  publishableKey: string;
  secretKey: string;
}

/** Kong: keep a real Authorization; else derive it from apikey (opaque keys map to their JWTs). */
export function mapAuthorization(headers: Headers, keys: GatewayKeys): string | null {
  const auth = headers.get("authorization");
  if (auth && !/^Bearer sb_/i.test(auth)) return auth;
  const apikey = headers.get("apikey");
  if (apikey === keys.secretKey) return `Bearer ${keys.serviceRoleKey}`;
  if (apikey === keys.publishableKey) return `Bearer ${keys.anonKey}`;
  if (apikey && !apikey.startsWith("sb_")) return `Bearer ${apikey}`;
  return null;
}

/** The peer's address as Kong's $remote_addr writes it (no port; IPv6 without brackets). */
export function peerAddress(addr: Deno.Addr): string {
  return addr.transport === "tcp" || addr.transport === "udp" ? addr.hostname : addr.transport;
}

/**
 * Kong's forwarding headers on `headers` (in place): the peer appended to the client's
 * X-Forwarded-For (`<client's list>, <peer>`, or the peer alone), X-Real-IP set to the peer,
 * whatever the client wrote in it.
 */
export function setForwardedHeaders(headers: Headers, peer: string): void {
  const sent = headers.get("x-forwarded-for")?.trim();
  headers.set("x-forwarded-for", sent ? `${sent}, ${peer}` : peer);
  headers.set("x-real-ip", peer);
}

const CORS_ALLOW_METHODS = "GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS";
const CORS_EXPOSE =
  "Content-Range,Content-Location,Location,Preference-Applied,X-Total-Count,Link,X-Supabase-Api-Version,x-sb-error-code," +
  "ETag,Content-Disposition,Accept-Ranges,Content-Length";

function withCors(res: Response, origin: string | null): Response {
  const headers = new Headers(res.headers);
  headers.set("Access-Control-Allow-Origin", origin ?? "*");
  if (origin) headers.set("Vary", "Origin");
  headers.set("Access-Control-Expose-Headers", CORS_EXPOSE);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

export interface Route {
  prefix: string;
  service: Service;
  /** The gateway answers CORS for this route (Kong's cors plugin). */
  cors: boolean;
  /**
   * The service gets the original request, headers untouched (a WebSocket upgrade needs the
   * request Deno.serve gave); it answers its own CORS.
   */
  raw: boolean;
}

export class Gateway {
  readonly routes: Route[] = [];
  /**
   * Where one line per request goes (`deno task start` prints them); null (tests) logs nothing.
   * See requestLine() for the format.
   */
  requestLog: ((line: string) => void) | null = null;

  constructor(private readonly keys: GatewayKeys) {}

  mount(prefix: string, service: Service, opts: { cors?: boolean; raw?: boolean } = {}): void {
    this.routes.push({ prefix, service, cors: opts.raw ? false : opts.cors ?? true, raw: opts.raw ?? false });
    // Longest prefix first, so /auth/v1/admin could never be shadowed by a shorter route.
    this.routes.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /**
   * Deno.serve's handler: `info.remoteAddr` is the TCP peer the forwarding headers name. Every
   * request has an id: the client's x-request-id, or a fresh UUID the gateway adds to the request
   * (functions echo and record it) and to the response when the service set none.
   */
  fetch = async (req: Request, info: { remoteAddr: Deno.Addr }): Promise<Response> => {
    const t0 = performance.now();
    const url = new URL(req.url);
    const route = this.routes.find((r) =>
      url.pathname === r.prefix || url.pathname.startsWith(r.prefix + "/")
    );
    const requestId = req.headers.get("x-request-id") || crypto.randomUUID();
    // Read before the service runs: once a WebSocket upgrade has answered, the request's headers
    // are gone ("Request closed"), and a throw here would lose the upgrade's 101.
    const caller = this.requestLog ? callerOf(mapAuthorization(req.headers, this.keys)) : "-";
    let res: Response;
    try {
      res = await this.#serve(req, info, url, route, requestId);
    } catch (err) {
      // Deno.serve would answer a bare 500 and print the stack without saying which request.
      const log = this.requestLog ?? ((line: string) => console.error(line));
      log(`gateway: request ${requestId} failed: ${err instanceof Error ? err.stack ?? err.message : err}`);
      res = new Response(JSON.stringify({ message: `Internal Server Error (request ${requestId})` }), {
        status: 500,
        headers: { "content-type": "application/json" },
      });
    }
    if (res.status !== 101 && !res.headers.has("x-request-id")) {
      const headers = new Headers(res.headers);
      headers.set("x-request-id", requestId);
      res = new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    }
    if (this.requestLog) {
      const line = requestLine({
        surface: surfaceOf(route?.prefix ?? null, url.pathname),
        method: req.method,
        path: url.pathname,
        status: res.status,
        ms: performance.now() - t0,
        requestId,
        caller,
        error: res.status >= 500 ? await errorSummary(res) : null,
      });
      this.requestLog(line);
    }
    return res;
  };

  async #serve(
    req: Request,
    info: { remoteAddr: Deno.Addr },
    url: URL,
    route: Route | undefined,
    requestId: string,
  ): Promise<Response> {
    if (!route) {
      return new Response(JSON.stringify({ message: "no Route matched with those values" }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    }
    if (route.raw) return await route.service(req, url.pathname.slice(route.prefix.length) || "/");
    const origin = req.headers.get("origin");
    if (route.cors && req.method === "OPTIONS") {
      return new Response(null, {
        status: 200,
        headers: {
          "Access-Control-Allow-Origin": origin ?? "*",
          "Access-Control-Allow-Methods": CORS_ALLOW_METHODS,
          "Access-Control-Allow-Headers": req.headers.get("access-control-request-headers") ??
            "authorization,apikey,content-type,x-client-info,prefer,range,accept-profile,content-profile",
          "Access-Control-Max-Age": "3600",
        },
      });
    }
    const headers = new Headers(req.headers);
    headers.set("x-request-id", requestId);
    setForwardedHeaders(headers, peerAddress(info.remoteAddr));
    const auth = mapAuthorization(req.headers, this.keys);
    if (auth) headers.set("authorization", auth);
    else headers.delete("authorization");
    const forwarded = rebuildRequest(req, req.url, headers);
    const path = url.pathname.slice(route.prefix.length) || "/";
    const res = await route.service(forwarded, path);
    return route.cors ? withCors(res, origin) : res;
  }
}

/** `auth`, `rest`, `pg` ... for a route prefix; `functions/<name>` for a function. */
export function surfaceOf(prefix: string | null, pathname: string): string {
  if (prefix === null) return "-";
  if (prefix === "/functions/v1") return `functions/${pathname.split("/")[3] || "-"}`;
  return prefix.replace(/^\//, "").replace(/\/v\d+$/, "");
}

/**
 * Who called, from the Authorization the gateway forwards (apikey mapped): `anon`,
 * `service_role`, `authenticated:<user id>`, `-` without a token. Read for the log only, not
 * verified (the services verify it).
 */
export function callerOf(authorization: string | null): string {
  const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!token) return "-";
  try {
    const payload = token.split(".")[1];
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const role = typeof claims.role === "string" ? claims.role : "?";
    return role === "authenticated" && typeof claims.sub === "string" ? `${role}:${claims.sub}` : role;
  } catch (err) {
    if (err instanceof SyntaxError || err instanceof TypeError || err instanceof DOMException) {
      return "invalid-token";
    }
    throw err;
  }
}

/** The message of a JSON error body (message, msg, error or code), for a 5xx's log line. */
export async function errorSummary(res: Response): Promise<string | null> {
  if (!res.body || !(res.headers.get("content-type") ?? "").includes("json")) return null;
  const text = await res.clone().text();
  try {
    const body = JSON.parse(text);
    const m = body?.message ?? body?.msg ?? body?.error?.message ?? body?.error ?? body?.code;
    return typeof m === "string" ? m.slice(0, 300) : text.slice(0, 300);
  } catch (err) {
    if (err instanceof SyntaxError) return text.slice(0, 300);
    throw err;
  }
}

export interface RequestLine {
  surface: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
  caller: string;
  error: string | null;
}

/**
 * `2026-02-18T10:00:00.000Z functions/ai-gateway POST /functions/v1/ai-gateway 200 12ms
 * req=<id> caller=authenticated:<uuid>`; a 5xx starts with `ERROR` and ends with the error's message.
 */
export function requestLine(r: RequestLine): string {
  const line = `${new Date().toISOString()} ${r.surface} ${r.method} ${r.path} ${r.status} ${
    Math.round(r.ms)
  }ms req=${r.requestId} caller=${r.caller}`;
  return r.status >= 500 ? `ERROR ${line}${r.error ? ` error="${r.error}"` : ""}` : line;
}

/**
 * A copy of `req` with another URL or headers. Built field by field: copying the whole Request
 * would also copy (and so observe) its abort signal, which Deno.serve fires on every response.
 */
export function rebuildRequest(req: Request, url: string | URL, headers: Headers = req.headers): Request {
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && req.body !== null;
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? req.body : undefined,
    redirect: req.redirect,
    // @ts-ignore: required by fetch for streamed bodies; unknown to older lib typings
    duplex: "half",
  });
}

/** Runs a Hono-style app (routes written without the prefix) as a gateway service. */
export function stripPrefix(app: { fetch: (req: Request) => Response | Promise<Response> }): Service {
  return (req, path) => {
    const url = new URL(req.url);
    url.pathname = path;
    return app.fetch(rebuildRequest(req, url));
  };
}
