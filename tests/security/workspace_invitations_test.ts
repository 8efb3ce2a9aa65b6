/**
 * Workspace membership needs the invitee's consent: owners and admins invite, only the invitee
 * accepts, nobody is inserted into workspace_members by someone else, nobody becomes owner, and
 * inviting tells nothing about whether a user exists.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest, uniqueEmail } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";

async function members(p: Platform, ws: string): Promise<{ user_id: string; role: string }[]> {
  const r = await p.db.query<{ user_id: string; role: string }>(
    `select user_id, role from public.workspace_members where workspace_id = $1 order by user_id`,
    [ws],
  );
  return r.rows;
}

platformTest(
  "an owner cannot add anyone to the workspace directly, and a made-up id answers the same",
  async (p) => {
    const [owner, admin, target] = await Promise.all(
      ["own", "adm", "target"].map((x) => createUser(p, `inv-${x}`)),
    );
    const ws = await createWorkspace(p, owner.id, { [admin.id]: "admin" });
    const before = await members(p, ws);
    const answers: string[] = [];
    for (
      const [who, row] of [
        [owner, { workspace_id: ws, user_id: target.id, role: "viewer" }],
        [owner, { workspace_id: ws, user_id: target.id, role: "owner" }],
        [owner, { workspace_id: ws, user_id: crypto.randomUUID(), role: "viewer" }],
        [admin, { workspace_id: ws, user_id: target.id, role: "member" }],
      ] as const
    ) {
      const { error } = await who.client.from("workspace_members").insert(row);
      answers.push(`${error?.code} ${error?.message}`);
    }
    // All refused by RLS alike: no 23503 that would tell a real id from a made-up one.
    assert.ok(answers.every((a) => a.startsWith("42501 ")), answers.join("\n"));
    assert.equal(new Set(answers.map((a) => a.replace(/"[^"]*"/g, ""))).size, 1, answers.join("\n"));
    // Nobody is promoted to owner by a role change either.
    const promote = await owner.client.from("workspace_members").update({ role: "owner" })
      .eq("workspace_id", ws).eq("user_id", admin.id).select();
    assert.ok(promote.error?.code === "42501" || promote.data?.length === 0, JSON.stringify(promote));
    assert.deepEqual(await members(p, ws), before);
  },
);

platformTest(
  "inviting answers the same for a known and an unknown e-mail or user id (no existence oracle)",
  async (p) => {
    const [owner, known] = await Promise.all([
      createUser(p, "inv-oracle-own"),
      createUser(p, "inv-oracle-known"),
    ]);
    const ws = await createWorkspace(p, owner.id);
    const shape = async (invitee: string) => {
      const { data, error, status } = await owner.client.rpc("invite_to_workspace", {
        p_workspace_id: ws,
        p_invitee: invitee,
        p_role: "viewer",
      });
      assert.equal(error, null, invitee);
      return { status, keys: Object.keys(data).sort(), status_field: data.status, role: data.role };
    };
    const knownEmail = await shape(known.email);
    const unknownEmail = await shape(uniqueEmail("nobody"));
    const knownId = await shape(known.id);
    const unknownId = await shape(crypto.randomUUID());
    assert.deepEqual(unknownEmail, knownEmail);
    assert.deepEqual(unknownId, knownId);
    assert.deepEqual(knownId, knownEmail);
    // Inviting is not joining: nobody became a member.
    assert.deepEqual((await members(p, ws)).map((m) => m.user_id), [owner.id]);
  },
);

platformTest(
  "only the invitee accepts or declines; roles are bounded; an existing role never changes",
  async (p) => {
    const [owner, admin, invitee, byId, stranger, outsider] = await Promise.all(
      ["own", "adm", "invitee", "byid", "stranger", "outsider"].map((x) => createUser(p, `inv-flow-${x}`)),
    );
    const ws = await createWorkspace(p, owner.id, { [admin.id]: "admin" });
    const invite = (who: typeof owner, invitee: string, role: string) =>
      who.client.rpc("invite_to_workspace", { p_workspace_id: ws, p_invitee: invitee, p_role: role });

    // Bounded: no owner invitations, admins invite members and viewers only, outsiders see no workspace.
    assert.equal((await invite(owner, invitee.email, "owner")).error?.code, "22023");
    assert.equal((await invite(admin, invitee.email, "admin")).error?.code, "42501");
    const foreign = await invite(outsider, invitee.email, "viewer");
    assert.equal(foreign.status, 404);
    assert.equal((await invite(owner, "not an address", "viewer")).error?.code, "22023");

    const byEmail = await invite(admin, invitee.email.toUpperCase(), "member");
    assert.equal(byEmail.error, null);
    const invitationId = byEmail.data.id as string;
    // The invitee sees it; a stranger sees nothing and cannot accept or decline it.
    const seen = await invitee.client.from("workspace_invitations").select("id, role, status");
    assert.deepEqual(seen.data, [{ id: invitationId, role: "member", status: "pending" }]);
    assert.deepEqual((await stranger.client.from("workspace_invitations").select("id")).data, []);
    for (const fn of ["accept_workspace_invitation", "decline_workspace_invitation"]) {
      const r = await stranger.client.rpc(fn, { p_invitation_id: invitationId });
      assert.equal(r.status, 404, fn);
    }
    assert.equal(
      (await owner.client.rpc("accept_workspace_invitation", { p_invitation_id: invitationId })).status,
      404,
    );
    assert.deepEqual((await members(p, ws)).map((m) => m.user_id).sort(), [owner.id, admin.id].sort());

    const accepted = await invitee.client.rpc("accept_workspace_invitation", {
      p_invitation_id: invitationId,
    });
    assert.equal(accepted.error, null);
    assert.deepEqual(accepted.data, { workspace_id: ws, role: "member" });
    // Answered invitations cannot be replayed.
    assert.equal(
      (await invitee.client.rpc("accept_workspace_invitation", { p_invitation_id: invitationId })).status,
      404,
    );

    // By user id, declined: no membership.
    const second = await invite(owner, byId.id, "viewer");
    assert.equal(
      (await byId.client.rpc("decline_workspace_invitation", { p_invitation_id: second.data.id })).error,
      null,
    );
    assert.equal(
      (await byId.client.rpc("accept_workspace_invitation", { p_invitation_id: second.data.id })).status,
      404,
    );

    // Re-inviting an admin as viewer and accepting does not demote them.
    const again = await invite(owner, admin.id, "viewer");
    const kept = await admin.client.rpc("accept_workspace_invitation", { p_invitation_id: again.data.id });
    assert.deepEqual(kept.data, { workspace_id: ws, role: "admin" });

    const roles = Object.fromEntries((await members(p, ws)).map((m) => [m.user_id, m.role]));
    assert.deepEqual(roles, { [owner.id]: "owner", [admin.id]: "admin", [invitee.id]: "member" });
  },
);
