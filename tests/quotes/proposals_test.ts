/** quotes-api: proposals, made by workspace admins through /rest/v1 and answered by the requester. */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, MISSING_ID, seedQuote } from "./helpers.ts";

const FN = "quotes-api";

async function setup(p: Platform) {
  const owner = await createUser(p, "pr-owner");
  const requester = await createUser(p, "pr-req");
  const other = await createUser(p, "pr-other");
  const ws = await createWorkspace(
    p,
    owner.id,
    { [requester.id]: "member", [other.id]: "member" },
    "Proposals",
  );
  const quote = await seedQuote(p, ws, owner.id);
  const req = await call(p, FN, "/quote-requests", {
    method: "POST",
    token: requester.accessToken,
    body: { quote_id: quote.id, workspace_id: ws },
  });
  const requestId = (req.body.data as { id: string }).id;
  // The workspace owner answers with a proposal, directly through /rest/v1 as the frontend would.
  const made = await owner.client.from("proposals")
    .insert({
      quote_request_id: requestId,
      workspace_id: ws,
      message: "10% off",
      amount: 16.2,
      currency: "EUR",
    })
    .select().single();
  assert.equal(made.error, null);
  return { owner, requester, other, ws, quote, requestId, proposalId: made.data.id as string };
}

platformTest("proposals through /rest/v1: only workspace owners and admins make them", async (p) => {
  const s = await setup(p);
  const byMember = await s.requester.client.from("proposals")
    .insert({ quote_request_id: s.requestId, workspace_id: s.ws, amount: 1 }).select();
  assert.ok(byMember.error, "a member cannot make proposals");
  assert.equal(byMember.status, 403);
  // The requester may only answer: the amount is not theirs to change (column privilege).
  const sneaky = await s.requester.client.from("proposals").update({ amount: 0.01 }).eq("id", s.proposalId);
  assert.ok(sneaky.error);
  assert.equal(sneaky.status, 403);
});

platformTest("GET /proposals: the caller's requests' proposals, with quote_requests data", async (p) => {
  const s = await setup(p);
  const r = await call(p, FN, "/proposals", { token: s.requester.accessToken });
  assert.equal(r.status, 200);
  const data = r.body.data as Record<string, unknown>[];
  assert.equal(data.length, 1);
  assert.equal(data[0].id, s.proposalId);
  assert.equal(data[0].status, "pending");
  assert.equal(data[0].amount, 16.2);
  const qr = data[0].quote_requests as Record<string, unknown>;
  assert.equal(qr.id, s.requestId);
  assert.equal(qr.user_id, s.requester.id);
  assert.equal(qr.quote_id, s.quote.id);
  // The owner administers the proposal (RLS lets them read it) but did not request it.
  assert.deepEqual((await call(p, FN, "/proposals", { token: s.owner.accessToken })).body, { data: [] });
  assert.deepEqual((await call(p, FN, "/proposals", { token: s.other.accessToken })).body, { data: [] });
  assert.equal((await call(p, FN, "/proposals", { token: null })).status, 401);
  assert.equal((await call(p, FN, "/proposals")).status, 401, "anon key");
});

platformTest("GET /proposals/{id}: ownership of the linked request is verified", async (p) => {
  const s = await setup(p);
  const mine = await call(p, FN, `/proposals/${s.proposalId}`, { token: s.requester.accessToken });
  assert.equal(mine.status, 200);
  assert.equal((mine.body.data as { id: string }).id, s.proposalId);
  assert.equal((mine.body.data as { quote_requests: { id: string } }).quote_requests.id, s.requestId);
  for (const u of [s.owner, s.other]) {
    assert.equal((await call(p, FN, `/proposals/${s.proposalId}`, { token: u.accessToken })).status, 404);
  }
  assert.equal(
    (await call(p, FN, `/proposals/${MISSING_ID}`, { token: s.requester.accessToken })).status,
    404,
  );
  assert.equal((await call(p, FN, `/proposals/123`, { token: s.requester.accessToken })).status, 400);
});

platformTest("PATCH /proposals/{id}: accepted or rejected, by the requester only", async (p) => {
  const s = await setup(p);
  const patch = (u: TestUser, body: unknown, id = s.proposalId) =>
    call(p, FN, `/proposals/${id}`, { method: "PATCH", token: u.accessToken, body });
  for (const status of ["pending", "approved", "ACCEPTED", 1]) {
    assert.equal((await patch(s.requester, { status })).status, 400, `status ${status}`);
  }
  assert.equal(
    (await patch(s.owner, { status: "accepted" })).status,
    404,
    "the workspace owner is not the requester",
  );
  assert.equal((await patch(s.other, { status: "accepted" })).status, 404);
  assert.equal((await patch(s.requester, { status: "accepted" }, MISSING_ID)).status, 404);
  assert.equal((await patch(s.requester, { status: "accepted" }, "x")).status, 400);

  const ok = await patch(s.requester, { status: "accepted" });
  assert.equal(ok.status, 200);
  const data = ok.body.data as { status: string; responded_at: string | null; quote_requests: unknown };
  assert.equal(data.status, "accepted");
  assert.ok(data.responded_at && Math.abs(Date.parse(data.responded_at) - Date.now()) < 60_000);
  assert.ok(data.quote_requests);
  const rejected = await patch(s.requester, { status: "rejected" });
  assert.equal((rejected.body.data as { status: string }).status, "rejected");
  const row = await p.db.query(`select status, amount::text from public.proposals where id = $1`, [
    s.proposalId,
  ]);
  assert.deepEqual(row.rows, [{ status: "rejected", amount: "16.20" }]);
});
