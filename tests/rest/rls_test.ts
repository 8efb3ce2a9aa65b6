/**
 * Row-level security through /rest/v1: anon, two users in different workspaces, a member and an
 * admin of the same workspace, and the service role each see and change exactly what the
 * fixture's policies allow. Also the two direct-table requests the spec names (Pricing commit and
 * audit), sent exactly as written there, on the fixture's equivalents of quote_items and
 * product_prices.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createUser, serviceClient, type TestUser } from "../helpers/platform.ts";
import { rest, restPlatform } from "./helpers.ts";

interface World {
  p: Platform;
  /** Admin of workspace one. */
  admin: TestUser;
  /** Member of workspace one. */
  member: TestUser;
  /** Admin of workspace two only. */
  outsider: TestUser;
  ws1: string;
  ws2: string;
  items1: string[];
  item2: string;
}

let world: Promise<World> | null = null;

function setup(): Promise<World> {
  world ??= (async () => {
    const p = await restPlatform();
    const [admin, member, outsider] = await Promise.all([
      createUser(p, "rls-admin"),
      createUser(p, "rls-member"),
      createUser(p, "rls-outsider"),
    ]);
    const ws = await p.db.query<{ id: string }>(
      `insert into public.rt_workspaces (name) values ('one'), ('two') returning id`,
    );
    const [ws1, ws2] = ws.rows.map((r) => r.id);
    await p.db.query(
      `insert into public.rt_members (workspace_id, user_id, role) values ($1, $2, 'admin'), ($1, $3, 'member'), ($4, $5, 'admin')`,
      [ws1, admin.id, member.id, ws2, outsider.id],
    );
    const items = await p.db.query<{ id: string; workspace_id: string }>(
      `insert into public.rt_quote_items (workspace_id, name, quantity) values ($1, 'tiles', 10), ($1, 'grout', 2), ($2, 'glass', 1)
       returning id, workspace_id`,
      [ws1, ws2],
    );
    return {
      p,
      admin,
      member,
      outsider,
      ws1,
      ws2,
      items1: items.rows.filter((r) => r.workspace_id === ws1).map((r) => r.id),
      item2: items.rows.find((r) => r.workspace_id === ws2)!.id,
    };
  })();
  return world;
}

function rlsTest(name: string, fn: (w: World) => Promise<void>): void {
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn: async () => fn(await setup()) });
}

const names = (json: unknown) => (json as { name: string }[]).map((r) => r.name).sort();

rlsTest("anon: no privileges on workspace data (401 42501)", async ({ p, ws1 }) => {
  for (const table of ["rt_quote_items", "rt_product_prices"]) {
    const r = await rest(p, `/${table}`);
    assert.equal(r.status, 401, table);
    assert.equal((r.json as { code: string }).code, "42501");
  }
  const write = await rest(p, "/rt_quote_items", { method: "POST", body: { workspace_id: ws1, name: "x" } });
  assert.equal(write.status, 401);
});

rlsTest(
  "each user sees only their workspaces' rows, also through embeds",
  async ({ p, member, outsider }) => {
    const m = await rest(p, "/rt_quote_items?select=name", { token: member.accessToken });
    assert.deepEqual(names(m.json), ["grout", "tiles"]);
    const o = await rest(p, "/rt_quote_items?select=name", { token: outsider.accessToken });
    assert.deepEqual(names(o.json), ["glass"]);
    const embedded = await rest(p, "/rt_workspaces?select=name,rt_quote_items(name)", {
      token: outsider.accessToken,
    });
    assert.deepEqual(embedded.json, [{ name: "two", rt_quote_items: [{ name: "glass" }] }]);
    const count = await member.client.from("rt_quote_items").select("*", { count: "exact", head: true });
    assert.equal(count.count, 2);
  },
);

