/**
 * product_prices.confirmed_at (issue 31): the origin frontend's price commit - supabase-js
 * upsert, i.e. POST /rest/v1/product_prices with Prefer resolution=merge-duplicates,
 * return=representation - sends confirmed_at; it is accepted, and the server stamps it (with
 * confirmed_by) on every write, whatever the client sent. Admin-only like the rest of the table.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { createTeam } from "./helpers.ts";

platformTest("a price commit with confirmed_at is accepted and stamped by the server", async (p) => {
  const t = await createTeam(p, 0);
  const product = await t.owner.client.from("products")
    .insert({ workspace_id: t.ws, name: "Keraflex Maxi S1 grey 25 kg", sku: "MP-100" }).select("id").single();
  assert.equal(product.error, null);
  const row = {
    workspace_id: t.ws,
    product_id: product.data!.id,
    list_price: 18.5,
    discount_price: 14.8,
    discount_percent: 20,
    currency: "EUR",
    unit: "bag",
    confirmed_by: t.member.id, // both are the server's: the writer, now
    confirmed_at: "2001-01-01T00:00:00Z",
  };

  const before = Date.now();
  const first = await t.owner.client.from("product_prices").upsert(row).select().single();
  assert.equal(first.error, null, JSON.stringify(first.error));
  assert.equal(first.status, 201);
  assert.equal(first.data.confirmed_by, t.owner.id);
  const firstAt = Date.parse(first.data.confirmed_at);
  assert.ok(firstAt >= before - 1000 && firstAt <= Date.now() + 1000, first.data.confirmed_at);

  // Without confirmed_at the column still fills (default now() on write).
  const { confirmed_at: _, ...withoutAt } = row;
  await new Promise((r) => setTimeout(r, 20));
  const second = await t.admin.client.from("product_prices")
    .upsert({ ...withoutAt, discount_price: 14.5 }).select().single();
  assert.equal(second.error, null, JSON.stringify(second.error));
  assert.equal(second.status, 200, "merged into the same row");
  assert.equal(second.data.id, first.data.id);
  assert.equal(second.data.confirmed_by, t.admin.id);
  assert.ok(Date.parse(second.data.confirmed_at) > firstAt, "a re-commit re-confirms");

  // A PATCH that tries to backdate it is overruled too.
  const patched = await t.owner.client.from("product_prices")
    .update({ confirmed_at: "2001-01-01T00:00:00Z", notes: "checked" }).eq("id", first.data.id).select()
    .single();
  assert.equal(patched.error, null);
  assert.ok(Date.parse(patched.data.confirmed_at) > Date.parse("2020-01-01"));
  assert.equal(patched.data.confirmed_by, t.owner.id);

  // Admin-only: a member neither reads the row nor commits; an outsider neither.
  const seen = await t.member.client.from("product_prices").select("confirmed_at");
  assert.deepEqual(seen.data, []);
  for (const who of [t.member, t.viewer, t.outsider]) {
    const denied = await who.client.from("product_prices").upsert({ ...row, discount_price: 1 }).select();
    assert.equal(denied.error?.code, "42501", `${who.email}: ${JSON.stringify(denied)}`);
  }
  const stored = await p.db.query<{ discount_price: string; confirmed_by: string }>(
    `select discount_price, confirmed_by from public.product_prices where id = $1`,
    [first.data.id],
  );
  assert.deepEqual(stored.rows, [{ discount_price: "14.5000", confirmed_by: t.owner.id }]);
});
