/**
 * Writes through /rest/v1 (PostgREST's tables_views.rst "Insert", "Update", "Upsert", "Delete",
 * prefer.rst): statuses, bodies, Content-Range, Location and Preference-Applied as PostgREST
 * sends them, and the rows left behind.
 */
import assert from "node:assert/strict";
import { anonClient } from "../helpers/platform.ts";
import { rest, restTest } from "./helpers.ts";

const uniq = () => crypto.randomUUID().slice(0, 8);

restTest("POST: 201 with no body by default, the row with return=representation", async (p) => {
  const name = `item-${uniq()}`;
  const minimal = await rest(p, "/rt_items", { method: "POST", body: { name } });
  assert.equal(minimal.status, 201);
  assert.equal(minimal.text, "");
  assert.equal(minimal.headers.get("content-type"), null);
  assert.equal(minimal.headers.get("content-range"), "*/*");
  const rep = await rest(p, "/rt_items?select=name,qty,note", {
    method: "POST",
    body: { name: `${name}-2`, note: "n" },
    headers: { Prefer: "return=representation" },
  });
  assert.equal(rep.status, 201);
  assert.deepEqual(rep.json, [{ name: `${name}-2`, qty: 1, note: "n" }]);
  assert.equal(rep.headers.get("preference-applied"), "return=representation");
  const rows = await p.db.query(`select name from public.rt_items where name like $1 order by id`, [
    `${name}%`,
  ]);
  assert.equal(rows.rows.length, 2);
  const { data, error, status } = await anonClient(p).from("rt_items").insert({ name: `${name}-3` }).select(
    "name",
  ).single();
  assert.equal(error, null);
  assert.equal(status, 201);
  assert.deepEqual(data, { name: `${name}-3` });
});

restTest("bulk insert with columns: missing keys are null, or defaults with missing=default", async (p) => {
  const tag = uniq();
  const db = anonClient(p);
  const nulls = await db.from("rt_items").insert([{ name: `a-${tag}`, qty: 5 }, {
    name: `b-${tag}`,
    note: "x",
  }])
    .select("name,qty,note");
  // supabase-js sends columns="name","qty","note": qty is null for b, violating NOT NULL.
  assert.equal(nulls.status, 400);
  assert.equal(nulls.error?.code, "23502");
  const defaults = await db.from("rt_items").insert([{ name: `a-${tag}`, qty: 5 }, {
    name: `b-${tag}`,
    note: "x",
  }], {
    defaultToNull: false,
  }).select("name,qty,note");
  assert.equal(defaults.error, null);
  assert.deepEqual(defaults.data, [{ name: `a-${tag}`, qty: 5, note: null }, {
    name: `b-${tag}`,
    qty: 1,
    note: "x",
  }]);
  const raw = await rest(p, "/rt_items?columns=name,qty", {
    method: "POST",
    body: [{ name: `c-${tag}`, qty: 2, ignored: true }, { name: `d-${tag}` }],
    headers: { Prefer: "return=representation,missing=default", "content-type": "application/json" },
  });
  assert.equal(raw.status, 201);
  assert.deepEqual((raw.json as { name: string; qty: number }[]).map((r) => [r.name, r.qty]), [[
    `c-${tag}`,
    2,
  ], [`d-${tag}`, 1]]);
  assert.equal(raw.headers.get("preference-applied"), "missing=default, return=representation");
});

restTest("malformed bodies: 400 PGRST102; unknown columns 400 PGRST204", async (p) => {
  const mismatch = await rest(p, "/rt_items", { method: "POST", body: [{ name: "a" }, { note: "b" }] });
  assert.equal(mismatch.status, 400);
  assert.deepEqual(mismatch.json, {
    code: "PGRST102",
    details: null,
    hint: null,
    message: "All object keys must match",
  });
  const invalid = await rest(p, "/rt_items", { method: "POST", body: "{not json" });
  assert.equal(invalid.status, 400);
  assert.deepEqual(invalid.json, {
    code: "PGRST102",
    details: null,
    hint: null,
    message: "Empty or invalid json",
  });
  const unknown = await rest(p, "/rt_items", { method: "POST", body: { name: "a", nope: 1 } });
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.json, {
    code: "PGRST204",
    details: null,
    hint: null,
    message: "Could not find the 'nope' column of 'rt_items' in the schema cache",
  });
  const badColumns = await rest(p, "/rt_items?columns=name,nope", { method: "POST", body: { name: "a" } });
  assert.equal((badColumns.json as { code: string }).code, "PGRST204");
  const plain = await rest(p, "/rt_items", {
    method: "POST",
    body: "name=x",
    headers: { "content-type": "text/plain" },
  });
  assert.equal(plain.status, 400);
  assert.equal((plain.json as { code: string }).code, "PGRST102");
});

