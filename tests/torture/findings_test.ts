/**
 * One test per hostile-input finding of issue 14: each performs the attack and expects the
 * refusal, with nothing written and the surface still answering afterwards. The limits are those
 * of packages/shared/input-limits.ts (JSON nesting 128 levels, JSON bodies 10 MiB on /rest/v1).
 */
import assert from "node:assert/strict";
import { createRoute, z } from "@hono/zod-openapi";
import { reloadSchemaCache } from "../../stack/rest/part.ts";
import { createRouter } from "@shared/http/app.ts";
import { errorHandler } from "@shared/http/errors.ts";
import { MAX_JSON_DEPTH } from "@shared/input-limits.ts";
import { refusal } from "../../stack/pgmeta/guard.ts";
import type { Platform } from "../../stack/platform.ts";
import { createUser, platformTest, serviceClient } from "../helpers/platform.ts";

const deepArray = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

let ready: Promise<void> | null = null;
function fixture(p: Platform): Promise<void> {
  ready ??= (async () => {
    await p.db.exec(`
      set role postgres;
      create table public.tf_docs (id serial primary key, marker text, doc jsonb, tags text[]);
      create table public.tf_pairs (id int primary key, other int unique deferrable initially deferred);
      grant all on public.tf_docs, public.tf_pairs to service_role;
      grant usage on sequence public.tf_docs_id_seq to service_role;
      create function public.tf_put(p_marker text, p_doc jsonb) returns int language sql as $$
        insert into public.tf_docs (marker, doc) values (p_marker, p_doc) returning id $$;
      create function public.tf_cast(p_marker text, t text) returns int language sql as $$
        insert into public.tf_docs (marker, doc) values (p_marker, t::jsonb) returning id $$;
      insert into public.tf_pairs values (1, 1);
    `);
    await p.db.exec(`reset role`);
    await reloadSchemaCache(p.db);
  })();
  return ready;
}

