/**
 * The torture suite: seeded hostile input (tests/torture/helpers.ts) sent to every surface of the
 * platform — /rest/v1 tables and RPCs, /auth/v1, /storage/v1, every function under
 * supabase/functions (its declared routes and its root) and the AI backend (/api/...). Asserts:
 * never a 5xx (501 and 503 allowed where a route honestly says it is not built or not
 * configured), never a hang (a per-request timeout), every acknowledged write readable
 * afterwards, and a known-good request on each surface still working at the end.
 *
 * Bounded: REQUESTS_PER_SURFACE requests per surface. Replay a failure with
 * TORTURE_SEED=<seed> (printed at the start and in every failure).
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { reloadSchemaCache } from "../../stack/rest/part.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { functionNames, functionsOpenApiDocument } from "../../stack/functions/openapi.ts";
import { createUser, platformTest, serviceClient } from "../helpers/platform.ts";
import { enc, Hostile } from "./helpers.ts";

const SEED = Number(Deno.env.get("TORTURE_SEED") ?? Date.now() % 1_000_000);
const REQUESTS_PER_SURFACE = 150;
/** A request that takes longer than this is a hang. */
const HANG_MS = 20_000;
console.log(`torture seed ${SEED} (replay with TORTURE_SEED=${SEED})`);

const h = new Hostile(SEED);
const counts: Record<string, number> = {};

interface Sent {
  surface: string;
  method: string;
  url: string;
  body?: BodyInit;
  headers?: Record<string, string>;
}

/** URLs are cut to this length (not inside a %XX escape): clients and proxies refuse longer ones. */
const MAX_URL = 30_000;