restTest("constraint violations: 23502 -> 400, 23503 and 23505 -> 409, 22P02 -> 400", async (p) => {
  const notNull = await rest(p, "/rt_items", { method: "POST", body: { note: "no name" } });
  assert.equal(notNull.status, 400);
  assert.equal((notNull.json as { code: string }).code, "23502");
  const fk = await rest(p, "/rt_items", { method: "POST", body: { name: "x", client_id: 999 } });
  assert.equal(fk.status, 409);
  const fkBody = fk.json as { code: string; details: string; message: string };
  assert.equal(fkBody.code, "23503");
  assert.equal(fkBody.details, 'Key (client_id)=(999) is not present in table "rt_clients".');
  const code = `c-${uniq()}`;
  assert.equal((await rest(p, "/rt_items", { method: "POST", body: { name: "x", code } })).status, 201);
  const dup = await rest(p, "/rt_items", { method: "POST", body: { name: "y", code } });
  assert.equal(dup.status, 409);
  assert.equal((dup.json as { code: string }).code, "23505");
  const badType = await rest(p, "/rt_items", { method: "POST", body: { name: "x", qty: "many" } });
  assert.equal(badType.status, 400);
  assert.equal((badType.json as { code: string }).code, "22P02");
});

restTest("numbers reach Postgres exactly as sent (no float rounding)", async (p) => {
  const name = `num-${uniq()}`;
  const r = await rest(p, "/rt_items?select=amount", {
    method: "POST",
    body: `{"name": "${name}", "amount": 12345678901234567890.123456789}`,
    headers: { Prefer: "return=representation", "content-type": "application/json" },
  });
  assert.equal(r.text, '[{"amount":12345678901234567890.123456789}]');
});

restTest("return=headers-only gives Location; count=exact gives */N on insert", async (p) => {
  const r = await rest(p, "/rt_items", {
    method: "POST",
    body: { name: `loc-${uniq()}` },
    headers: { Prefer: "return=headers-only" },
  });
  assert.equal(r.status, 201);
  assert.equal(r.text, "");
  const id = (await p.db.query<{ id: number }>(`select max(id) as id from public.rt_items`)).rows[0].id;
  assert.equal(r.headers.get("location"), `/rt_items?id=eq.${id}`);
  const counted = await rest(p, "/rt_items", {
    method: "POST",
    body: [{ name: "a" }, { name: "b" }],
    headers: { Prefer: "count=exact" },
  });
  assert.equal(counted.headers.get("content-range"), "*/2");
});

restTest("insert-only privilege: return=minimal works, return=representation is 401 for anon", async (p) => {
  const ok = await rest(p, "/rt_inbox", { method: "POST", body: { msg: "hello" } });
  assert.equal(ok.status, 201);
  const denied = await rest(p, "/rt_inbox", {
    method: "POST",
    body: { msg: "hello" },
    headers: { Prefer: "return=representation" },
  });
  assert.equal(denied.status, 401);
  assert.equal((denied.json as { code: string }).code, "42501");
  assert.equal(denied.headers.get("www-authenticate"), "Bearer");
  const read = await rest(p, "/rt_inbox");
  assert.equal(read.status, 401);
  assert.deepEqual(read.json, {
    code: "42501",
    details: null,
    hint: null,
    message: "permission denied for table rt_inbox",
  });
});