async function rest(
  p: Platform,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
) {
  const key = p.config.serviceRoleKey;
  const res = await fetch(`${p.url}/rest/v1${path}`, {
    method,
    headers: { apikey: key, authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function markers(p: Platform, marker: string): Promise<number> {
  const r = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.tf_docs where marker = $1`,
    [marker],
  );
  return r.rows[0].n;
}

platformTest(
  "REST: JSON nested thousands deep is a 400 before the database, in a column, an RPC argument or a string",
  async (p) => {
    await fixture(p);
    for (const deep of [deepArray(10_000), deepObject(6_000), deepArray(MAX_JSON_DEPTH + 1)]) {
      const insert = await rest(p, "POST", "/tf_docs", `{"marker":"deep","doc":${deep}}`, {
        prefer: "return=representation",
      });
      assert.equal(insert.status, 400);
      assert.equal(insert.json.code, "PGRST102");
      assert.equal(insert.json.message, "JSON nested too deeply");
      const rpc = await rest(p, "POST", "/rpc/tf_put", `{"p_marker":"deep","p_doc":${deep}}`);
      assert.equal(rpc.status, 400);
      // A deep string a function casts to jsonb itself.
      const cast = await rest(p, "POST", "/rpc/tf_cast", JSON.stringify({ p_marker: "deep", t: deep }));
      assert.equal(cast.status, 400);
    }
    const filter = await rest(p, "GET", `/tf_docs?doc=eq.${encodeURIComponent(deepArray(3000))}`);
    assert.equal(filter.status, 400);
    assert.equal(filter.json.code, "PGRST100");
    assert.equal(await markers(p, "deep"), 0);
    // At the limit it is accepted and stored.
    const ok = await rest(p, "POST", "/tf_docs", `{"marker":"limit","doc":${deepArray(MAX_JSON_DEPTH - 1)}}`);
    assert.equal(ok.status, 201);
    assert.equal(await markers(p, "limit"), 1);
  },
);

platformTest("REST: a body over 10 MiB is a 413 and nothing is written", async (p) => {
  await fixture(p);
  const big = await rest(
    p,
    "POST",
    "/tf_docs",
    JSON.stringify({ marker: "big", doc: { s: "x".repeat(11 * 1024 * 1024) } }),
  );
  assert.equal(big.status, 413);
  assert.equal(big.json.code, "PGRST102");
  assert.equal(await markers(p, "big"), 0);
});

platformTest("REST: a COMMIT that fails is an error, never a 201, and nothing is written", async (p) => {
  await fixture(p);
  // The deferred unique constraint is checked at COMMIT: in the implicit transaction (Sync) and in
  // the explicit one a single-object request commits after its check.
  for (const accept of ["application/json", "application/vnd.pgrst.object+json"]) {
    const dup = await rest(p, "POST", "/tf_pairs", JSON.stringify({ id: 2, other: 1 }), {
      accept,
      prefer: "return=representation",
    });
    assert.equal(dup.status, 409, JSON.stringify(dup.json));
    assert.equal(dup.json.code, "23505");
  }
  const r = await p.db.query(`select id from public.tf_pairs where id = 2`);
  assert.equal(r.rows.length, 0);
});

platformTest("REST: Postgres limit errors (class 54) are 413, not 500", async (p) => {
  await fixture(p);
  const dims = await rest(
    p,
    "POST",
    "/tf_docs",
    JSON.stringify({ marker: "dims", tags: "{{{{{{{{x}}}}}}}}" }),
  );
  assert.equal(dims.status, 413);
  assert.equal(dims.json.code, "54000");
  const columns = await rest(
    p,
    "GET",
    `/tf_docs?select=${Array.from({ length: 1700 }, (_, i) => `c${i}:id`).join(",")}`,
  );
  assert.equal(columns.status, 413);
  assert.equal(columns.json.code, "54011");
  assert.equal(await markers(p, "dims"), 0);
});

platformTest(
  "/pg/query refuses what the embedded database cannot survive, and keeps answering",
  async (p) => {
    const query = async (sql: string) => {
      const res = await fetch(`${p.url}/pg/query`, {
        method: "POST",
        headers: { authorization: `Bearer ${p.config.serviceRoleKey}`, "content-type": "application/json" },
        body: JSON.stringify({ query: sql }),
      });
      return { status: res.status, json: await res.json() };
    };
    for (
      const sql of [
        "copy (select 1) to program 'ls'",
        "COPY public.roles FROM STDIN",
        "do $$ begin execute 'copy (select 1) to program ''id'''; end $$",
        "unlisten *",
        `select '${deepArray(10_000)}'::jsonb`,
        `select ${"(".repeat(5000)}1${")".repeat(5000)}`,
      ]
    ) {
      const r = await query(sql);
      assert.equal(r.status, 400, sql.slice(0, 60));
      assert.match(r.json.error, /^refused: /);
    }
    const ok = await query("select count(*)::int as n from public.roles");
    assert.equal(ok.status, 200);
    assert.ok(ok.json[0].n > 0);
    // UNLISTEN only as a statement; COPY to stdout and to a file stay allowed. (COPY ... PROGRAM is
    // matched on the raw text, literals included, to catch EXECUTE strings: deliberately broad.)
    assert.equal(refusal("select 'unlisten *' as note -- unlisten *"), null);
    assert.equal(refusal("copy (select 1) to stdout"), null);
    assert.equal(refusal("copy (select 1) to '/tmp/out.csv'"), null);
  },
);

platformTest(
  "Storage: deeply nested x-metadata and CR/LF in cacheControl are 400s, nothing stored",
  async (p) => {
    const bucket = `tf-${Date.now().toString(36)}`;
    assert.equal((await serviceClient(p).storage.createBucket(bucket)).error, null);
    const key = p.config.serviceRoleKey;
    const auth = { apikey: key, authorization: `Bearer ${key}` };
    const meta = await fetch(`${p.url}/storage/v1/object/${bucket}/deep.txt`, {
      method: "POST",
      headers: { ...auth, "content-type": "text/plain", "x-metadata": btoa(deepObject(5000)) },
      body: "x",
    });
    assert.equal(meta.status, 400);
    assert.equal((await meta.json()).error, "InvalidRequest");
    const form = new FormData();
    form.append("cacheControl", "3600\r\nX-Injected: 1");
    form.append("", new Blob(["x"], { type: "text/plain" }), "f.txt");
    const crlf = await fetch(`${p.url}/storage/v1/object/${bucket}/crlf.txt`, {
      method: "POST",
      headers: auth,
      body: form,
    });
    assert.equal(crlf.status, 400);
    assert.match((await crlf.json()).message, /cacheControl/);
    const list = await fetch(`${p.url}/storage/v1/object/list/${bucket}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ prefix: "", search: "a\u0000b" }),
    });
    assert.equal(list.status, 400);
    await list.body?.cancel();
    const r = await p.db.query(`select name from storage.objects where bucket_id = $1`, [bucket]);
    assert.deepEqual(r.rows, []);
  },
);

