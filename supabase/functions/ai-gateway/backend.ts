/**
 * One call to the AI backend with the caller's own credentials. Failures to get an answer are
 * answers too (502 unreachable, 504 timeout), so billing treats them like any other non-2xx.
 */
import type { Caller } from "@shared/auth/context.ts";

export interface BackendCall {
  method: string;
  path: string;
  body: BodyInit | null;
  contentType: string;
}

export interface BackendAnswer {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
}

export const BACKEND_TIMEOUT_MS = 120_000;

export async function callBackend(base: string, who: Caller, call: BackendCall): Promise<BackendAnswer> {
  let res: Response;
  try {
    res = await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: {
        authorization: `Bearer ${who.token}`,
        ...(call.body !== null ? { "content-type": call.contentType } : {}),
      },
      body: call.body,
      signal: AbortSignal.timeout(BACKEND_TIMEOUT_MS),
    });
  } catch (err) {
    const timeout = err instanceof DOMException && err.name === "TimeoutError";
    const error = timeout
      ? `AI backend did not answer within ${BACKEND_TIMEOUT_MS / 1000} s`
      : `AI backend unreachable: ${(err as Error).message}`;
    console.error(`ai-gateway: ${call.method} ${call.path}: ${error}`);
    const json = { error, code: timeout ? "backend_timeout" : "backend_unreachable" };
    return { status: timeout ? 504 : 502, contentType: "application/json", text: JSON.stringify(json), json };
  }
  const contentType = res.headers.get("content-type") ?? "";
  const text = await res.text();
  let json: unknown = null;
  if (contentType.includes("json") && text) {
    try {
      json = JSON.parse(text);
    } catch (err) {
      // The backend broke its contract: that is a bad gateway, whatever status it sent.
      const error = `AI backend answered malformed JSON (${(err as Error).message})`;
      console.error(`ai-gateway: ${call.method} ${call.path}: ${error}`);
      const body = { error, code: "backend_malformed" };
      return { status: 502, contentType: "application/json", text: JSON.stringify(body), json: body };
    }
  }
  return { status: res.status, contentType, text, json };
}
