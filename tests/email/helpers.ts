/**
 * Shared setup for the email tests: calling email-api as a user, a workspace with an owner,
 * an admin, a member and a viewer, and a sending domain added and verified through the API.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import type { ResendStandIn } from "../../stack/sandbox/providers/resend.ts";
import { createUser, createWorkspace, type TestUser } from "../helpers/platform.ts";
import { type Call, call } from "../quotes/helpers.ts";

export { call };

export function emailApi(p: Platform, token: string | null, body: unknown): Promise<Call> {
  return call(p, "email-api", "", { method: "POST", token, body });
}

export function resendOf(p: Platform): ResendStandIn {
  return p.sandbox!.get("resend");
}

export interface Team {
  workspaceId: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  viewer: TestUser;
  /** A verified sending domain of the workspace (unique per team). */
  domain: string;
  from: string;
}

let n = 0;

export function uniqueDomain(prefix = "mail"): string {
  return `${prefix}-${Date.now().toString(36)}-${(n++).toString(36)}.example.com`;
}

export async function team(p: Platform, verified = true): Promise<Team> {
  const [owner, admin, member, viewer] = await Promise.all(
    ["owner", "admin", "member", "viewer"].map((r) => createUser(p, `email-${r}`)),
  );
  const workspaceId = await createWorkspace(p, owner.id, {
    [admin.id]: "admin",
    [member.id]: "member",
    [viewer.id]: "viewer",
  });
  const domain = uniqueDomain();
  const added = await emailApi(p, owner.accessToken, { action: "add-domain", workspaceId, domain });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  if (verified) {
    const marked = await emailApi(p, owner.accessToken, {
      action: "mark-domain-verified",
      workspaceId,
      domain,
    });
    assert.equal(marked.status, 200, JSON.stringify(marked.body));
  }
  return { workspaceId, owner, admin, member, viewer, domain, from: `hello@${domain}` };
}

/** Sends a plain email as `u` in the team's workspace, from its domain; returns {messageId, logId}. */
export async function send(
  p: Platform,
  u: TestUser,
  team: Pick<Team, "workspaceId" | "from">,
  extra: Record<string, unknown> = {},
): Promise<{ messageId: string; logId: string }> {
  const r = await emailApi(p, u.accessToken, {
    action: "send",
    workspaceId: team.workspaceId,
    to: "customer@example.org",
    from: team.from,
    subject: "Your quote",
    html: "<p>Hello</p>",
    ...extra,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as unknown as { messageId: string; logId: string };
}

export async function logRow(p: Platform, id: string): Promise<Record<string, unknown>> {
  const r = await p.db.query<Record<string, unknown>>(`select * from public.email_logs where id = $1`, [id]);
  assert.equal(r.rows.length, 1);
  return r.rows[0];
}
