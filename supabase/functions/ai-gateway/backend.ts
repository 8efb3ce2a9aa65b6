/**
 * ai-gateway's side of the AI backend: one call with the caller's own credentials and the
 * gateway's request id, and the gateway's answer made from the backend's.
 *
 * Billing is the backend's (services/ai-backend/billing.ts, the one billing point): the gateway
 * forwards the caller's JWT and x-request-id (so the usage log's reference_id is the id the
 * client sees) and passes the backend's billing result through: the x-credits-* headers, the
 * 402 (the backend refused before doing any work) and the `billing` member of an error body.
 *
 * Failures to get an answer are answers too (502 unreachable, 504 timeout, 502 malformed JSON).
 *
 * One error shape for the whole surface: {success: false, error, code, details?, billing?},
 * whether the failure is the backend's (passed through by respond) or the gateway's own
 * (400 unknown action or bad payload, 401, 403, 404, 503: rendered by the core's errorHandler
 * and notFoundHandler, then given `success: false` by gatewayErrors/gatewayNotFound).
 */
import type { Context } from "hono";
import type { Caller } from "@shared/auth/context.ts";
import { env } from "@shared/env.ts";
import { DomainError } from "@shared/errors.ts";
import type { ErrorCode } from "@shared/error_codes.ts";
import { errorHandler, notFoundHandler } from "@shared/http/errors.ts";
import { unwrapObject } from "@shared/gateway/answer.ts";

import type { BackendCall } from "@shared/gateway/call.ts";
export type { BackendCall };

export interface BackendAnswer {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
  /** The backend's x-credits-* headers (its billing result). */
  billing: Record<string, string>;
}

export const BACKEND_TIMEOUT_MS = 120_000;

const BILLING_HEADERS = ["x-credits-charged", "x-credits-refunded", "x-credits-balance"];

export function backendUrl(): string {
  const url = env("AI_BACKEND_URL");
  if (!url) {
    throw DomainError.unavailable(
      "The AI backend is not configured (AI_BACKEND_URL)",
      "backend_not_configured",
    );
  }
  return url.replace(/\/+$/, "");
}

function failed(call: BackendCall, status: number, code: ErrorCode, error: string): BackendAnswer {
  console.error(`ai-gateway: ${call.method} ${call.path}: ${error}`);
  const json = { error, code };
  return { status, contentType: "application/json", text: JSON.stringify(json), json, billing: {} };
}

export async function callBackend(
  who: Caller,
  requestId: string,
  call: BackendCall,
): Promise<BackendAnswer> {
  const base = backendUrl();
  let res: Response;
  try {
    res = await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: {
        authorization: `Bearer ${who.token}`,
        "x-request-id": requestId,
        ...(call.body !== null ? { "content-type": call.contentType } : {}),
      },
      body: call.body,
      signal: AbortSignal.timeout(BACKEND_TIMEOUT_MS),
    });
  } catch (err) {
    const timeout = err instanceof DOMException && err.name === "TimeoutError";
    return timeout
      ? failed(
        call,
        504,
        "backend_timeout",
        `AI backend did not answer within ${BACKEND_TIMEOUT_MS / 1000} s`,
      )
      : failed(call, 502, "backend_unreachable", `AI backend unreachable: ${(err as Error).message}`);
  }
  const billing: Record<string, string> = {};
  for (const h of BILLING_HEADERS) {
    const v = res.headers.get(h);
    if (v !== null) billing[h] = v;
  }
  const contentType = res.headers.get("content-type") ?? "";
  const text = await res.text();
  let json: unknown = null;
  if (contentType.includes("json") && text) {
    try {
      json = JSON.parse(text);
    } catch (err) {
      // The backend broke its contract: that is a bad gateway, whatever status it sent.
      const answer = failed(
        call,
        502,
        "backend_malformed",
        `AI backend answered malformed JSON (${(err as Error).message})`,
      );
      return { ...answer, billing };
    }
  }
  return { status: res.status, contentType, text, json, billing };
}

/**
 * The gateway's answer: {success: true, data} on 2xx (HTML pages as they are), the backend's
 * status, message, code and billing otherwise; the backend's billing headers either way. With
 * `unwrap` (the action map's), data is the object the backend answered under that member
 * (@shared/gateway/answer.ts); a 2xx without it broke the contract (502 backend_malformed).
 */
export function respond(r: BackendAnswer, unwrap?: string): Response {
  const headers = { ...r.billing, "content-type": "application/json" };
  if (r.status >= 200 && r.status < 300) {
    if (r.contentType.startsWith("text/html")) {
      return new Response(r.text, {
        status: r.status,
        headers: { ...headers, "content-type": r.contentType },
      });
    }
    let data = r.json ?? r.text;
    if (unwrap !== undefined) {
      const object = unwrapObject(r.json, unwrap);
      if (!object) {
        const error = `AI backend answered ${r.status} without the ${unwrap} object`;
        console.error(`ai-gateway: ${error}`);
        return new Response(JSON.stringify({ success: false, error, code: "backend_malformed" }), {
          status: 502,
          headers,
        });
      }
      data = object;
    }
    return new Response(JSON.stringify({ success: true, data }), { status: r.status, headers });
  }
  const err = (r.json && typeof r.json === "object" ? r.json : {}) as {
    error?: unknown;
    code?: unknown;
    details?: unknown;
    billing?: unknown;
  };
  const body: Record<string, unknown> = {
    success: false,
    error: typeof err.error === "string"
      ? err.error
      : r.text.slice(0, 500) || `AI backend answered ${r.status}`,
    code: typeof err.code === "string" ? err.code : "backend_error" satisfies ErrorCode,
  };
  if (err.details !== undefined) body.details = err.details;
  if (err.billing !== undefined) body.billing = err.billing;
  return new Response(JSON.stringify(body), { status: r.status, headers });
}

/**
 * A core error response ({error, code, details?}: http/errors.ts) in the gateway's shape: the
 * same status, headers (CORS, x-request-id) and members, with `success: false` first.
 */
async function asGatewayFailure(res: Response): Promise<Response> {
  const body = await res.json() as Record<string, unknown>;
  return new Response(JSON.stringify({ success: false, ...body }), {
    status: res.status,
    headers: res.headers,
  });
}

/** The gateway's onError: whatever was thrown, rendered by the core, answered as a failure. */
export const gatewayErrors = (err: Error, c: Context): Promise<Response> =>
  asGatewayFailure(errorHandler(err, c));

/** The gateway's 404 for a path it does not serve, in the same shape. */
export const gatewayNotFound = (c: Context): Promise<Response> => asGatewayFailure(notFoundHandler(c));
