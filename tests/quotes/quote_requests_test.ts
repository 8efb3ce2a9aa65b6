/** quotes-api: quote requests, route by route, with every refusal. */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, MISSING_ID, seedQuote } from "./helpers.ts";

const FN = "quotes-api";

async function setup(p: Platform) {
  const owner = await createUser(p, "qr-owner");
  const member = await createUser(p, "qr-member");
  const admin = await createUser(p, "qr-admin");
  const outsider = await createUser(p, "qr-out");
  const ws = await createWorkspace(p, owner.id, { [member.id]: "member", [admin.id]: "admin" }, "Quotes A");
  const otherWs = await createWorkspace(p, outsider.id, {}, "Quotes B");
  const quote = await seedQuote(p, ws, owner.id);
  const otherQuote = await seedQuote(p, otherWs, outsider.id);
  return { owner, member, admin, outsider, ws, otherWs, quote, otherQuote };
}

async function request(p: Platform, u: TestUser, quoteId: string, ws: string, notes?: string) {
  return await call(p, FN, "/quote-requests", {
    method: "POST",
    token: u.accessToken,
    body: { quote_id: quoteId, workspace_id: ws, notes },
  });
}

platformTest("POST /quote-requests: 201 {data}, owned by the caller, pending", async (p) => {
  const s = await setup(p);
  const r = await request(p, s.member, s.quote.id, s.ws, "need it by Friday");
  assert.equal(r.status, 201);
  const data = r.body.data as Record<string, unknown>;
  assert.equal(data.quote_id, s.quote.id);
  assert.equal(data.workspace_id, s.ws);
  assert.equal(data.user_id, s.member.id);
  assert.equal(data.notes, "need it by Friday");
  assert.equal(data.status, "pending");
  assert.equal((data.quotes as { quote_number: string }).quote_number, s.quote.quote_number);
  const row = await p.db.query(`select user_id, status from public.quote_requests where id = $1`, [data.id]);
  assert.deepEqual(row.rows, [{ user_id: s.member.id, status: "pending" }]);
});