async function send(s: Sent): Promise<{ status: number; text: string }> {
  counts[s.surface] = (counts[s.surface] ?? 0) + 1;
  if (s.url.length > MAX_URL) {
    const cut = s.url.lastIndexOf("%", MAX_URL);
    s = { ...s, url: s.url.slice(0, cut > MAX_URL - 3 ? cut : MAX_URL) };
  }
  const what = `[seed ${SEED}] ${s.surface} ${s.method} ${s.url.slice(0, 200)}`;
  let res: Response;
  try {
    res = await fetch(s.url, {
      method: s.method,
      headers: s.headers,
      body: s.method === "GET" || s.method === "HEAD" ? undefined : s.body,
      signal: AbortSignal.timeout(HANG_MS),
    });
  } catch (err) {
    throw new Error(`${what}: no answer (${err instanceof Error ? err.message : err})`);
  }
  const text = await res.text();
  const honest = res.status === 501 || res.status === 503;
  assert.ok(res.status < 500 || honest, `${what}: ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, text };
}

const SETUP = `
-- As hosted migrations run: as postgres, who then owns the tables.
set role postgres;
create table public.tt_docs (
  id serial primary key,
  marker text,
  name text,
  doc jsonb,
  tags text[],
  n int,
  amount numeric(12, 2)
);
alter table public.tt_docs enable row level security;
create policy tt_docs_all on public.tt_docs for all to anon, authenticated using (true) with check (true);
grant all on public.tt_docs to anon, authenticated, service_role;
grant usage on sequence public.tt_docs_id_seq to anon, authenticated, service_role;
create function public.tt_echo(doc jsonb) returns jsonb language sql immutable as $$ select doc $$;
create function public.tt_cast(t text) returns jsonb language sql immutable as $$ select t::jsonb $$;
create function public.tt_put(p_marker text, p_doc jsonb) returns int language sql as $$
  insert into public.tt_docs (marker, doc) values (p_marker, p_doc) returning id
$$;
grant execute on function public.tt_echo(jsonb), public.tt_cast(text), public.tt_put(text, jsonb)
  to anon, authenticated;
`;

async function setup(p: Platform) {
  await p.db.exec(SETUP);
  await p.db.exec(`reset role`);
  await reloadSchemaCache(p.db);
}

platformTest(`hostile input on every surface: no 5xx, no hang, no lost write (seed ${SEED})`, async (p) => {
  const started = performance.now();
  await setup(p);
  const user = await createUser(p, "torture");
  const anon = p.config.anonKey;
  const service = p.config.serviceRoleKey;
  const asUser = { apikey: anon, authorization: `Bearer ${user.accessToken}` };
  const asService = { apikey: service, authorization: `Bearer ${service}` };

  // ---- /rest/v1 ----
  const acknowledged: string[] = [];
  const REST_FIELDS = ["name", "doc", "tags", "n", "amount"];
  for (let i = 0; i < REQUESTS_PER_SURFACE; i++) {
    const marker = `m-${SEED}-${i}`;
    const r = h.random();
    if (r < 0.4) {
      const { body, contentType } = h.body(REST_FIELDS);
      // The marker goes in first, so an acknowledged insert can be looked up afterwards.
      const withMarker = typeof body === "string" && body.startsWith("{")
        ? `{"marker":${JSON.stringify(marker)},${body.slice(1)}`.replace(/,}$/, "}")
        : body;
      const res = await send({
        surface: "rest",
        method: "POST",
        url: `${p.url}/rest/v1/tt_docs`,
        body: withMarker,
        headers: {
          ...asUser,
          "content-type": contentType,
          prefer: h.pick(["return=minimal", "return=representation"]),
        },
      });
      if (res.status === 201 && withMarker !== body) acknowledged.push(marker);
    } else if (r < 0.55) {
      const res = await send({
        surface: "rest",
        method: "POST",
        url: `${p.url}/rest/v1/rpc/tt_put`,
        body: `{"p_marker":${JSON.stringify(marker)},"p_doc":${h.valueText()}}`,
        headers: { ...asUser, "content-type": "application/json" },
      });
      if (res.status === 200) acknowledged.push(marker);
    } else if (r < 0.7) {
      await send({
        surface: "rest",
        method: "POST",
        url: `${p.url}/rest/v1/rpc/${h.pick(["tt_echo", "tt_cast"])}`,
        body: h.chance(0.5) ? `{"doc":${h.valueText()}}` : `{"t":${JSON.stringify(h.string())}}`,
        headers: { ...asUser, "content-type": "application/json" },
      });
    } else if (r < 0.85) {
      const col = h.pick(["doc", "tags", "n", "name", "amount", "doc->a", "nope"]);
      const op = h.pick(["eq", "cs", "in", "gt", "like", "is"]);
      const value = h.chance(0.3) ? h.deepJson(h.pick([200, 3000])) : h.string().slice(0, 3000);
      await send({
        surface: "rest",
        method: "GET",
        url: `${p.url}/rest/v1/tt_docs?${enc(col)}=${op}.${enc(value)}&${
          h.query(["select", "order", "limit"])
        }`,
        headers: asUser,
      });
    } else {
      await send({
        surface: "rest",
        method: h.pick(["GET", "PATCH"]),
        url: `${p.url}/rest/v1/rpc/tt_echo?doc=${enc(h.valueText().slice(0, 30000))}`,
        headers: { ...asUser, "content-type": "application/json" },
        body: "{}",
      });
    }
  }

  // ---- /auth/v1 ----
  const signedUp: string[] = [];
  for (let i = 0; i < REQUESTS_PER_SURFACE / 3; i++) {
    const email = h.chance(0.5)
      ? `t${SEED}-${i}${h.string().slice(0, 200)}@example.com`
      : `t${SEED}-${i}@example.com`;
    const password = h.chance(0.5) ? h.string() : "password-123";
    const data = h.chance(0.5) ? h.valueText() : "{}";
    const raw = `{"email":${JSON.stringify(email)},"password":${JSON.stringify(password)},"data":${data}}`;
    const kind = h.random();
    if (kind < 0.4) {
      const res = await send({
        surface: "auth",
        method: "POST",
        url: `${p.url}/auth/v1/signup`,
        body: raw,
        headers: { apikey: anon, "content-type": "application/json" },
      });
      if (res.status === 200) signedUp.push(JSON.parse(res.text).user?.id ?? JSON.parse(res.text).id);
    } else if (kind < 0.6) {
      await send({
        surface: "auth",
        method: "POST",
        url: `${p.url}/auth/v1/token?grant_type=${h.pick(["password", "refresh_token", "nope"])}`,
        body: h.chance(0.7) ? raw : h.body(["email", "password", "refresh_token"]).body,
        headers: { apikey: anon, "content-type": "application/json" },
      });
    } else if (kind < 0.8) {
      await send({
        surface: "auth",
        method: "PUT",
        url: `${p.url}/auth/v1/user`,
        body: `{"data":${data}}`,
        headers: { ...asUser, "content-type": "application/json" },
      });
    } else {
      const res = await send({
        surface: "auth",
        method: "POST",
        url: `${p.url}/auth/v1/admin/users`,
        body:
          `{"email":${JSON.stringify(email)},"password":${
            JSON.stringify(password)
          },"user_metadata":${data},` +
          `"app_metadata":${h.chance(0.5) ? h.valueText() : "{}"}}`,
        headers: { ...asService, "content-type": "application/json" },
      });
      if (res.status === 200) signedUp.push(JSON.parse(res.text).id);
    }
  }

  // ---- /storage/v1 ----
  const bucket = `torture-${SEED}`;
  const { error: bucketError } = await serviceClient(p).storage.createBucket(bucket, { public: false });
  assert.equal(bucketError, null);
  const stored: string[] = [];
  for (let i = 0; i < REQUESTS_PER_SURFACE / 2; i++) {
    const kind = h.random();
    const name = h.chance(0.7) ? `f-${i}.txt` : `${h.segment()}/f-${i}`;
    if (kind < 0.45) {
      const metadata = btoa(unescape(encodeURIComponent(h.chance(0.7) ? h.valueText() : h.deepJson())));
      const headers: Record<string, string> = {
        ...asService,
        "content-type": h.pick([
          "text/plain",
          "text/html",
          "application/json",
          "x/y; a=\u00ff",
          "image/svg+xml",
        ]),
        "x-metadata": h.chance(0.8) ? metadata : "%%%not-base64",
        "cache-control": h.pick(["max-age=60", "no-cache", "x".repeat(8000)]),
      };
      const res = await send({
        surface: "storage",
        method: "POST",
        url: `${p.url}/storage/v1/object/${bucket}/${name}`,
        body: new TextEncoder().encode(`body ${i}`),
        headers,
      });
      if (res.status === 200) stored.push(name);
    } else if (kind < 0.7) {
      const form = new FormData();
      form.append("cacheControl", h.pick(["3600", "1\r\nX-Evil: 1", "\u0000", h.string().slice(0, 2000)]));
      if (h.chance(0.5)) form.append("metadata", h.chance(0.5) ? h.deepJson() : h.valueText());
      if (h.chance(0.3)) {
        form.append("contentType", h.pick(["text/plain\r\nX-Evil: 1", "text/plain", "\u00ff/\u00ff"]));
      }
      form.append("", new Blob([`form ${i}`], { type: "text/plain" }), "f.txt");
      const res = await send({
        surface: "storage",
        method: "POST",
        url: `${p.url}/storage/v1/object/${bucket}/${name}`,
        body: form,
        headers: asService,
      });
      if (res.status === 200) stored.push(name);
    } else {
      const path = h.pick([
        `/storage/v1/object/list/${bucket}`,
        `/storage/v1/bucket`,
        `/storage/v1/object/copy`,
        `/storage/v1/object/move`,
        `/storage/v1/object/sign/${bucket}/${name}`,
      ]);
      const { body, contentType } = h.body([
        "prefix",
        "search",
        "bucketId",
        "sourceKey",
        "destinationKey",
        "metadata",
        "name",
        "expiresIn",
      ]);
      await send({
        surface: "storage",
        method: "POST",
        url: `${p.url}${path}`,
        body,
        headers: { ...asService, "content-type": contentType },
      });
    }
  }

  // ---- every function ----
  const names = await functionNames(p.config.rootDir);
  const doc = await functionsOpenApiDocument({ rootDir: p.config.rootDir, url: p.url });
  const routes: { method: string; path: string; fields: string[]; query: string[] }[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const o = op as { parameters?: { name: string; in: string }[]; requestBody?: unknown };
      const schema = JSON.stringify(o.requestBody ?? {});
      const fields = [...schema.matchAll(/"properties":\{"([^"]+)"/g)].map((m) => m[1]);
      routes.push({
        method: method.toUpperCase(),
        path,
        fields: fields.length ? fields : ["name", "data", "id"],
        query: (o.parameters ?? []).filter((x) => x.in === "query").map((x) => x.name),
      });
    }
  }
  for (const name of names) {
    routes.push({ method: "POST", path: `/${name}`, fields: ["action", "data"], query: ["id"] });
  }
  for (let i = 0; i < Math.max(REQUESTS_PER_SURFACE, names.length * 3); i++) {
    const route = i < names.length ? routes[routes.length - names.length + i] : h.pick(routes);
    if (["OPTIONS", "HEAD"].includes(route.method)) continue;
    const path = route.path.replace(/\{[^}]+\}/g, () => h.segment());
    const { body, contentType } = h.body(route.fields);
    await send({
      surface: "functions",
      method: route.method,
      url: `${p.url}/functions/v1${path}?${h.query(route.query.length ? route.query : ["q"])}`,
      body,
      headers: { ...(h.chance(0.8) ? asUser : { apikey: anon }), "content-type": contentType },
    });
  }

  // ---- the AI backend ----
  const backend = aiBackendOf(p).url;
  const apiDoc = await (await fetch(`${backend}/openapi.json`)).json() as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
  };
  const apiRoutes = Object.entries(apiDoc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      query: (op.parameters ?? []).filter((x) => x.in === "query").map((x) => x.name),
    }))
  ).filter((r) => r.path.startsWith("/api/") && !["OPTIONS", "HEAD"].includes(r.method));
  for (let i = 0; i < REQUESTS_PER_SURFACE; i++) {
    const route = h.pick(apiRoutes);
    const { body, contentType } = h.body([
      "query",
      "title",
      "content",
      "metadata",
      "product_ids",
      "ids",
      "limit",
    ]);
    await send({
      surface: "ai-backend",
      method: route.method,
      url: `${backend}${route.path.replace(/\{[^}]+\}/g, () => h.segment())}?${
        h.query(route.query.length ? route.query : ["q"])
      }`,
      body,
      headers: { authorization: `Bearer ${user.accessToken}`, "content-type": contentType },
    });
  }

  // ---- /pg/query ----
  for (
    const query of [
      "copy (select 1) to program 'ls'",
      "COPY public.tt_docs FROM STDIN",
      `do $$ begin execute 'copy (select 1) to program ''id'''; end $$`,
      "unlisten *",
      `select '${"[".repeat(10000)}${"]".repeat(10000)}'::jsonb`,
      `select ${"(".repeat(5000)}1${")".repeat(5000)}`,
    ]
  ) {
    const res = await send({
      surface: "pg-meta",
      method: "POST",
      url: `${p.url}/pg/query`,
      body: JSON.stringify({ query }),
      headers: { ...asService, "content-type": "application/json" },
    });
    assert.equal(res.status, 400, `[seed ${SEED}] /pg/query must refuse ${query.slice(0, 60)}`);
  }

  // ---- afterwards: every acknowledged write is there, and each surface still works ----
  const ok = (status: number, what: string) =>
    assert.ok(status >= 200 && status < 300, `[seed ${SEED}] ${what}: ${status}`);
  const rows = await p.db.query<{ marker: string }>(
    `select marker from public.tt_docs where marker = any($1)`,
    [acknowledged],
  );
  assert.deepEqual(
    rows.rows.map((r) => r.marker).sort(),
    [...acknowledged].sort(),
    `[seed ${SEED}] acknowledged REST writes`,
  );
  const users = await p.db.query<{ n: number }>(
    `select count(*)::int as n from auth.users where id = any($1::uuid[])`,
    [signedUp],
  );
  assert.equal(users.rows[0].n, signedUp.length, `[seed ${SEED}] acknowledged sign-ups`);
  for (const name of stored) {
    // Read back through the same URL the upload used (supabase-js would not re-encode the name).
    const res = await send({
      surface: "storage",
      method: "GET",
      url: `${p.url}/storage/v1/object/${bucket}/${name}`,
      headers: asService,
    });
    assert.equal(res.status, 200, `[seed ${SEED}] acknowledged upload ${name}: ${res.text.slice(0, 200)}`);
  }
  const good = await send({
    surface: "rest",
    method: "POST",
    url: `${p.url}/rest/v1/tt_docs`,
    body: `{"marker":"good","doc":{"a":[1]}}`,
    headers: { ...asUser, "content-type": "application/json", prefer: "return=representation" },
  });
  ok(good.status, "REST insert afterwards");
  ok(
    (await send({
      surface: "rest",
      method: "GET",
      url: `${p.url}/rest/v1/tt_docs?marker=eq.good`,
      headers: asUser,
    })).status,
    "REST read afterwards",
  );
  const signIn = await send({
    surface: "auth",
    method: "POST",
    url: `${p.url}/auth/v1/token?grant_type=password`,
    body: JSON.stringify({ email: user.email, password: user.password }),
    headers: { apikey: anon, "content-type": "application/json" },
  });
  ok(signIn.status, "sign-in afterwards");
  const upload = await serviceClient(p).storage.from(bucket).upload("good.txt", new Blob(["good"]));
  assert.equal(upload.error, null, `[seed ${SEED}] storage upload afterwards`);
  ok(
    (await send({
      surface: "functions",
      method: "GET",
      url: `${p.url}/functions/v1/health-check`,
      headers: asUser,
    })).status,
    "health-check afterwards",
  );
  ok(
    (await send({ surface: "ai-backend", method: "GET", url: `${backend}/health` })).status,
    "AI backend afterwards",
  );
  ok(
    (await send({
      surface: "pg-meta",
      method: "POST",
      url: `${p.url}/pg/query`,
      body: `{"query":"select count(*) from public.tt_docs"}`,
      headers: { ...asService, "content-type": "application/json" },
    })).status,
    "/pg/query afterwards",
  );

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `torture seed ${SEED}: requests by surface ${JSON.stringify(counts)} in ${seconds}s; ` +
      `${acknowledged.length} REST writes, ${signedUp.length} sign-ups, ${stored.length} uploads acknowledged and read back`,
  );
});
