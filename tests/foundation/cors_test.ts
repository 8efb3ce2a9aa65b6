/**
 * The CORS a browser needs (spec: every edge function sends Access-Control-Allow-Origin `*`):
 * also on the platform's own refusals before a function runs (missing or invalid JWT, unknown
 * function), and on the AI backend, which clients may call directly: its preflight answers 204
 * without authentication, and its 401s carry the header, so the browser shows "sign in again"
 * rather than a CORS error.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";

const ORIGIN = "https://catalog.example";

platformTest("functions: the platform's 401 and 404 carry Access-Control-Allow-Origin", async (p) => {
  const cases: [string, Record<string, string>, number][] = [
    ["health-check", {}, 401],
    ["health-check", { authorization: "Bearer not.a.jwt" }, 401],
    ["no-such-function", { authorization: `Bearer ${p.config.anonKey}` }, 404],
  ];
  for (const [name, headers, status] of cases) {
    const res = await fetch(`${p.url}/functions/v1/${name}`, { headers: { origin: ORIGIN, ...headers } });
    await res.body?.cancel();
    assert.equal(res.status, status, name);
    assert.equal(res.headers.get("access-control-allow-origin"), "*", `${name} ${status}`);
  }
});

platformTest(
  "AI backend: preflight 204 without a token; 401 and 404 carry CORS; headers exposed",
  async (p) => {
    const { url } = aiBackendOf(p);
    const pre = await fetch(`${url}/api/kb/search`, {
      method: "OPTIONS",
      headers: {
        origin: ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    await pre.body?.cancel();
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "*");
    assert.match(pre.headers.get("access-control-allow-headers") ?? "", /authorization/);
    assert.match(pre.headers.get("access-control-allow-methods") ?? "", /POST/);

    const anon = await fetch(`${url}/api/kb/search`, { method: "POST", headers: { origin: ORIGIN } });
    assert.equal(anon.status, 401);
    assert.equal(anon.headers.get("access-control-allow-origin"), "*");
    assert.equal((await anon.json()).code, "unauthorized");

    const missing = await fetch(`${url}/api/nowhere`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${p.config.serviceRoleKey}` },
    });
    await missing.body?.cancel();
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("access-control-allow-origin"), "*");
    assert.match(missing.headers.get("access-control-expose-headers") ?? "", /x-request-id/);
    assert.ok(missing.headers.get("x-request-id"));
  },
);
