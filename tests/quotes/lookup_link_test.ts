/**
 * A quote line's audit link (price_lookup_call_id) means what it says: it is set exactly when
 * price_source is kb:ai:<log_id>, to that log id. Re-pricing a committed line to another source
 * clears it (so the 30-day commit rate no longer counts that lookup); a write that links a line
 * whose source is not a kb:ai lookup is refused. Through quotes-api and /rest/v1 alike.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, seedQuote } from "./helpers.ts";

const FN = "quotes-api";
const KB_DOC_ID = "5b1f6a0e-4c3d-4e2f-9a8b-7c6d5e4f3a2b";

async function lookupLog(p: Platform, workspaceId: string, userId: string): Promise<string> {
  const r = await p.db.query<{ id: string }>(
    `insert into public.agent_tool_call_logs (workspace_id, user_id, tool_name) values ($1, $2, 'price_lookup')
     returning id`,
    [workspaceId, userId],
  );
  return r.rows[0].id;
}

async function setup(p: Platform) {
  const owner = await createUser(p, "ll-owner");
  const member = await createUser(p, "ll-member");
  const ws = await createWorkspace(p, owner.id, { [member.id]: "member" }, "Audit links");
  const quote = await seedQuote(p, ws, owner.id, [
    { description: "Porcelain tile", quantity: 40, unit: "m2" },
    { description: "Grout", quantity: 5, unit: "bag" },
  ]);
  return { owner, member, ws, quote, log: await lookupLog(p, ws, owner.id) };
}

async function line(p: Platform, id: string) {
  const r = await p.db.query<{ price_source: string | null; price_lookup_call_id: string | null }>(
    `select price_source, price_lookup_call_id from public.quote_items where id = $1`,
    [id],
  );
  return r.rows[0];
}

/** The spec's observability numbers, as an admin reads them (POST /rest/v1/rpc). */
async function stats(
  u: TestUser,
  ws: string,
): Promise<{ lookups: number; committed: number; commit_rate: number }> {
  const r = await u.client.rpc("price_lookup_stats", { p_workspace_id: ws });
  assert.equal(r.error, null, JSON.stringify(r.error));
  return r.data;
}

platformTest("quotes-api: a line re-priced to manual loses its lookup link and its commit", async (p) => {
  const s = await setup(p);
  const item = s.quote.items[0];
  const patch = (u: TestUser, body: unknown) =>
    call(p, FN, `/quote-items/${item}`, { method: "PATCH", token: u.accessToken, body });

  const commit = await patch(s.owner, {
    unit_price: 59,
    price_source: `kb:ai:${s.log}`,
    price_lookup_call_id: s.log,
  });
  assert.equal(commit.status, 200, JSON.stringify(commit.body));
  const before = await stats(s.owner, s.ws);
  assert.deepEqual([before.lookups, before.committed, before.commit_rate], [1, 1, 1]);

  // A member re-prices by hand (allowed): the link goes with the looked-up price.
  const manual = await patch(s.member, { unit_price: 55, price_source: "manual" });
  assert.equal(manual.status, 200, JSON.stringify(manual.body));
  const data = manual.body.data as {
    price_source: string;
    price_lookup_call_id: string | null;
    unit_price: number;
  };
  assert.deepEqual(
    {
      price_source: data.price_source,
      price_lookup_call_id: data.price_lookup_call_id,
      unit_price: data.unit_price,
    },
    { price_source: "manual", price_lookup_call_id: null, unit_price: 55 },
  );
  assert.deepEqual(await line(p, item), { price_source: "manual", price_lookup_call_id: null });
  const after = await stats(s.owner, s.ws);
  assert.equal(after.lookups, 1);
  assert.equal(after.committed, 0, "a lookup that was not committed is not counted");
  assert.equal(after.commit_rate, 0);

  // Saying both at once is a contradiction, refused; the line is unchanged.
  const contradiction = await patch(s.owner, { price_source: "manual", price_lookup_call_id: s.log });
  assert.equal(contradiction.status, 400);
  assert.match(String(contradiction.body.error), /quote_items_lookup_link_needs_kb_ai_source/);
  const linkOnly = await patch(s.owner, { price_lookup_call_id: s.log });
  assert.equal(linkOnly.status, 400, "a link on a manual line");
  assert.deepEqual(await line(p, item), { price_source: "manual", price_lookup_call_id: null });

  // A member cannot commit a lookup by naming only the source: the link follows, so does the guard.
  assert.equal((await patch(s.member, { price_source: `kb:ai:${s.log}` })).status, 403);
  assert.deepEqual(await line(p, item), { price_source: "manual", price_lookup_call_id: null });
});

platformTest("/rest/v1: the link follows the source on insert and update", async (p) => {
  const s = await setup(p);
  const item = s.quote.items[1];
  const items = () => s.owner.client.from("quote_items");
  const cols = "price_source, price_lookup_call_id";

  // kb:ai:<log_id> alone: the link is the source's log id.
  const commit = await items().update({ unit_price: 9.8, price_source: `kb:ai:${s.log}` }).eq("id", item)
    .select(cols).single();
  assert.deepEqual(commit.data, { price_source: `kb:ai:${s.log}`, price_lookup_call_id: s.log });
  assert.equal((await stats(s.owner, s.ws)).committed, 1);

  // Any other source clears it.
  for (const source of ["catalog", `kb:quick:${KB_DOC_ID}`, null]) {
    await items().update({ price_source: `kb:ai:${s.log}` }).eq("id", item);
    const moved = await items().update({ price_source: source }).eq("id", item).select(cols).single();
    assert.equal(moved.error, null, JSON.stringify(moved.error));
    assert.deepEqual(moved.data, { price_source: source, price_lookup_call_id: null }, String(source));
    assert.equal((await stats(s.owner, s.ws)).committed, 0, String(source));
  }

  // Contradictions are refused (400), on update and on insert.
  const bad = await items().update({ price_source: "manual", price_lookup_call_id: s.log }).eq("id", item);
  assert.equal(bad.status, 400);
  assert.equal(bad.error?.code, "23514");
  const badInsert = await items().insert({
    quote_id: s.quote.id,
    description: "Edge trim",
    price_source: "catalog",
    price_lookup_call_id: s.log,
  });
  assert.equal(badInsert.status, 400);

  // An insert with kb:ai:<log_id> is linked; one naming a lookup not on record is refused.
  const linked = await items().insert({
    quote_id: s.quote.id,
    description: "Edge trim",
    unit_price: 4,
    price_source: `kb:ai:${s.log}`,
  }).select(cols).single();
  assert.deepEqual(linked.data, { price_source: `kb:ai:${s.log}`, price_lookup_call_id: s.log });
  const ghost = await items().insert({
    quote_id: s.quote.id,
    description: "Ghost",
    price_source: `kb:ai:${crypto.randomUUID()}`,
  });
  assert.equal(ghost.status, 409, "the source must name a lookup of this workspace");

  const rows = await p.db.query(
    `select count(*)::int n from public.quote_items
      where price_lookup_call_id is not null and lower(coalesce(price_source, '')) not like 'kb:ai:%'`,
  );
  assert.deepEqual(rows.rows, [{ n: 0 }], "no line anywhere links a lookup its source does not name");
});