platformTest("POST /quote-requests refusals: credentials, input, workspace and quote tenancy", async (p) => {
  const s = await setup(p);
  const path = "/quote-requests";
  const body = { quote_id: s.quote.id, workspace_id: s.ws };
  assert.equal((await call(p, FN, path, { method: "POST", token: null, body })).status, 401, "no JWT");
  assert.equal((await call(p, FN, path, { method: "POST", body })).status, 401, "anon key");
  const service = await call(p, FN, path, { method: "POST", token: p.config.serviceRoleKey, body });
  assert.equal(service.status, 401, "a request needs a user to own it");

  const t = s.member.accessToken;
  const bad = await call(p, FN, path, { method: "POST", token: t, body: { ...body, quote_id: "nope" } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, "validation_failed");
  assert.match(bad.body.error as string, /quote_id/);
  assert.equal(
    (await call(p, FN, path, { method: "POST", token: t, body: { workspace_id: s.ws } })).status,
    400,
  );
  assert.equal((await call(p, FN, path, { method: "POST", token: t, rawBody: "{not json" })).status, 400);

  // A workspace the caller does not belong to: 404, whatever quote is named.
  const foreign = await request(p, s.member, s.otherQuote.id, s.otherWs);
  assert.equal(foreign.status, 404);
  // The quote must belong to the named workspace (the caller's): another workspace's quote is a 404.
  const mixed = await request(p, s.member, s.otherQuote.id, s.ws);
  assert.equal(mixed.status, 404);
  assert.equal((await request(p, s.member, MISSING_ID, s.ws)).status, 404);
  const left = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.quote_requests where quote_id = $1`,
    [
      s.otherQuote.id,
    ],
  );
  assert.equal(left.rows[0].n, 0, "nothing written by refused calls");
});

platformTest("GET /quote-requests: the caller's own, newest first; {data: []} when none", async (p) => {
  const s = await setup(p);
  const ids: string[] = [];
  for (const n of ["first", "second", "third"]) {
    const r = await request(p, s.member, s.quote.id, s.ws, n);
    ids.push((r.body.data as { id: string }).id);
  }
  await request(p, s.owner, s.quote.id, s.ws, "owner's");
  const mine = await call(p, FN, "/quote-requests", { token: s.member.accessToken });
  assert.equal(mine.status, 200);
  const data = mine.body.data as { id: string; user_id: string }[];
  assert.deepEqual(data.map((d) => d.id), [...ids].reverse());
  assert.ok(data.every((d) => d.user_id === s.member.id));
  // The workspace admin may read every request under RLS, but the list is "the caller's".
  const adminList = await call(p, FN, "/quote-requests", { token: s.admin.accessToken });
  assert.deepEqual(adminList.body, { data: [] });
  const page = await call(p, FN, "/quote-requests?limit=1&offset=1", { token: s.member.accessToken });
  assert.deepEqual((page.body.data as { id: string }[]).map((d) => d.id), [ids[1]]);
  assert.equal((await call(p, FN, "/quote-requests?limit=0", { token: s.member.accessToken })).status, 400);
  assert.equal((await call(p, FN, "/quote-requests", { token: null })).status, 401);
});

platformTest(
  "GET /quote-requests/{id}: requester and handlers; others, unknown and bad ids refused",
  async (p) => {
    const s = await setup(p);
    const id = ((await request(p, s.member, s.quote.id, s.ws)).body.data as { id: string }).id;
    const mine = await call(p, FN, `/quote-requests/${id}`, { token: s.member.accessToken });
    assert.equal(mine.status, 200);
    assert.equal((mine.body.data as { id: string }).id, id);
    // The workspace's owner and admin handle (PATCH) the request, so they read it too
    // (tests/quotes/request_roles_test.ts); an outsider does not.
    for (const u of [s.owner, s.admin]) {
      const r = await call(p, FN, `/quote-requests/${id}`, { token: u.accessToken });
      assert.equal(r.status, 200, "a handler reads what it may move");
    }
    assert.equal((await call(p, FN, `/quote-requests/${id}`, { token: s.outsider.accessToken })).status, 404);
    assert.equal(
      (await call(p, FN, `/quote-requests/${MISSING_ID}`, { token: s.member.accessToken })).status,
      404,
    );
    assert.equal(
      (await call(p, FN, `/quote-requests/not-a-uuid`, { token: s.member.accessToken })).status,
      400,
    );
    assert.equal((await call(p, FN, `/quote-requests/${id}`, { token: null })).status, 401);
  },
);

platformTest(
  "PATCH /quote-requests/{id}: the four statuses; requester and workspace admins only",
  async (p) => {
    const s = await setup(p);
    const id = ((await request(p, s.member, s.quote.id, s.ws)).body.data as { id: string }).id;
    const patch = (u: TestUser, body: unknown) =>
      call(p, FN, `/quote-requests/${id}`, { method: "PATCH", token: u.accessToken, body });
    // The requester re-submits or says the request changed; the handlers decide
    // (the role table: tests/quotes/request_roles_test.ts).
    for (
      const [u, status] of [[s.member, "updated"], [s.admin, "rejected"], [s.member, "pending"]] as const
    ) {
      const r = await patch(u, { status });
      assert.equal(r.status, 200, status);
      assert.equal((r.body.data as { status: string }).status, status);
    }
    for (const status of ["accepted", "done", "", null]) {
      const r = await patch(s.member, { status });
      assert.equal(r.status, 400, `status ${status}`);
    }
    assert.equal((await patch(s.member, {})).status, 400);
    // The workspace's admin handles requests: allowed. An outsider: 404.
    assert.equal((await patch(s.admin, { status: "approved" })).status, 200);
    assert.equal((await patch(s.outsider, { status: "rejected" })).status, 404);
    const other = await createUser(p, "qr-member2");
    await p.db.query(
      `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'member')`,
      [
        s.ws,
        other.id,
      ],
    );
    assert.equal((await patch(other, { status: "rejected" })).status, 404, "another member is not the owner");
    const row = await p.db.query(`select status from public.quote_requests where id = $1`, [id]);
    assert.deepEqual(row.rows, [{ status: "approved" }]);
    const bad = await call(p, FN, `/quote-requests/xyz`, {
      method: "PATCH",
      token: s.member.accessToken,
      body: { status: "pending" },
    });
    assert.equal(bad.status, 400);
  },
);
