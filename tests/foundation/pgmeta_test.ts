/** POST /pg/query: SQL for admins, service-role key only, one transaction per call. */
import assert from "node:assert/strict";
import { createUser, platformTest } from "../helpers/platform.ts";

const query = (p: { url: string }, key: string | null, body: unknown) =>
  fetch(`${p.url}/pg/query`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { apikey: key } : {}) },
    body: JSON.stringify(body),
  });

platformTest("the service role runs SQL and gets the last statement's rows", async (p) => {
  const r = await query(p, p.config.serviceRoleKey, {
    query: "select 1 as a; select name from public.roles order by level desc",
  });
  assert.equal(r.status, 200);
  assert.deepEqual((await r.json()).map((x: { name: string }) => x.name), [
    "admin",
    "manager",
    "factory",
    "user",
  ]);
});

platformTest("anon and user JWTs are refused; nothing runs", async (p) => {
  const u = await createUser(p, "pgmeta");
  const drop = { query: "drop table public.notifications" };
  const anon = await query(p, p.config.anonKey, drop);
  assert.equal(anon.status, 403);
  await anon.body?.cancel();
  const user = await query(p, u.accessToken, drop);
  assert.equal(user.status, 403);
  await user.body?.cancel();
  const none = await query(p, null, drop);
  assert.equal(none.status, 401);
  await none.body?.cancel();
  const still = await p.db.query(`select to_regclass('public.notifications') is not null as ok`);
  assert.deepEqual(still.rows, [{ ok: true }]);
});

platformTest("a failing script is a 400 with the SQLSTATE and leaves nothing behind", async (p) => {
  const r = await query(p, p.config.serviceRoleKey, {
    query: "create table public.pgmeta_half (id int); select * from public.no_such_table",
  });
  assert.equal(r.status, 400);
  const body = await r.json();
  assert.equal(body.code, "42P01");
  const half = await p.db.query(`select to_regclass('public.pgmeta_half') as t`);
  assert.deepEqual(half.rows, [{ t: null }]);
  const bad = await query(p, p.config.serviceRoleKey, { nope: 1 });
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
});
