/**
 * ai-rerank over HTTP (spec "Re-rank"), with the Anthropic stand-in scripted: a good order is
 * applied (maxResults, explanations, usage and cost from tokens), a partial, a duplicated, an
 * invented and an unreadable order are each sent back once and the corrected order used with a
 * warning (nothing dropped or added; twice unusable is model_bad_output, tests/llm), only the two
 * allowed models pass, input bounds are 400s, a model failure is a 502 model_unavailable, and
 * the public endpoint is rate-limited per client address (the TCP peer the gateway vouches for,
 * whatever X-Forwarded-For / X-Real-IP the client writes) and by a global budget of model calls
 * (429 with Retry-After). Requests come from distinct loopback addresses (127.0.0.x, all
 * loopback on Linux) through Deno.createHttpClient's localAddress, so each call site is its
 * own client as the gateway sees it.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";

const RESULTS = [
  { id: "p1", name: "Oak parquet 14 mm", description: "Engineered oak flooring", relevanceScore: 0.9 },
  { id: "p2", name: "Porcelain tile 60x60", description: "Matt grey floor tile", relevanceScore: 0.8 },
  { id: "p3", name: "Tile adhesive C2TE", description: "Cement adhesive for porcelain", relevanceScore: 0.7 },
  { id: "p4", name: "Grout 2 kg", description: "Flexible grout", category: "tiling", relevanceScore: 0.6 },
];

let ip = 10;
/** A fresh client address per call site, so the rate limit of one case does not touch the next. */
const nextIp = () => `127.0.0.${++ip}`;

const clients = new Map<string, Deno.HttpClient>();
/** An HTTP client whose connections leave from `peer`: the address the gateway sees. */
function from(peer: string): Deno.HttpClient {
  let c = clients.get(peer);
  if (!c) clients.set(peer, c = Deno.createHttpClient({ localAddress: peer }));
  return c;
}

async function rerank(p: Platform, body: unknown, clientIp = nextIp(), headers: Record<string, string> = {}) {
  // No Authorization, no apikey: the endpoint is public.
  const res = await fetch(`${p.url}/functions/v1/ai-rerank`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    client: from(clientIp),
  });
  // deno-lint-ignore no-explicit-any
  return { status: res.status, headers: res.headers, body: await res.json() as any };
}

/** Sets function env vars for the duration of `fn`. */
async function withEnv(p: Platform, vars: Record<string, string>, fn: () => Promise<void>) {
  const saved = { ...p.env };
  Object.assign(p.env, vars);
  try {
    await fn();
  } finally {
    for (const k of Object.keys(vars)) {
      if (saved[k] === undefined) delete p.env[k];
      else p.env[k] = saved[k];
    }
  }
}

function llm(p: Platform) {
  const s = p.sandbox!.get("anthropic");
  s.reset();
  return s;
}

const tool = (input: Record<string, unknown>) => ({ toolUse: [{ name: "submit_ranking", input }] });

