/** Raw HTTP access to /rest/v1 for the conformance tests, next to supabase-js. */
import type { Platform } from "../../stack/platform.ts";
import { getPlatform } from "../helpers/platform.ts";
import { fixture } from "../../fixtures/rest.ts";

export interface RestResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  json: unknown;
}

export interface RestInit {
  method?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON with Content-Type application/json. */
  body?: unknown;
  /** apikey header; the anon key unless given. */
  apikey?: string;
  /** A bearer token for Authorization (a user's access token). */
  token?: string;
}

export async function rest(p: Platform, path: string, init: RestInit = {}): Promise<RestResult> {
  const headers: Record<string, string> = { apikey: init.apikey ?? p.config.anonKey, ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${p.url}/rest/v1${path}`, { method: init.method ?? "GET", headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The module's platform with the REST fixture in place. */
export async function restPlatform(): Promise<Platform> {
  const p = await getPlatform();
  await fixture(p);
  return p;
}

/** Deno.test over the fixture platform (the shared server outlives single tests: no sanitizers). */
export function restTest(name: string, fn: (p: Platform) => Promise<void>): void {
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn: async () => fn(await restPlatform()) });
}
