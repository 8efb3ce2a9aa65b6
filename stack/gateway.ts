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

  constructor(private readonly keys: GatewayKeys) {}

  mount(prefix: string, service: Service, opts: { cors?: boolean; raw?: boolean } = {}): void {
    this.routes.push({ prefix, service, cors: opts.raw ? false : opts.cors ?? true, raw: opts.raw ?? false });
    // Longest prefix first, so /auth/v1/admin could never be shadowed by a shorter route.
    this.routes.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** Deno.serve's handler: `info.remoteAddr` is the TCP peer the forwarding headers name. */
  fetch = async (req: Request, info: { remoteAddr: Deno.Addr }): Promise<Response> => {
    const url = new URL(req.url);
    const route = this.routes.find((r) =>
      url.pathname === r.prefix || url.pathname.startsWith(r.prefix + "/")
    );
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
    setForwardedHeaders(headers, peerAddress(info.remoteAddr));
    const auth = mapAuthorization(req.headers, this.keys);
    if (auth) headers.set("authorization", auth);
    else headers.delete("authorization");
    const forwarded = rebuildRequest(req, req.url, headers);
    const path = url.pathname.slice(route.prefix.length) || "/";
    const res = await route.service(forwarded, path);
    return route.cors ? withCors(res, origin) : res;
  };
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
