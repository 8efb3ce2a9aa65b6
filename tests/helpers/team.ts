/**
 * The workspace cast most integration tests need: an owner, an admin, a member and a viewer of
 * one workspace, and an outsider who owns another; optionally with credits.
 */
import type { Platform } from "../../stack/platform.ts";
import { createUser, createWorkspace, type TestUser } from "./platform.ts";
import { sqlAs } from "./sql.ts";

export interface Team {
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  viewer: TestUser;
  /** Owner of another workspace, and of nothing in `ws`. */
  outsider: TestUser;
  ws: string;
  otherWs: string;
}

export interface TeamOptions {
  /** Prefix of the generated emails, to tell test modules apart in the data. */
  prefix: string;
  /** Credits granted to each of the five users (0: none). */
  credits?: number;
  names?: [string, string];
}

export async function createTeam(p: Platform, opts: TeamOptions): Promise<Team> {
  const [owner, admin, member, viewer, outsider] = await Promise.all(
    ["owner", "admin", "member", "viewer", "outsider"].map((r) => createUser(p, `${opts.prefix}-${r}`)),
  );
  const [name, otherName] = opts.names ?? ["Workspace", "Other"];
  const ws = await createWorkspace(p, owner.id, {
    [admin.id]: "admin",
    [member.id]: "member",
    [viewer.id]: "viewer",
  }, name);
  const otherWs = await createWorkspace(p, outsider.id, {}, otherName);
  for (const u of [owner, admin, member, viewer, outsider]) await grant(p, u.id, opts.credits ?? 0);
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
    [
      userId,
    ],
  );
  return Number(r.rows[0].balance);
}