platformTest(
  "Auth: NUL in the email, deep user_metadata and passwords over 72 bytes are refused",
  async (p) => {
    const signup = async (body: unknown) => {
      const res = await fetch(`${p.url}/auth/v1/signup`, {
        method: "POST",
        headers: {
          apikey: p.config.anonKey,
          "content-type": "application/json",
          "x-supabase-api-version": "2024-01-01",
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    };
    const nul = await signup({ email: "a\u0000b@example.com", password: "password-123" });
    assert.equal(nul.status, 400);
    assert.equal(nul.json.code, "validation_failed");
    const deep = await signup(
      `{"email":"deep-${Date.now()}@example.com","password":"password-123","data":${deepObject(5000)}}`,
    );
    assert.equal(deep.status, 400);
    assert.equal(deep.json.code, "validation_failed");
    const long = await signup({ email: `long-${Date.now()}@example.com`, password: "x".repeat(1024 * 1024) });
    assert.equal(long.status, 400);
    assert.deepEqual(long.json, {
      code: "validation_failed",
      message: "Password cannot be longer than 72 characters",
    });
    const bytes = await signup({ email: `bytes-${Date.now()}@example.com`, password: "é".repeat(37) });
    assert.equal(bytes.status, 400, "72 characters but 74 bytes");
    const users = await p.db.query(
      `select 1 from auth.users where email like 'deep-%' or email like 'long-%' or email like 'bytes-%'`,
    );
    assert.equal(users.rows.length, 0);
    const at72 = await signup({ email: `ok72-${Date.now()}@example.com`, password: "x".repeat(72) });
    assert.equal(at72.status, 200);
    // A signed-in user cannot store deep metadata either.
    const u = await createUser(p, "tf");
    const update = await fetch(`${p.url}/auth/v1/user`, {
      method: "PUT",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${u.accessToken}`,
        "content-type": "application/json",
      },
      body: `{"data":${deepArray(5000)}}`,
    });
    assert.equal(update.status, 400);
    await update.body?.cancel();
  },
);

Deno.test("HTTP core: declared routes and parseJson refuse JSON nested deeper than the limit", async () => {
  const app = createRouter();
  app.onError(errorHandler);
  app.openapi(
    createRoute({
      method: "post",
      path: "/echo",
      request: {
        body: {
          content: { "application/json": { schema: z.object({ meta: z.record(z.string(), z.unknown()) }) } },
        },
      },
      responses: { 200: { description: "echo" } },
    }),
    (c) => c.json({ ok: true }, 200),
  );
  const post = (body: string) =>
    app.request("/echo", { method: "POST", headers: { "content-type": "application/json" }, body });
  const deep = await post(`{"meta":{"a":${deepArray(10_000)}}}`);
  assert.equal(deep.status, 400);
  const body = await deep.json();
  assert.equal(body.code, "validation_failed");
  assert.match(body.error, /nested more than 128 levels/);
  const deepString = await post(JSON.stringify({ meta: { a: deepArray(1000) } }));
  assert.equal(deepString.status, 400);
  await deepString.body?.cancel();
  const fine = await post(`{"meta":{"a":${deepArray(10)}}}`);
  assert.equal(fine.status, 200);
  await fine.body?.cancel();
});
