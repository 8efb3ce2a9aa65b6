/**
 * The DataForSEO stand-in on its own (providers.md §6c): Basic auth, the tasks envelope with
 * status codes, deterministic data per keyword, per-task validation errors inside HTTP 200,
 * scripted failures (HTTP and task level), the /v3 prefix, and our client reading it.
 */
import assert from "node:assert/strict";
import { Sandbox } from "../../../../../stack/sandbox/sandbox.ts";
import { PROVIDERS } from "../../../../../stack/sandbox/registry.ts";
import type { DataForSeoStandIn } from "../../../../../stack/sandbox/providers/dataforseo.ts";
import { DataForSeoClient } from "../../../../../packages/shared/seo/dataforseo.ts";
import { DomainError } from "../../../../../packages/shared/errors.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

type Call = (path: string, body: unknown, auth?: string) => Promise<{ status: number; body: Json }>;

const test = (name: string, fn: (s: DataForSeoStandIn, call: Call) => Promise<void>) =>
  Deno.test({
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const sandbox = Sandbox.start({ providers: PROVIDERS.filter((d) => d.name === "dataforseo") });
      try {
        const s = sandbox.get("dataforseo");
        await fn(s, (path, body, auth) => post(s, path, body, auth));
      } finally {
        await sandbox.stop();
      }
    },
  });

async function post(
  s: DataForSeoStandIn,
  path: string,
  body: unknown,
  auth = `Basic ${btoa(`${s.login}:${s.password}`)}`,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const task = { keyword: "marble tiles", location_code: 2840, language_code: "en" };

test("envelope, status codes, cost and deterministic results", async (s, call) => {
  const a = await call("/v3/serp/google/organic/live/advanced", [{ ...task, depth: 10 }]);
  assert.equal(a.status, 200);
  assert.equal(a.body.status_code, 20000);
  assert.equal(a.body.tasks_count, 1);
  assert.equal(a.body.tasks_error, 0);
  assert.ok(a.body.cost > 0);
  const t = a.body.tasks[0];
  assert.equal(t.status_code, 20000);
  assert.deepEqual(t.path, ["v3", "serp", "google", "organic", "live", "advanced"]);
  assert.equal(t.data.keyword, "marble tiles");
  const items = t.result[0].items;
  assert.ok(items.some((i: Json) => i.type === "people_also_ask"));
  const organic = items.filter((i: Json) => i.type === "organic");
  assert.equal(organic.length, 10);
  assert.deepEqual(
    Object.keys(organic[0]).filter((k) => ["rank_group", "domain", "title", "url"].includes(k)).length,
    4,
  );
  // Same keyword, same data (without the /v3 prefix too).
  const b = await call("/serp/google/organic/live/advanced", [{ ...task, depth: 10 }]);
  assert.deepEqual(b.body.tasks[0].result[0].items, items);

  const vol = await call("/keywords_data/google_ads/search_volume/live", [{
    ...task,
    keyword: undefined,
    keywords: ["marble tiles", "oak"],
  }]);
  const rows = vol.body.tasks[0].result;
  assert.equal(rows.length, 2, "a flat array of keyword rows");
  assert.ok(["LOW", "MEDIUM", "HIGH"].includes(rows[0].competition));
  assert.ok(rows[0].competition_index >= 0 && rows[0].competition_index <= 100);
  assert.equal(rows[0].monthly_searches.length, 12);

  const kd = await call("/dataforseo_labs/google/bulk_keyword_difficulty/live", [{
    ...task,
    keywords: ["marble tiles"],
  }]);
  assert.equal(kd.body.tasks[0].result[0].items[0].keyword, "marble tiles");
  const rel = await call("/dataforseo_labs/google/related_keywords/live", [{ ...task, limit: 5 }]);
  const relItems = rel.body.tasks[0].result[0].items;
  assert.equal(relItems.length, 5);
  assert.ok(relItems[0].keyword_data.keyword_info.competition <= 1, "Labs competition is a 0-1 float");
  assert.equal(s.captures.requests().length, 5);
});

test("auth, validation and scripted failures", async (s, call) => {
  const noAuth = await call("/v3/serp/google/organic/live/advanced", [task], "Basic " + btoa("x:y"));
  assert.equal(noAuth.status, 401);
  assert.equal(noAuth.body.status_code, 40100);

  const invalid = await call("/dataforseo_labs/google/related_keywords/live", [{ location_code: 2840 }]);
  assert.equal(invalid.status, 200, "DataForSEO reports task errors inside HTTP 200");
  assert.equal(invalid.body.tasks_error, 1);
  assert.equal(invalid.body.tasks[0].status_code, 40501);

  const notArray = await call("/serp/google/organic/live/advanced", task);
  assert.equal(notArray.body.status_code, 40501);
  assert.equal((await call("/v3/nope/live", [task])).status, 404);

  s.failTaskNext(50000, "Internal Error.");
  const fault = await call("/serp/google/organic/live/advanced", [task]);
  assert.equal(fault.status, 200);
  assert.equal(fault.body.tasks[0].status_code, 50000);

  s.failNext(500);
  const http = await call("/serp/google/organic/live/advanced", [task]);
  assert.equal(http.status, 500);
  assert.equal(http.body.status_code, 50000);
});

test("our client: reads the envelopes, refuses task errors", async (s) => {
  const client = new DataForSeoClient({ baseUrl: `${s.baseUrl}/v3`, login: s.login, password: s.password });
  const loc = { location_code: 2840, language_code: "en" };
  const serp = await client.serp("marble tiles", loc);
  assert.ok(serp.length > 1);
  const kd = await client.keywordDifficulty(["marble tiles"], loc);
  assert.equal(typeof kd.get("marble tiles"), "number");
  assert.ok(client.spent > 0);
  s.failTaskNext(40501, "Invalid Field: 'keyword'.");
  await assert.rejects(client.serp("marble tiles", loc), (e: unknown) => {
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, "keyword_data_error");
    assert.match(e.message, /Invalid Field/);
    return true;
  });
  const wrong = new DataForSeoClient({ baseUrl: s.baseUrl, login: s.login, password: "wrong" });
  await assert.rejects(wrong.serp("x", loc), /not authorized/);
  const auth = s.captures.requests()[0].headers.authorization;
  assert.ok(!auth?.includes(s.password), "captures redact the credentials");
});