rlsTest("a member edits their workspace's items, not another workspace's, and cannot delete", async (w) => {
  const { p, member, items1, item2 } = w;
  const mine = await rest(p, `/rt_quote_items?id=eq.${items1[0]}&select=notes`, {
    method: "PATCH",
    token: member.accessToken,
    body: { notes: "checked" },
    headers: { Prefer: "return=representation" },
  });
  assert.equal(mine.status, 200);
  assert.deepEqual(mine.json, [{ notes: "checked" }]);
  const theirs = await rest(p, `/rt_quote_items?id=eq.${item2}`, {
    method: "PATCH",
    token: member.accessToken,
    body: { notes: "hijacked" },
    headers: { Prefer: "return=representation" },
  });
  assert.equal(theirs.status, 200);
  assert.deepEqual(theirs.json, []);
  const untouched = await p.db.query<{ notes: string | null }>(
    `select notes from public.rt_quote_items where id = $1`,
    [item2],
  );
  assert.equal(untouched.rows[0].notes, null);
  // Moving an item into another workspace fails the policy's WITH CHECK.
  const move = await rest(p, `/rt_quote_items?id=eq.${items1[1]}`, {
    method: "PATCH",
    token: member.accessToken,
    body: { workspace_id: w.ws2 },
  });
  assert.equal(move.status, 403);
  assert.equal((move.json as { code: string }).code, "42501");
  const del = await rest(p, `/rt_quote_items?id=eq.${items1[1]}`, {
    method: "DELETE",
    token: member.accessToken,
    headers: { Prefer: "return=representation" },
  });
  assert.equal(del.status, 200);
  assert.deepEqual(del.json, []);
  const insertElsewhere = await rest(p, "/rt_quote_items", {
    method: "POST",
    token: member.accessToken,
    body: { workspace_id: w.ws2, name: "sneaky" },
  });
  assert.equal(insertElsewhere.status, 403);
  assert.match((insertElsewhere.json as { message: string }).message, /row-level security/);
});

rlsTest(
  "prices are admin-only: member sees none and cannot write; admin can; other admin cannot",
  async (w) => {
    const { p, admin, member, outsider, ws1 } = w;
    const product = crypto.randomUUID();
    const denied = await rest(p, "/rt_product_prices", {
      method: "POST",
      token: member.accessToken,
      body: { workspace_id: ws1, product_id: product, list_price: 10 },
    });
    assert.equal(denied.status, 403);
    const ok = await rest(p, "/rt_product_prices?select=list_price,confirmed_by", {
      method: "POST",
      token: admin.accessToken,
      body: { workspace_id: ws1, product_id: product, list_price: 10 },
      headers: { Prefer: "return=representation" },
    });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.json, [{ list_price: 10, confirmed_by: admin.id }]);
    const memberView = await rest(p, "/rt_product_prices", { token: member.accessToken });
    assert.deepEqual(memberView.json, []);
    const otherAdmin = await rest(p, "/rt_product_prices", {
      method: "POST",
      token: outsider.accessToken,
      body: { workspace_id: ws1, product_id: crypto.randomUUID(), list_price: 1 },
    });
    assert.equal(otherAdmin.status, 403);
    const outsiderView = await rest(p, `/rt_product_prices?workspace_id=eq.${ws1}`, {
      token: outsider.accessToken,
    });
    assert.deepEqual(outsiderView.json, []);
  },
);

rlsTest("the admin deletes; the service role bypasses RLS and sees every workspace", async (w) => {
  const { p, admin, items1 } = w;
  const [id] = (await p.db.query<{ id: string }>(
    `insert into public.rt_quote_items (workspace_id, name) values ($1, 'to delete') returning id`,
    [w.ws1],
  )).rows.map((r) => r.id);
  const del = await rest(p, `/rt_quote_items?id=eq.${id}`, { method: "DELETE", token: admin.accessToken });
  assert.equal(del.status, 204);
  assert.equal((await p.db.query(`select 1 from public.rt_quote_items where id = $1`, [id])).rows.length, 0);
  const all = await serviceClient(p).from("rt_quote_items").select("id").in("id", [...items1, w.item2]);
  assert.equal(all.data?.length, 3);
  const ws = await serviceClient(p).from("rt_workspaces").select("name").in("id", [w.ws1, w.ws2]).order(
    "name",
  );
  assert.deepEqual(ws.data, [{ name: "one" }, { name: "two" }]);
});