platformTest(
  "a good order is applied: maxResults, explanations, usage, cost, allowed model ids",
  async (p) => {
    const s = llm(p);
    s.reply(tool({
      ranked_ids: ["p3", "p2", "p4", "p1"],
      explanations: {
        p3: "Adhesive for porcelain tiles",
        p2: "The tile itself",
        p1: "Flooring, not tiling",
        zz: "x",
      },
    }));
    const r = await rerank(p, {
      query: "porcelain tile adhesive",
      results: RESULTS,
      maxResults: 2,
      includeExplanations: true,
      model: "vendor-haiku-4-5",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.rerankedResults.map((x: { id: string }) => x.id), ["p3", "p2"]);
    assert.deepEqual(r.body.rerankedResults[0], RESULTS[2]);
    assert.deepEqual(r.body.explanations, { p3: "Adhesive for porcelain tiles", p2: "The tile itself" });
    assert.equal(r.body.model, "vendor-haiku-4-5");
    assert.deepEqual(r.body.warnings, []);
    assert.equal(typeof r.body.processingTimeMs, "number");
    const { inputTokens, outputTokens } = r.body.usage;
    assert.ok(inputTokens > 0 && outputTokens > 0);
    // Haiku: 1 USD in, 5 USD out per million tokens.
    assert.equal(r.body.cost, (inputTokens * 1 + outputTokens * 5) / 1e6);

    const [sent] = s.captures.requests();
    // deno-lint-ignore no-explicit-any
    const body = sent.body as any;
    assert.equal(body.model, "claude-haiku-4-5");
    assert.deepEqual(body.tool_choice, { type: "tool", name: "submit_ranking" });
    assert.match(body.messages[0].content, /porcelain tile adhesive/);
    for (const x of RESULTS) assert.match(body.messages[0].content, new RegExp(`"id":"${x.id}"`));

    // Defaults: sonnet, every result, no explanations.
    s.reply(tool({ ranked_ids: ["p4", "p3", "p2", "p1"] }));
    const d = await rerank(p, { query: "grout", results: RESULTS });
    assert.equal(d.status, 200);
    assert.equal(d.body.model, "vendor-sonnet-4-5");
    assert.deepEqual(d.body.rerankedResults.map((x: { id: string }) => x.id), ["p4", "p3", "p2", "p1"]);
    assert.deepEqual(d.body.explanations, {});
    assert.equal(d.body.cost, (d.body.usage.inputTokens * 3 + d.body.usage.outputTokens * 15) / 1e6);
    assert.equal((s.captures.requests()[1].body as { model: string }).model, "claude-sonnet-4-6");
  },
);

platformTest(
  "partial, duplicated, invented and unreadable orders are sent back once: the corrected order is used, with a warning",
  async (p) => {
    const s = llm(p);
    const good = tool({ ranked_ids: ["p4", "p1", "p2", "p3"], explanations: { p4: "Grout first" } });
    const cases: [string, unknown, RegExp][] = [
      ["partial", tool({ ranked_ids: ["p2", "p1"] }), /2 id\(s\) missing \(p3, p4\)/],
      ["duplicated", tool({ ranked_ids: ["p2", "p2", "p1", "p3", "p4"] }), /1 id\(s\) duplicated \(p2\)/],
      [
        "invented",
        tool({ ranked_ids: ["p2", "p1", "p3", "p9"] }),
        /1 id\(s\) missing \(p4\); 1 unknown id\(s\) \(p9\)/,
      ],
      ["not a list", tool({ ranked_ids: "p2,p1,p3,p4" }), /ranked_ids/],
      ["prose", "I think p2 is best, then p1.", /did not call submit_ranking/],
    ];
    for (const [name, reply, why] of cases) {
      s.reset();
      s.reply(reply as never, good);
      const r = await rerank(p, { query: "tiles", results: RESULTS, includeExplanations: true });
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(
        r.body.rerankedResults.map((x: { id: string }) => x.id),
        ["p4", "p1", "p2", "p3"],
        name,
      );
      assert.equal(r.body.warnings.length, 1, name);
      assert.match(r.body.warnings[0], why, name);
      assert.match(r.body.warnings[0], /corrected order is used/, name);
      assert.deepEqual(r.body.explanations, { p4: "Grout first" }, name);
      // The second ask quoted the problem back to the model.
      const sent = s.captures.requests();
      assert.equal(sent.length, 2, name);
      assert.match(JSON.stringify((sent[1].body as { messages: unknown[] }).messages.slice(1)), why, name);
    }
  },
);

platformTest("bad input is a 400 naming the problem; a model failure is a 502", async (p) => {
  const s = llm(p);
  const bad: [unknown, RegExp][] = [
    [
      { query: "x", results: RESULTS, model: "gpt-4" },
      /model must be one of vendor-sonnet-4-5, vendor-haiku-4-5/,
    ],
    [{ query: "x", results: RESULTS, model: "claude-sonnet-4-6" }, /model/],
    [{ results: RESULTS }, /query/],
    [{ query: "   ", results: RESULTS }, /query must not be empty/],
    [{ query: "x", results: [] }, /at least one candidate/],
    [{ query: "x", results: [RESULTS[0], RESULTS[0]] }, /ids must be unique/],
    [{ query: "x", results: [{ id: "a", name: "n" }] }, /relevanceScore|description/],
    [{ query: "x", results: RESULTS, maxResults: 0 }, /maxResults/],
    [{ query: "x".repeat(1001), results: RESULTS }, /query/],
    [
      { query: "x", results: Array.from({ length: 101 }, (_, i) => ({ ...RESULTS[0], id: `id${i}` })) },
      /at most 100 results/,
    ],
  ];
  for (const [body, why] of bad) {
    const r = await rerank(p, body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    assert.match(JSON.stringify(r.body), why);
  }
  const notJson = await rerank(p, "{nope");
  assert.equal(notJson.status, 400);
  const huge = await rerank(p, { query: "x", results: RESULTS, pad: "x".repeat(1024 * 1024) });
  assert.equal(huge.status, 413);
  assert.equal(s.captures.requests().length, 0, "no bad request reached the model");

  s.failNext(529, { message: "Overloaded", times: 2 });
  const down = await rerank(p, { query: "x", results: RESULTS });
  assert.equal(down.status, 502);
  assert.equal(down.body.code, "model_unavailable");
  assert.match(down.body.error, /HTTP 529/);
  assert.equal(down.body.details.provider_status, 529);
});

platformTest(
  "per client: rewriting X-Forwarded-For or X-Real-IP per request does not escape the limit",
  async (p) => {
    const s = llm(p);
    // A one-hour window: the requests cannot straddle a window boundary.
    await withEnv(p, { RERANK_RATE_LIMIT: "3", RERANK_RATE_WINDOW_SECONDS: "3600" }, async () => {
      const client = nextIp();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        s.reply(tool({ ranked_ids: ["p1", "p2", "p3", "p4"] }));
        const r = await rerank(p, { query: "x", results: RESULTS }, client, {
          "x-forwarded-for": `203.0.113.${i}, 198.51.100.${i}`,
          "x-real-ip": `192.0.2.${i}`,
        });
        statuses.push(r.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      // Invalid requests count too; without any header the same peer is the same client.
      const limited = await rerank(p, { query: "x" }, client);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, "rate_limited");
      const retry = Number(limited.headers.get("retry-after"));
      assert.ok(retry >= 1 && retry <= 3600, `Retry-After ${retry}`);
      assert.deepEqual(limited.body.details, {
        scope: "client",
        limit: 3,
        window_seconds: 3600,
        retry_after: retry,
      });
      assert.match(limited.body.error, /3 requests per client per 3600 s/);
      // The budget is the peer's, whatever the headers said.
      const rows = await p.db.query<{ key: string; hits: number }>(
        `select key, hits from public.rate_limit_windows where scope = 'ai-rerank:client' and key = $1`,
        [client],
      );
      assert.deepEqual(rows.rows.map((r) => ({ ...r })), [{ key: client, hits: 5 }]);
      // Another client has its own budget, even when it claims to be the limited one.
      s.reply(tool({ ranked_ids: ["p1", "p2", "p3", "p4"] }));
      const other = await rerank(p, { query: "x", results: RESULTS }, nextIp(), {
        "x-forwarded-for": client,
        "x-real-ip": client,
      });
      assert.equal(other.status, 200);
      assert.equal(s.captures.requests().length, 4, "three calls of the limited client, one of the other");
    });
  },
);

platformTest("global: a budget of model calls caps many distinct clients together", async (p) => {
  const s = llm(p);
  await p.db.query(`delete from public.rate_limit_windows where scope = 'ai-rerank:global'`);
  await withEnv(p, { RERANK_GLOBAL_LIMIT: "2", RERANK_GLOBAL_WINDOW_SECONDS: "3600" }, async () => {
    // A request that never reaches the model spends no model call.
    assert.equal((await rerank(p, { query: "x" })).status, 400);
    const statuses: number[] = [];
    const answers = [];
    for (let i = 0; i < 5; i++) {
      s.reply(tool({ ranked_ids: ["p1", "p2", "p3", "p4"] }));
      const r = await rerank(p, { query: "x", results: RESULTS });
      statuses.push(r.status);
      answers.push(r);
    }
    assert.deepEqual(statuses, [200, 200, 429, 429, 429]);
    const limited = answers[2];
    assert.equal(limited.body.code, "rate_limited");
    const retry = Number(limited.headers.get("retry-after"));
    assert.ok(retry >= 1 && retry <= 3600, `Retry-After ${retry}`);
    assert.deepEqual(limited.body.details, {
      scope: "global",
      limit: 2,
      window_seconds: 3600,
      retry_after: retry,
    });
    assert.match(limited.body.error, /2 model calls for all clients per 3600 s/);
    assert.equal(s.captures.requests().length, 2, "the model was called twice");
  });
});
