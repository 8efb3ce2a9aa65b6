/**
 * CORS for edge functions and the AI backend (which clients may call directly): every response
 * carries Access-Control-Allow-Origin `*` and exposes the headers a client reads (request id,
 * billing, conversation id), and an OPTIONS preflight answers 204 with the headers supabase-js
 * sends (the spec's rule 4), before any authentication.
 */
import type { MiddlewareHandler } from "hono";

export const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers":
    "authorization, x-client-info, apikey, content-type, x-region, x-webhook-signature, prefer, x-request-id",
  "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "Access-Control-Max-Age": "86400",
};

const EXPOSED_HEADERS =
  "x-request-id, x-credits-charged, x-credits-refunded, x-credits-balance, x-conversation-id";

export function cors(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: CORS_HEADERS });
    }
    await next();
    // Set on the final response, including ones produced by onError/notFound.
    c.res.headers.set("Access-Control-Allow-Origin", "*");
    c.res.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  };
}
