/**
 * Who may move a quote request to which status (the role table, decided once in SQL:
 * public.may_set_quote_request_status), through quotes-api and through /rest/v1 alike, and reads
 * that agree with writes: whoever may PATCH a request may GET it; nobody else sees it.
 *
 *   new status | requester (own request) | owner/admin of the workspace (not the requester)
 *   pending    | yes                     | yes
 *   updated    | yes                     | no
 *   approved   | no                      | yes
 *   rejected   | no                      | yes
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, seedQuote } from "./helpers.ts";

const FN = "quotes-api";

async function setup(p: Platform) {
  const owner = await createUser(p, "qrr-owner");
  const admin = await createUser(p, "qrr-admin");
  const member = await createUser(p, "qrr-member");
  const colleague = await createUser(p, "qrr-colleague");
  const viewer = await createUser(p, "qrr-viewer");
  const outsider = await createUser(p, "qrr-out");
  const ws = await createWorkspace(p, owner.id, {
    [admin.id]: "admin",
    [member.id]: "member",
    [colleague.id]: "member",
    [viewer.id]: "viewer",
  }, "Roles A");
  await createWorkspace(p, outsider.id, {}, "Roles B");
  const quote = await seedQuote(p, ws, owner.id);
  return { owner, admin, member, colleague, viewer, outsider, ws, quote };
}

async function newRequest(p: Platform, u: TestUser, quoteId: string, ws: string): Promise<string> {
  const r = await call(p, FN, "/quote-requests", {
    method: "POST",
    token: u.accessToken,
    body: { quote_id: quoteId, workspace_id: ws, notes: "Please quote 40 m2" },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return (r.body.data as { id: string }).id;
}

const patch = (p: Platform, u: TestUser, id: string, status: string) =>
  call(p, FN, `/quote-requests/${id}`, { method: "PATCH", token: u.accessToken, body: { status } });

async function statusOf(p: Platform, id: string): Promise<string> {
  return (await p.db.query<{ status: string }>(`select status from public.quote_requests where id = $1`, [
    id,
  ]))
    .rows[0].status;
}

platformTest("quotes-api: the requester never decides their own request", async (p) => {
  const s = await setup(p);
  const id = await newRequest(p, s.member, s.quote.id, s.ws);
  for (const status of ["approved", "rejected"]) {
    const r = await patch(p, s.member, id, status);
    assert.equal(r.status, 403, status);
    assert.equal(r.body.code, "forbidden");
    assert.match(String(r.body.error), /requester cannot set their own quote request/);
  }
  assert.equal(await statusOf(p, id), "pending");
  for (const status of ["updated", "pending"]) {
    const r = await patch(p, s.member, id, status);
    assert.equal(r.status, 200, status);
    assert.equal((r.body.data as { status: string }).status, status);
  }

  // Not even when the requester is an admin (or the owner) of the workspace.
  for (const handler of [s.admin, s.owner]) {
    const own = await newRequest(p, handler, s.quote.id, s.ws);
    assert.equal((await patch(p, handler, own, "approved")).status, 403, "no self-approval");
    assert.equal((await patch(p, handler, own, "rejected")).status, 403, "no self-rejection");
    assert.equal(await statusOf(p, own), "pending");
  }
});

platformTest("quotes-api: owners and admins decide, and read what they decide on", async (p) => {
  const s = await setup(p);
  const id = await newRequest(p, s.member, s.quote.id, s.ws);
  for (const handler of [s.admin, s.owner]) {
    const read = await call(p, FN, `/quote-requests/${id}`, { token: handler.accessToken });
    assert.equal(read.status, 200, "a handler reads the request it may move");
    assert.equal((read.body.data as { user_id: string }).user_id, s.member.id);
    for (const status of ["approved", "rejected", "pending"]) {
      const r = await patch(p, handler, id, status);
      assert.equal(r.status, 200, `${status}: ${JSON.stringify(r.body)}`);
      assert.equal((r.body.data as { status: string }).status, status);
    }
    const updated = await patch(p, handler, id, "updated");
    assert.equal(updated.status, 403, "only the requester marks a request updated");
    assert.match(String(updated.body.error), /only the requester sets a quote request to updated/);
  }
  // The handlers' lists stay their own requests (spec: the current user's requests).
  const list = await call(p, FN, "/quote-requests", { token: s.admin.accessToken });
  assert.deepEqual(list.body.data, []);
  assert.equal((await patch(p, s.admin, id, "approved")).status, 200);
  assert.equal(await statusOf(p, id), "approved");
});

platformTest("quotes-api: anyone else can neither read nor move a request", async (p) => {
  const s = await setup(p);
  const id = await newRequest(p, s.member, s.quote.id, s.ws);
  for (const u of [s.colleague, s.viewer, s.outsider]) {
    assert.equal((await call(p, FN, `/quote-requests/${id}`, { token: u.accessToken })).status, 404);
    for (const status of ["pending", "updated", "approved", "rejected"]) {
      assert.equal((await patch(p, u, id, status)).status, 404, status);
    }
  }
  assert.equal(await statusOf(p, id), "pending");
});

platformTest("/rest/v1 (supabase-js) obeys the same table, and notes stay the requester's", async (p) => {
  const s = await setup(p);
  const id = await newRequest(p, s.member, s.quote.id, s.ws);
  const requests = (u: TestUser) => u.client.from("quote_requests");

  const selfApprove = await requests(s.member).update({ status: "approved" }).eq("id", id).select();
  assert.equal(selfApprove.status, 403);
  assert.equal(selfApprove.error?.code, "42501");
  const resubmit = await requests(s.member).update({ status: "updated", notes: "Now 60 m2" }).eq("id", id)
    .select("status, notes").single();
  assert.deepEqual(resubmit.data, { status: "updated", notes: "Now 60 m2" });

  // The admin reads the request through RLS and decides on it.
  const seen = await requests(s.admin).select("id, status").eq("id", id);
  assert.deepEqual(seen.data, [{ id, status: "updated" }]);
  const approve = await requests(s.admin).update({ status: "approved" }).eq("id", id).select("status")
    .single();
  assert.deepEqual(approve.data, { status: "approved" });
  const rewrite = await requests(s.admin).update({ notes: "Approved as asked" }).eq("id", id).select();
  assert.equal(rewrite.status, 403, "the requester's notes are theirs");
  assert.equal((await requests(s.admin).update({ status: "updated" }).eq("id", id).select()).status, 403);

  // A colleague sees nothing and changes nothing (RLS: zero rows).
  assert.deepEqual((await requests(s.colleague).select("id").eq("id", id)).data, []);
  const hijack = await requests(s.colleague).update({ status: "rejected" }).eq("id", id).select();
  assert.deepEqual(hijack.data, []);

  // The requester may still edit the notes of an approved request, without moving it.
  const note = await requests(s.member).update({ notes: "Delivery in May" }).eq("id", id).select(
    "status, notes",
  )
    .single();
  assert.deepEqual(note.data, { status: "approved", notes: "Delivery in May" });
  const row = await p.db.query(`select status, notes from public.quote_requests where id = $1`, [id]);
  assert.deepEqual(row.rows, [{ status: "approved", notes: "Delivery in May" }]);
});
