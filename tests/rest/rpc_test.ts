/**
 * Functions at /rest/v1/rpc (PostgREST's functions.rst): POST with JSON arguments, GET and HEAD
 * with query arguments, set-returning functions shaped like tables, void, scalars, composites,
 * single json parameters, variadics, overloads, errors raised by functions, response GUCs.
 */
import assert from "node:assert/strict";
import { anonClient, createUser } from "../helpers/platform.ts";
import { rest, restTest } from "./helpers.ts";

restTest("scalar function: POST with JSON, defaults, GET with query arguments, HEAD", async (p) => {
  const post = await rest(p, "/rpc/rt_add", { method: "POST", body: { a: 2, b: 3 } });
  assert.equal(post.status, 200);
  assert.equal(post.text, "5");
  assert.equal(post.headers.get("content-type"), "application/json; charset=utf-8");
  const withDefault = await rest(p, "/rpc/rt_add", { method: "POST", body: { a: 2 } });
  assert.equal(withDefault.text, "3");
  const get = await rest(p, "/rpc/rt_add?a=10&b=20");
  assert.equal(get.text, "30");
  const head = await fetch(`${p.url}/rest/v1/rpc/rt_add?a=1`, {
    method: "HEAD",
    headers: { apikey: p.config.anonKey },
  });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
  const db = anonClient(p);
  assert.deepEqual((await db.rpc("rt_add", { a: 1, b: 1 })).data, 2);
  assert.deepEqual((await db.rpc("rt_add", { a: 4 }, { get: true })).data, 5);
});

restTest("set-returning function: filter, order, limit, count, embed from its rows", async (p) => {
  const r = await rest(
    p,
    "/rpc/rt_projects_over?min=100&select=id,name,rt_clients(name)&order=id.desc&limit=2",
    {
      headers: { Prefer: "count=exact" },
    },
  );
  assert.equal(r.status, 206);
  assert.equal(r.headers.get("content-range"), "0-1/3");
  assert.deepEqual(r.json, [
    { id: 3, name: "Doomsday device", rt_clients: { name: "Globex" } },
    { id: 2, name: "Giant magnet", rt_clients: { name: "Acme" } },
  ]);
  const db = anonClient(p);
  const { data, error } = await db.rpc("rt_projects_over", { min: 0 }).select("id").gt("budget", 500).order(
    "id",
  );
  assert.equal(error, null);
  assert.deepEqual(data, [{ id: 1 }, { id: 3 }]);
  const counted = await db.rpc("rt_doubles", { n: 7 }, { head: true, count: "exact" });
  assert.equal(counted.count, 7);
  const table = await rest(p, "/rpc/rt_doubles?n=3&doubled=gt.2");
  assert.deepEqual(table.json, [{ x: 2, doubled: 4 }, { x: 3, doubled: 6 }]);
  const single = await rest(p, "/rpc/rt_doubles?n=3&x=eq.2", {
    headers: { Accept: "application/vnd.pgrst.object+json" },
  });
  assert.deepEqual(single.json, { x: 2, doubled: 4 });
});

restTest(
  "void is 204 without Content-Type; composites are objects; a json parameter takes the body",
  async (p) => {
    const v = await rest(p, "/rpc/rt_noop", { method: "POST", body: {} });
    assert.equal(v.status, 204);
    assert.equal(v.text, "");
    assert.equal(v.headers.get("content-type"), null);
    const empty = await rest(p, "/rpc/rt_noop", { method: "POST" });
    assert.equal(empty.status, 204);
    const created = await rest(p, "/rpc/rt_add_task", {
      method: "POST",
      body: { project: 4, title: "from rpc" },
    });
    assert.equal(created.status, 200);
    const task = created.json as { project_id: number; title: string; done: boolean };
    assert.deepEqual([task.project_id, task.title, task.done], [4, "from rpc", false]);
    const echo = await rest(p, "/rpc/rt_echo", { method: "POST", body: { any: ["shape", 1] } });
    assert.deepEqual(echo.json, { any: ["shape", 1] });
    const variadic = await rest(p, "/rpc/rt_names?names=a&names=b&names=c");
    assert.equal(variadic.json, "a+b+c");
    const variadicPost = await rest(p, "/rpc/rt_names", { method: "POST", body: { names: ["x", "y"] } });
    assert.equal(variadicPost.json, "x+y");
  },
);

