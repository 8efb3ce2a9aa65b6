/**
 * Row-level security of the email tables through /rest/v1 as a client would try it: members
 * read their workspace only; nobody writes logs, analytics, domains or webhook deliveries
 * directly; templates are for owners and admins.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { send, team } from "./helpers.ts";

platformTest("members read their workspace's email rows only; outsiders read nothing", async (p) => {
  const t = await team(p);
  const other = await team(p);
  await send(p, t.member, t);
  await send(p, other.member, other);
  for (const table of ["email_logs", "email_domains", "email_analytics"]) {
    const mine = await t.viewer.client.from(table).select("workspace_id");
    assert.equal(mine.error, null, table);
    assert.ok(mine.data!.length >= 1, table);
    assert.ok(mine.data!.every((r) => r.workspace_id === t.workspaceId), table);
  }
  const hook = await t.owner.client.from("email_webhook_events").select("*");
  assert.deepEqual(hook.data ?? [], []);
});

platformTest("clients cannot forge logs, counters, domains or verification", async (p) => {
  const t = await team(p, false);
  const logs = await t.owner.client.from("email_logs").insert({
    workspace_id: t.workspaceId,
    from_email: t.from,
    to_emails: ["a@example.org"],
    subject: "x",
    email_type: "transactional",
  });
  assert.notEqual(logs.error, null);
  const counters = await t.owner.client.from("email_analytics").insert({
    workspace_id: t.workspaceId,
    date: "2026-11-01",
    sent: 1000,
  });
  assert.notEqual(counters.error, null);
  const verify = await t.owner.client.from("email_domains").update({ verification_status: "verified" })
    .eq("workspace_id", t.workspaceId).select();
  assert.ok(verify.error !== null || verify.data!.length === 0);
  const domain = await t.owner.client.from("email_domains").insert({
    workspace_id: t.workspaceId,
    domain: "forged.example.com",
    verification_status: "verified",
  });
  assert.notEqual(domain.error, null);
  const rpc = await t.owner.client.rpc("email_apply_webhook", {
    p_svix_id: "msg_x",
    p_event: "delivered",
    p_provider_message_id: "x",
    p_at: new Date().toISOString(),
  });
  assert.notEqual(rpc.error, null);
  const r = await p.db.query(`select verification_status from public.email_domains where workspace_id = $1`, [
    t.workspaceId,
  ]);
  assert.deepEqual(r.rows, [{ verification_status: "pending" }]);
});

platformTest("templates: owners and admins write them, members and outsiders cannot", async (p) => {
  const t = await team(p);
  const other = await team(p);
  const row = {
    workspace_id: t.workspaceId,
    name: "Welcome",
    slug: "welcome",
    subject: "Welcome",
    text_content: "Hi {{name}}",
    variables: ["name"],
  };
  assert.notEqual((await t.member.client.from("email_templates").insert(row)).error, null);
  assert.notEqual((await other.owner.client.from("email_templates").insert(row)).error, null);
  assert.equal((await t.admin.client.from("email_templates").insert(row)).error, null);
  const seen = await t.viewer.client.from("email_templates").select("slug");
  assert.deepEqual(seen.data, [{ slug: "welcome" }]);
  assert.deepEqual((await other.owner.client.from("email_templates").select("slug")).data, []);
  const moved = await t.admin.client.from("email_templates").update({ workspace_id: other.workspaceId }).eq(
    "slug",
    "welcome",
  );
  assert.notEqual(moved.error, null);
});