restTest("upsert: merge-duplicates (201 insert, 200 update), ignore-duplicates, on_conflict", async (p) => {
  const k = `k-${uniq()}`;
  const headers = { Prefer: "resolution=merge-duplicates,return=representation" };
  const first = await rest(p, "/rt_kv", { method: "POST", body: { key: k, value: "v1" }, headers });
  assert.equal(first.status, 201);
  assert.deepEqual(first.json, [{ key: k, value: "v1", hits: 0 }]);
  assert.equal(first.headers.get("preference-applied"), "resolution=merge-duplicates, return=representation");
  const second = await rest(p, "/rt_kv", { method: "POST", body: { key: k, value: "v2" }, headers });
  assert.equal(second.status, 200);
  assert.deepEqual(second.json, [{ key: k, value: "v2", hits: 0 }]);
  const mixed = await rest(p, "/rt_kv", {
    method: "POST",
    body: [{ key: k, value: "v3" }, { key: `${k}-new`, value: "n" }],
    headers,
  });
  assert.equal(mixed.status, 201);
  const ignore = await rest(p, "/rt_kv", {
    method: "POST",
    body: [{ key: k, value: "ignored" }, { key: `${k}-other`, value: "o" }],
    headers: { Prefer: "resolution=ignore-duplicates,return=representation" },
  });
  assert.equal(ignore.status, 201);
  assert.deepEqual(ignore.json, [{ key: `${k}-other`, value: "o", hits: 0 }]);
  const stored = await p.db.query<{ value: string }>(`select value from public.rt_kv where key = $1`, [k]);
  assert.equal(stored.rows[0].value, "v3");

  const code = `u-${uniq()}`;
  const db = anonClient(p);
  const a = await db.from("rt_items").upsert({ name: "first", code }, { onConflict: "code" }).select(
    "name,code",
  );
  assert.equal(a.status, 201);
  const b = await db.from("rt_items").upsert({ name: "second", code }, { onConflict: "code" }).select(
    "name,code",
  );
  assert.equal(b.status, 200);
  assert.deepEqual(b.data, [{ name: "second", code }]);
  const c = await db.from("rt_items").upsert({ name: "third", code }, {
    onConflict: "code",
    ignoreDuplicates: true,
  })
    .select();
  assert.equal(c.status, 201);
  assert.deepEqual(c.data, []);
  // Without a key to resolve on, the preference does not apply.
  const noKey = await rest(p, "/rt_items_view", {
    method: "POST",
    body: { name: "via view" },
    headers: { Prefer: "resolution=merge-duplicates" },
  });
  assert.equal(noKey.status, 201);
});

restTest(
  "PATCH: 204 by default, 200 with the rows; filters required; empty body changes nothing",
  async (p) => {
    const name = `patch-${uniq()}`;
    await rest(p, "/rt_items", { method: "POST", body: [{ name, qty: 1 }, { name, qty: 2 }] });
    const minimal = await rest(p, `/rt_items?name=eq.${name}&qty=eq.1`, {
      method: "PATCH",
      body: { note: "one" },
    });
    assert.equal(minimal.status, 204);
    assert.equal(minimal.text, "");
    assert.equal(minimal.headers.get("content-range"), "0-0/*");
    const rep = await rest(p, `/rt_items?name=eq.${name}&select=qty,note&order=qty`, {
      method: "PATCH",
      body: { note: "both" },
      headers: { Prefer: "return=representation,count=exact" },
    });
    assert.equal(rep.status, 200);
    assert.deepEqual(rep.json, [{ qty: 1, note: "both" }, { qty: 2, note: "both" }]);
    assert.equal(rep.headers.get("content-range"), "0-1/2");
    const none = await rest(p, `/rt_items?name=eq.nothing-${name}`, {
      method: "PATCH",
      body: { note: "x" },
      headers: { Prefer: "return=representation" },
    });
    assert.equal(none.status, 200);
    assert.deepEqual(none.json, []);
    const empty = await rest(p, `/rt_items?name=eq.${name}`, {
      method: "PATCH",
      body: {},
      headers: { Prefer: "return=representation" },
    });
    assert.deepEqual(empty.json, []);
    const unfiltered = await rest(p, "/rt_items", { method: "PATCH", body: { note: "all" } });
    assert.equal(unfiltered.status, 400);
    assert.deepEqual(unfiltered.json, {
      code: "21000",
      details: null,
      hint: null,
      message: "UPDATE requires a WHERE clause",
    });
    // Updating the filtered column still returns the updated rows.
    const moved = await rest(p, `/rt_items?name=eq.${name}&qty=eq.2&select=name`, {
      method: "PATCH",
      body: { name: `${name}-moved` },
      headers: { Prefer: "return=representation" },
    });
    assert.deepEqual(moved.json, [{ name: `${name}-moved` }]);
    const { data, error } = await anonClient(p).from("rt_items").update({ qty: 9 }).eq("name", name).select(
      "qty",
    );
    assert.equal(error, null);
    assert.deepEqual(data, [{ qty: 9 }]);
  },
);