restTest("missing and ambiguous functions: 404 PGRST202, 300 PGRST203", async (p) => {
  const missing = await rest(p, "/rpc/rt_ad", { method: "POST", body: { a: 1 } });
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.json, {
    code: "PGRST202",
    details:
      "Searched for the function public.rt_ad with parameter a or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
    hint: "Perhaps you meant to call the function public.rt_add",
    message: "Could not find the function public.rt_ad(a) in the schema cache",
  });
  const wrongArgs = await rest(p, "/rpc/rt_add?x=1&y=2");
  assert.equal(wrongArgs.status, 404);
  assert.equal(
    (wrongArgs.json as { message: string }).message,
    "Could not find the function public.rt_add(x, y) in the schema cache",
  );
  const none = await rest(p, "/rpc/rt_add");
  assert.equal(
    (none.json as { message: string }).message,
    "Could not find the function public.rt_add without parameters in the schema cache",
  );
  const ambiguous = await rest(p, "/rpc/rt_overloaded", { method: "POST", body: { a: 1 } });
  assert.equal(ambiguous.status, 300);
  assert.equal((ambiguous.json as { code: string }).code, "PGRST203");
  assert.match(
    (ambiguous.json as { message: string }).message,
    /^Could not choose the best candidate function between: /,
  );
  const patch = await rest(p, "/rpc/rt_add", { method: "PATCH", body: {} });
  assert.equal(patch.status, 405);
  assert.deepEqual(patch.json, {
    code: "PGRST101",
    details: null,
    hint: null,
    message: "Cannot use the PATCH method on RPC",
  });
});

restTest(
  "errors raised by functions: P0001 400, PTxyz status, RAISE SQLSTATE 'PGRST' full control",
  async (p) => {
    const raised = await rest(p, "/rpc/rt_fail", { method: "POST", body: { msg: "nope" } });
    assert.equal(raised.status, 400);
    assert.deepEqual(raised.json, {
      code: "P0001",
      details: "fail detail",
      hint: "fail hint",
      message: "nope",
    });
    const pt = await rest(p, "/rpc/rt_payment_required", { method: "POST" });
    assert.equal(pt.status, 402);
    assert.equal((pt.json as { code: string }).code, "PT402");
    const custom = await rest(p, "/rpc/rt_custom_error", { method: "POST" });
    assert.equal(custom.status, 418);
    assert.equal(custom.headers.get("x-powered-by"), "Nerd");
    assert.deepEqual(custom.json, {
      code: "123",
      details: "Custom details",
      hint: "Custom hint",
      message: "Custom message",
    });
    const { error } = await anonClient(p).rpc("rt_fail", { msg: "via js" });
    assert.equal(error?.message, "via js");
    assert.equal(error?.code, "P0001");
  },
);

restTest("response.status and response.headers set by a function override the response", async (p) => {
  const r = await rest(p, "/rpc/rt_teapot", { method: "POST" });
  assert.equal(r.status, 418);
  assert.equal(r.headers.get("x-brewed"), "yes");
  assert.deepEqual(r.json, { tea: true });
});

restTest("GET runs read-only: a volatile function that writes is 405 25006", async (p) => {
  const r = await rest(p, "/rpc/rt_add_task?project=4&title=nope");
  assert.equal(r.status, 405);
  assert.equal((r.json as { code: string }).code, "25006");
  const left = await p.db.query(`select 1 from public.rt_tasks where title = 'nope'`);
  assert.equal(left.rows.length, 0);
});

restTest(
  "request context: role, claims, method, path, headers, cookies, search_path, read-only, timezone",
  async (p) => {
    const anon = await rest(p, "/rpc/rt_context", {
      headers: { "x-test": "hello", cookie: "flavor=mint; other=1" },
    });
    assert.deepEqual(anon.json, {
      role: "anon",
      sub: null,
      claims_role: "anon",
      method: "GET",
      path: "/rpc/rt_context",
      x_test: "hello",
      cookie: "mint",
      read_only: "on",
      search_path: "public, extensions",
      timezone: "UTC",
    });
    const user = await createUser(p, "rest-ctx");
    const authed = await rest(p, "/rpc/rt_context", {
      method: "POST",
      body: {},
      token: user.accessToken,
      headers: { Prefer: "timezone=America/New_York" },
    });
    const ctx = authed.json as Record<string, string>;
    assert.equal(ctx.role, "authenticated");
    assert.equal(ctx.sub, user.id);
    assert.equal(ctx.method, "POST");
    // A stable function called by POST runs read-only too.
    assert.equal(ctx.read_only, "on");
    assert.equal(ctx.timezone, "America/New_York");
    assert.equal(authed.headers.get("preference-applied"), "timezone=America/New_York");
    const service = await rest(p, "/rpc/rt_context", { apikey: p.config.serviceRoleKey });
    assert.equal((service.json as { role: string }).role, "service_role");
    // Nothing of the request's context leaks into the connection the rest of the platform uses.
    // (The connection is the platform's superuser, supabase_admin as on hosted: its own role again.)
    const after = await p.db.query<{ own: boolean; claims: string | null; ro: string }>(
      `select current_user = session_user as own, nullif(current_setting('request.jwt.claims', true), '') as claims,
            current_setting('transaction_read_only') as ro`,
    );
    assert.deepEqual(after.rows[0], { own: true, claims: null, ro: "off" });
  },
);
