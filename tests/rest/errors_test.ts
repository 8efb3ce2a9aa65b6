/**
 * Authentication, profiles, methods and error mapping (PostgREST's auth.rst, schemas.rst,
 * errors.rst): JWT failures as 401 PGRST301/PGRST303, Accept-Profile / Content-Profile, 405/404
 * for methods and paths, and the SQLSTATE -> HTTP status table.
 */
import assert from "node:assert/strict";
import { signJwt } from "@shared/auth/jwt.ts";
import { sqlStateStatus } from "../../stack/rest/errors.ts";
import { anonClient, createUser } from "../helpers/platform.ts";
import { rest, restTest } from "./helpers.ts";

restTest("JWT errors are 401 with PostgREST's codes and WWW-Authenticate", async (p) => {
  const secret = p.config.jwtSecret;
  const now = Math.floor(Date.now() / 1000);
  const expired = await signJwt({ role: "authenticated", sub: crypto.randomUUID(), exp: now - 60 }, secret);
  const r = await rest(p, "/rt_clients", { token: expired });
  assert.equal(r.status, 401);
  assert.deepEqual(r.json, { code: "PGRST303", details: null, hint: null, message: "JWT expired" });
  assert.equal(
    r.headers.get("www-authenticate"),
    'Bearer error="invalid_token", error_description="JWT expired"',
  );

  const forged = await signJwt(
    { role: "service_role", exp: now + 600 },
    "another-secret-another-secret-another",
  );
  const bad = await rest(p, "/rt_clients", { token: forged });
  assert.equal(bad.status, 401);
  assert.deepEqual(bad.json, {
    code: "PGRST301",
    details: null,
    hint: null,
    message: "JWT cryptographic operation failed",
  });

  const parts = await rest(p, "/rt_clients", { token: "abc.def" });
  assert.equal(parts.status, 401);
  assert.equal((parts.json as { message: string }).message, "Expected 3 parts in JWT; got 2");

  const none = `${btoa(JSON.stringify({ alg: "none", typ: "JWT" }))}.${
    btoa(JSON.stringify({ role: "service_role" }))
  }.`;
  const unsigned = await rest(p, "/rt_clients", { token: none.replaceAll("=", "") });
  assert.equal(unsigned.status, 401);
  assert.equal((unsigned.json as { code: string }).code, "PGRST301");

  const empty = await rest(p, "/rt_clients", { headers: { authorization: "Bearer " } });
  assert.equal(empty.status, 401);
  assert.equal((empty.json as { message: string }).message, "Empty JWT is sent in Authorization header");

  const ghost = await signJwt({ role: "no_such_role", exp: now + 600 }, secret);
  const role = await rest(p, "/rt_clients", { token: ghost });
  assert.equal(role.status, 401);
  assert.deepEqual(role.json, {
    code: "22023",
    details: null,
    hint: null,
    message: 'role "no_such_role" does not exist',
  });

  // No role claim: the anonymous role.
  const noRole = await signJwt({ sub: "x", exp: now + 600 }, secret);
  const anon = await rest(p, "/rt_clients?select=id&id=eq.1", { token: noRole });
  assert.deepEqual(anon.json, [{ id: 1 }]);
});

restTest("insufficient privilege: 401 for anon, 403 for a signed-in role", async (p) => {
  const anon = await rest(p, "/rt_quote_items");
  assert.equal(anon.status, 401);
  assert.equal((anon.json as { code: string }).code, "42501");
  const user = await createUser(p, "rest-priv");
  const authed = await rest(p, "/rt_inbox", { token: user.accessToken });
  assert.equal(authed.status, 403);
  assert.equal((authed.json as { code: string }).code, "42501");
  assert.equal(authed.headers.get("www-authenticate"), null);
  assert.equal(authed.headers.get("proxy-status"), "PostgREST; error=42501");
});

