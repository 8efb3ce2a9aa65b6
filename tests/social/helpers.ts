/**
 * The social tests' cast and steps: a team, calls to the social functions as the frontend makes
 * them, the OAuth round trip through the Late stand-in (connect -> follow oauth_url -> callback),
 * and the stand-ins reset for each module.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import type { LateStandIn } from "../../stack/sandbox/providers/late.ts";
import { call } from "../quotes/helpers.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

export function late(p: Platform): LateStandIn {
  return p.sandbox!.get("late");
}

export interface Answer {
  status: number;
  body: Json;
}

export function post(p: Platform, fn: string, token: string | null, body: unknown): Promise<Answer> {
  return call(p, fn, "", { method: "POST", token, body });
}

export function get(p: Platform, fn: string, query: string, token: string | null): Promise<Answer> {
  return call(p, fn, query, { token });
}

export const REDIRECT = "https://app.example/social/connected";

/** The first half of a connect: {oauth_url, state}. */
export async function startConnect(p: Platform, token: string, ws: string, platform: string) {
  const r = await post(p, "social-oauth", token, {
    action: "connect",
    platform,
    workspace_id: ws,
    redirect_url: REDIRECT,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { oauth_url: string; state: string; expires_at: string };
}

/** Follows the provider's OAuth URL as the browser would; returns what the redirect carries. */
export async function authorize(oauthUrl: string) {
  const res = await fetch(oauthUrl, { redirect: "manual" });
  await res.body?.cancel();
  assert.equal(res.status, 302);
  const to = new URL(res.headers.get("location")!);
  return {
    url: to,
    accountId: to.searchParams.get("accountId")!,
    state: to.searchParams.get("state")!,
    connected: to.searchParams.get("connected"),
  };
}

/** The full round trip; returns the social_accounts row the callback answered. */
export async function connectAccount(
  p: Platform,
  token: string,
  ws: string,
  platform: string,
): Promise<Json> {
  const { oauth_url } = await startConnect(p, token, ws, platform);
  const back = await authorize(oauth_url);
  const r = await post(p, "social-oauth", token, {
    action: "callback",
    late_account_id: back.accountId,
    platform,
    workspace_id: ws,
    state: back.state,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.account;
}

export async function rows(p: Platform, sql: string, params: unknown[] = []): Promise<Json[]> {
  return (await p.db.query<Json>(sql, params)).rows;
}

/** A fingerprint of the social tables, to prove a refused request changed nothing. */
export async function socialSnapshot(p: Platform): Promise<string> {
  const parts: string[] = [];
  for (
    const t of [
      "social_accounts",
      "social_posts",
      "social_post_analytics",
      "social_account_insights",
      "social_webhook_events",
      "social_oauth_states",
    ]
  ) {
    const [r] = await rows(
      p,
      `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from public.${t} t`,
    );
    parts.push(`${t}:${r.h}`);
  }
  return parts.join(",");
}
