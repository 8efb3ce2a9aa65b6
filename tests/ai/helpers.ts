/**
 * Shared setup of the AI backend and gateway tests: a workspace with an owner, an admin, a
 * member and a viewer, an outsider with a workspace of their own, credits, and small helpers
 * to call the gateway and the backend as one of them.
 */
import type { Platform } from "../../stack/platform.ts";
import { createUser, createWorkspace, type TestUser } from "../helpers/platform.ts";
import { sqlAs } from "../helpers/sql.ts";

export interface Team {
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  viewer: TestUser;
  outsider: TestUser;
  ws: string;
  otherWs: string;
}

export async function createTeam(p: Platform, credits = 1000): Promise<Team> {
  const [owner, admin, member, viewer, outsider] = await Promise.all(
    ["owner", "admin", "member", "viewer", "outsider"].map((r) => createUser(p, `ai-${r}`)),
  );
  const ws = await createWorkspace(p, owner.id, {
    [admin.id]: "admin",
    [member.id]: "member",
    [viewer.id]: "viewer",
  });
  const otherWs = await createWorkspace(p, outsider.id, {}, "Other");
  for (const u of [owner, admin, member, viewer, outsider]) await grant(p, u.id, credits);
  return { owner, admin, member, viewer, outsider, ws, otherWs };
}

export async function grant(p: Platform, userId: string, credits: number): Promise<void> {
  if (credits > 0) {
    await sqlAs(p, { role: "service_role" }, `select public.grant_credits($1, $2)`, [userId, credits]);
  }
}

export async function balance(p: Platform, userId: string): Promise<number> {
  const r = await p.db.query<{ balance: string }>(
    `select balance from public.user_credits where user_id = $1`,
    [userId],
  );
  return Number(r.rows[0].balance);
}

export interface GatewayAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  headers: Headers;
}

/** POST /functions/v1/ai-gateway {action, payload} with a token (user JWT or service key). */
export async function gateway(
  p: Platform,
  token: string | null,
  action: string,
  payload: Record<string, unknown> = {},
): Promise<GatewayAnswer> {
  const res = await fetch(`${p.url}/functions/v1/ai-gateway`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "content-type": "application/json",
    },
    body: JSON.stringify({ action, payload }),
  });
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text);
  return { status: res.status, body, headers: res.headers };
}

/** The gateway's data, asserting success. */
export async function ok(
  p: Platform,
  token: string,
  action: string,
  payload: Record<string, unknown> = {},
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const r = await gateway(p, token, action, payload);
  if (r.status < 200 || r.status > 299 || r.body?.success !== true) {
    throw new Error(`${action} answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  return r.body.data;
}

export async function pricingCategory(p: Platform, team: Team): Promise<string> {
  const data = await ok(p, team.owner.accessToken, "kb_create_category", {
    workspace_id: team.ws,
    name: "Pricing",
    slug: "pricing",
    trigger_keyword: "price",
  });
  return data.category.id;
}