restTest(
  "Accept-Profile and Content-Profile select an exposed schema; others are 406 PGRST106",
  async (p) => {
    const read = await rest(p, "/rt_notes?select=body&id=eq.1", {
      headers: { "Accept-Profile": "graphql_public" },
    });
    assert.equal(read.status, 200);
    assert.deepEqual(read.json, [{ body: "in graphql_public" }]);
    assert.equal(read.headers.get("content-profile"), "graphql_public");
    const write = await rest(p, "/rt_notes?select=body", {
      method: "POST",
      body: { body: "written" },
      headers: { "Content-Profile": "graphql_public", Prefer: "return=representation" },
    });
    assert.equal(write.status, 201);
    assert.deepEqual(write.json, [{ body: "written" }]);
    const notThere = await rest(p, "/rt_notes");
    assert.equal(notThere.status, 404);
    const hidden = await rest(p, "/rt_secrets", { headers: { "Accept-Profile": "rt_private" } });
    assert.equal(hidden.status, 406);
    assert.deepEqual(hidden.json, {
      code: "PGRST106",
      details: null,
      hint: "Only the following schemas are exposed: public, graphql_public",
      message: "Invalid schema: rt_private",
    });
    const { data } = await anonClient(p).schema("graphql_public").from("rt_notes").select("body").eq("id", 1);
    assert.deepEqual(data, [{ body: "in graphql_public" }]);
  },
);

restTest("methods and paths: 405 PGRST117, 404 PGRST125, root OpenAPI", async (p) => {
  const trace = await rest(p, "/rt_clients", { method: "PROPFIND" });
  assert.equal(trace.status, 405);
  assert.deepEqual(trace.json, {
    code: "PGRST117",
    details: null,
    hint: null,
    message: "Unsupported HTTP method: PROPFIND",
  });
  const deep = await rest(p, "/rt_clients/1");
  assert.equal(deep.status, 404);
  assert.deepEqual(deep.json, {
    code: "PGRST125",
    details: null,
    hint: null,
    message: "Invalid path specified in request URL",
  });
  const root = await rest(p, "/");
  assert.equal(root.status, 200);
  assert.equal(root.headers.get("content-type"), "application/openapi+json; charset=utf-8");
  const doc = root.json as {
    swagger: string;
    paths: Record<string, unknown>;
    definitions: Record<string, { required: string[] }>;
  };
  assert.equal(doc.swagger, "2.0");
  assert.ok(doc.paths["/rt_projects"]);
  assert.ok(doc.paths["/rpc/rt_add"]);
  assert.deepEqual(doc.definitions.rt_clients.required, ["name"]);
});

restTest("CORS preflight is answered by the gateway for /rest/v1", async (p) => {
  const r = await fetch(`${p.url}/rest/v1/rt_clients`, {
    method: "OPTIONS",
    headers: {
      origin: "http://app.local",
      "access-control-request-method": "POST",
      "access-control-request-headers": "prefer",
    },
  });
  assert.equal(r.status, 200);
  await r.body?.cancel();
  assert.equal(r.headers.get("access-control-allow-origin"), "http://app.local");
  const get = await fetch(`${p.url}/rest/v1/rt_clients?select=id&id=eq.1`, {
    headers: { origin: "http://app.local", apikey: p.config.anonKey },
  });
  await get.body?.cancel();
  assert.match(get.headers.get("access-control-expose-headers") ?? "", /Content-Range/);
});

Deno.test("SQLSTATE -> HTTP status, as PostgREST's mapSQLtoHTTP", () => {
  const cases: [string, string, boolean, number][] = [
    ["23505", "dup", true, 409],
    ["23503", "fk", true, 409],
    ["23502", "null", true, 400],
    ["22P02", "syntax", true, 400],
    ["42501", "denied", false, 401],
    ["42501", "denied", true, 403],
    ["42P01", "no table", true, 404],
    ["42883", "no function", true, 404],
    ["P0001", "raise", true, 400],
    ["P0002", "no data", true, 500],
    ["PT402", "pay", true, 402],
    ["25006", "read only", true, 405],
    ["21000", "UPDATE requires a WHERE clause", true, 400],
    ["21000", "more than one row returned by a subquery", true, 500],
    ["22023", 'role "x" does not exist', true, 401],
    ["22023", "other", true, 400],
    ["08006", "conn", true, 503],
    ["53300", "too many", true, 503],
    ["53400", "limit", true, 500],
    ["57P01", "shutdown", true, 503],
    ["57014", "canceled", true, 500],
    ["40001", "serialization", true, 500],
    ["42P17", "recursion", true, 500],
    ["28000", "auth", true, 403],
    ["0L000", "grantor", true, 403],
    ["XX000", "internal", true, 500],
    ["42703", "column", true, 400],
  ];
  for (const [code, message, authed, status] of cases) {
    assert.equal(sqlStateStatus(code, message, authed), status, `${code} ${message}`);
  }
});
