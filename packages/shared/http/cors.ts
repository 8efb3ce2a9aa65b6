/**
 * CORS for edge functions: every response carries Access-Control-Allow-Origin `*`, and an
 * OPTIONS preflight answers 204 with the headers supabase-js sends (the spec's rule 4).
 */
import type { MiddlewareHandler } from "hono";

export const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers":
    "authorization, x-client-info, apikey, content-type, x-region, x-webhook-signature, prefer",
  "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "Access-Control-Max-Age": "86400",
};

export function cors(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: CORS_HEADERS });
    }
    await next();
    // Set on the final response, including ones produced by onError/notFound.
    c.res.headers.set("Access-Control-Allow-Origin", "*");
  };
}