restTest("PATCH and DELETE with order and limit touch only that many rows", async (p) => {
  const name = `lim-${uniq()}`;
  await rest(p, "/rt_items", { method: "POST", body: [1, 2, 3].map((qty) => ({ name, qty })) });
  const r = await rest(p, `/rt_items?name=eq.${name}&order=qty.desc&limit=2&select=qty`, {
    method: "PATCH",
    body: { note: "top" },
    headers: { Prefer: "return=representation" },
  });
  assert.deepEqual((r.json as { qty: number }[]).map((x) => x.qty).sort(), [2, 3]);
  const d = await rest(p, `/rt_items?name=eq.${name}&order=qty&limit=1&select=qty`, {
    method: "DELETE",
    headers: { Prefer: "return=representation" },
  });
  assert.deepEqual(d.json, [{ qty: 1 }]);
});

restTest("DELETE: 204 by default, 200 with the rows, */N count; filters required", async (p) => {
  const name = `del-${uniq()}`;
  await rest(p, "/rt_items", {
    method: "POST",
    body: [{ name, qty: 1 }, { name, qty: 2 }, { name, qty: 3 }],
  });
  const minimal = await rest(p, `/rt_items?name=eq.${name}&qty=eq.1`, {
    method: "DELETE",
    headers: { Prefer: "count=exact" },
  });
  assert.equal(minimal.status, 204);
  assert.equal(minimal.headers.get("content-range"), "*/1");
  const rep = await rest(p, `/rt_items?name=eq.${name}&qty=eq.2&select=qty`, {
    method: "DELETE",
    headers: { Prefer: "return=representation" },
  });
  assert.equal(rep.status, 200);
  assert.deepEqual(rep.json, [{ qty: 2 }]);
  const { error, status } = await anonClient(p).from("rt_items").delete().eq("name", name);
  assert.equal(error, null);
  assert.equal(status, 204);
  const left = await p.db.query(`select 1 from public.rt_items where name = $1`, [name]);
  assert.equal(left.rows.length, 0);
  const unfiltered = await rest(p, "/rt_items", { method: "DELETE" });
  assert.equal(unfiltered.status, 400);
  assert.equal((unfiltered.json as { message: string }).message, "DELETE requires a WHERE clause");
});

restTest("a singular write that matches several rows is 406 and rolled back", async (p) => {
  const name = `single-${uniq()}`;
  await rest(p, "/rt_items", { method: "POST", body: [{ name, qty: 1 }, { name, qty: 2 }] });
  const r = await rest(p, `/rt_items?name=eq.${name}`, {
    method: "PATCH",
    body: { note: "changed" },
    headers: { Prefer: "return=representation", Accept: "application/vnd.pgrst.object+json" },
  });
  assert.equal(r.status, 406);
  assert.equal((r.json as { details: string }).details, "The result contains 2 rows");
  const notes = await p.db.query<{ note: string | null }>(
    `select note from public.rt_items where name = $1`,
    [name],
  );
  assert.deepEqual(notes.rows.map((x) => x.note), [null, null]);
  const one = await rest(p, `/rt_items?name=eq.${name}&qty=eq.1&select=qty,note`, {
    method: "PATCH",
    body: { note: "only" },
    headers: { Prefer: "return=representation", Accept: "application/vnd.pgrst.object+json" },
  });
  assert.equal(one.status, 200);
  assert.deepEqual(one.json, { qty: 1, note: "only" });
});

restTest(
  "Prefer: tx=rollback runs the write and undoes it; max-affected under handling=strict",
  async (p) => {
    const name = `tx-${uniq()}`;
    const r = await rest(p, "/rt_items?select=name", {
      method: "POST",
      body: { name },
      headers: { Prefer: "return=representation, tx=rollback" },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json, [{ name }]);
    assert.equal(r.headers.get("preference-applied"), "return=representation, tx=rollback");
    assert.equal((await p.db.query(`select 1 from public.rt_items where name = $1`, [name])).rows.length, 0);

    await rest(p, "/rt_items", { method: "POST", body: [1, 2, 3].map((qty) => ({ name, qty })) });
    const strict = await rest(p, `/rt_items?name=eq.${name}`, {
      method: "DELETE",
      headers: { Prefer: "handling=strict, max-affected=2" },
    });
    assert.equal(strict.status, 400);
    assert.deepEqual(strict.json, {
      code: "PGRST124",
      details: "The query affects 3 rows",
      hint: null,
      message: "Query result exceeds max-affected preference constraint",
    });
    assert.equal((await p.db.query(`select 1 from public.rt_items where name = $1`, [name])).rows.length, 3);
    const ok = await rest(p, `/rt_items?name=eq.${name}`, {
      method: "DELETE",
      headers: { Prefer: "handling=strict, max-affected=3" },
    });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get("preference-applied"), "handling=strict, max-affected=3");
    const invalid = await rest(p, "/rt_items?name=eq.x", {
      method: "DELETE",
      headers: { Prefer: "handling=strict, foo=bar" },
    });
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.json, {
      code: "PGRST122",
      details: "Invalid preferences: foo=bar",
      hint: null,
      message: "Invalid preferences given with handling=strict",
    });
    const lenient = await rest(p, "/rt_items?name=eq.x", {
      method: "DELETE",
      headers: { Prefer: "foo=bar" },
    });
    assert.equal(lenient.status, 204);
  },
);