rlsTest(
  "spec request 1: PATCH /rest/v1/quote_items?id=eq.<id> with Prefer: return=representation",
  async (w) => {
    const { p, member, items1 } = w;
    const callId = crypto.randomUUID();
    const res = await fetch(`${p.url}/rest/v1/rt_quote_items?id=eq.${items1[0]}`, {
      method: "PATCH",
      headers: {
        Authorization: `Bearer ${member.accessToken}`,
        apikey: p.config.anonKey,
        "Content-Type": "application/json",
        Prefer: "return=representation",
      },
      body: JSON.stringify({
        unit_price: 12.5,
        discounted_price: 11.25,
        price_source: `kb:ai:${callId}`,
        price_lookup_call_id: callId,
        notes: "committed from the agent",
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    const rows = await res.json();
    assert.equal(rows.length, 1);
    assert.deepEqual(
      {
        id: rows[0].id,
        unit_price: rows[0].unit_price,
        discounted_price: rows[0].discounted_price,
        price_source: rows[0].price_source,
        price_lookup_call_id: rows[0].price_lookup_call_id,
        notes: rows[0].notes,
        name: rows[0].name,
      },
      {
        id: items1[0],
        unit_price: 12.5,
        discounted_price: 11.25,
        price_source: `kb:ai:${callId}`,
        price_lookup_call_id: callId,
        notes: "committed from the agent",
        name: "tiles",
      },
    );
    const stored = await p.db.query<{ unit_price: string; price_lookup_call_id: string }>(
      `select unit_price, price_lookup_call_id from public.rt_quote_items where id = $1`,
      [items1[0]],
    );
    assert.deepEqual(stored.rows[0], { unit_price: "12.50", price_lookup_call_id: callId });
  },
);

rlsTest("spec request 2: POST /rest/v1/product_prices upserting on (workspace_id, product_id)", async (w) => {
  const { p, admin, ws1 } = w;
  const product = crypto.randomUUID();
  const doc = crypto.randomUUID();
  const send = (body: Record<string, unknown>) =>
    fetch(`${p.url}/rest/v1/rt_product_prices`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${admin.accessToken}`,
        apikey: p.config.anonKey,
        "Content-Type": "application/json",
        Prefer: "resolution=merge-duplicates,return=representation",
      },
      body: JSON.stringify(body),
    });
  const first = await send({
    workspace_id: ws1,
    product_id: product,
    list_price: 100,
    discount_price: 90,
    discount_percent: 10,
    currency: "EUR",
    unit: "m2",
    source_kb_doc_ids: [doc],
    source_snippet: "Tiles: 100 EUR/m2, 10% off",
    notes: "first",
  });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get("preference-applied"), "resolution=merge-duplicates, return=representation");
  const [created] = await first.json();
  assert.equal(created.list_price, 100);
  assert.deepEqual(created.source_kb_doc_ids, [doc]);
  assert.equal(created.confirmed_by, admin.id);
  const second = await send({
    workspace_id: ws1,
    product_id: product,
    list_price: 95,
    discount_price: 85,
    notes: "second",
  });
  assert.equal(second.status, 200);
  const [updated] = await second.json();
  assert.equal(updated.id, created.id);
  assert.equal(updated.list_price, 95);
  assert.equal(updated.notes, "second");
  // Columns not sent keep their values: merge-duplicates updates only the columns in the body.
  assert.equal(updated.unit, "m2");
  const rows = await p.db.query(
    `select 1 from public.rt_product_prices where workspace_id = $1 and product_id = $2`,
    [
      ws1,
      product,
    ],
  );
  assert.equal(rows.rows.length, 1);
  // supabase-js, naming the conflict columns explicitly, does the same.
  const js = await admin.client.from("rt_product_prices").upsert(
    { workspace_id: ws1, product_id: product, list_price: 80 },
    { onConflict: "workspace_id,product_id" },
  ).select("list_price").single();
  assert.equal(js.status, 200);
  assert.deepEqual(js.data, { list_price: 80 });
});