restTest("writes return embedded resources and work through an updatable view", async (p) => {
  const r = await rest(p, "/rt_items?select=name,client:rt_clients(name)", {
    method: "POST",
    body: { name: `emb-${uniq()}`, client_id: 2 },
    headers: { Prefer: "return=representation" },
  });
  assert.equal(r.status, 201);
  assert.deepEqual((r.json as { client: unknown }[])[0].client, { name: "Globex" });
  const name = `view-${uniq()}`;
  const v = await rest(p, "/rt_items_view?select=name,qty", {
    method: "POST",
    body: { name, qty: 4 },
    headers: { Prefer: "return=representation" },
  });
  assert.deepEqual(v.json, [{ name, qty: 4 }]);
  const u = await rest(p, `/rt_items_view?name=eq.${name}&select=qty`, {
    method: "PATCH",
    body: { qty: 5 },
    headers: { Prefer: "return=representation" },
  });
  assert.deepEqual(u.json, [{ qty: 5 }]);
});

restTest("form-encoded and CSV bodies insert like JSON", async (p) => {
  const name = `form-${uniq()}`;
  const form = await rest(p, "/rt_items?select=name,qty", {
    method: "POST",
    body: `name=${name}&qty=3`,
    headers: { "content-type": "application/x-www-form-urlencoded", Prefer: "return=representation" },
  });
  assert.equal(form.status, 201);
  assert.deepEqual(form.json, [{ name, qty: 3 }]);
  const csv = await rest(p, "/rt_items?select=name,note", {
    method: "POST",
    body: `name,note\n${name}-a,"x, y"\n${name}-b,NULL`,
    headers: { "content-type": "text/csv", Prefer: "return=representation" },
  });
  assert.equal(csv.status, 201);
  assert.deepEqual(csv.json, [{ name: `${name}-a`, note: "x, y" }, { name: `${name}-b`, note: null }]);
});

restTest("PUT upserts the row its primary-key filters name", async (p) => {
  const key = `put-${uniq()}`;
  const put = (body: unknown, prefer = "return=representation", filter = `key=eq.${key}`) =>
    rest(p, `/rt_kv?${filter}`, { method: "PUT", body, headers: { Prefer: prefer } });
  const created = await put({ key, value: "a" });
  assert.equal(created.status, 201);
  assert.deepEqual(created.json, [{ key, value: "a", hits: 0 }]);
  const replaced = await put({ key, value: "b" });
  assert.equal(replaced.status, 200);
  assert.deepEqual(replaced.json, [{ key, value: "b", hits: 0 }]);
  const minimal = await put({ key, value: "c" }, "return=minimal");
  assert.equal(minimal.status, 204);
  const mismatch = await put({ key: "other", value: "x" });
  assert.equal(mismatch.status, 400);
  assert.deepEqual(mismatch.json, {
    code: "PGRST115",
    details: null,
    hint: null,
    message: "Payload values do not match URL in primary key column(s)",
  });
  const notPk = await put({ key, value: "x" }, "return=minimal", `value=eq.x`);
  assert.equal(notPk.status, 405);
  assert.equal((notPk.json as { code: string }).code, "PGRST105");
  const limited = await put({ key, value: "x" }, "return=minimal", `key=eq.${key}&limit=1`);
  assert.equal(limited.status, 400);
  assert.equal((limited.json as { code: string }).code, "PGRST114");
  const stored = await p.db.query<{ value: string }>(`select value from public.rt_kv where key = $1`, [key]);
  assert.equal(stored.rows[0].value, "c");
});
