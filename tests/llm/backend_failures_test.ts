/**
 * The AI backend's AI services, image analysis and RAG answers on the model layer
 * (packages/shared/llm), through ai-gateway:
 *
 * - a model that cannot be reached (the provider fails twice: the SDK's one retry too) is a 502
 *   `model_unavailable` naming the provider's status; an answer malformed twice (a forced tool
 *   call whose input fails the schema) is a 502 `model_bad_output`; no configured model is a 503
 *   `model_unavailable` without a model call. Each is refunded exactly once (one debit, one
 *   refund naming it), every attempt is recorded, and nothing is half-written (no stored upload);
 * - with NOTHING scripted, the sandbox's model classifies a document (the enum value its words
 *   match) and answers rag_query grounded in a retrieved chunk it cites.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn } from "../../stack/sandbox/providers/anthropic.ts";
import { createTeam, gateway, type GatewayAnswer } from "../ai/helpers.ts";
import { balance } from "../helpers/team.ts";
import { pngBase64, RED } from "../ai_services/helpers.ts";
import { world } from "../rag/helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function llm(p: Platform): AnthropicStandIn {
  const s = p.sandbox!.get("anthropic");
  s.reset();
  return s;
}

const q = async (p: Platform, sql: string, params: unknown[] = []): Promise<Json[]> =>
  (await p.db.query<Json>(sql, params)).rows;

const modelRequests = (s: AnthropicStandIn) =>
  s.captures.requests().filter((r) => r.path.endsWith("/messages"));

/** A forced tool call whose input fits no schema. */
const wrong = (tool: string) => ({ toolUse: [{ name: tool, input: { wrong: 1 } }] });

/**
 * Calls the gateway and checks the money: the failure answers `status` with `code`, the balance
 * is unchanged, and the ledger holds exactly one debit of `cost` and one refund naming it.
 */
async function failsRefundedOnce(
  p: Platform,
  user: { id: string; accessToken: string },
  action: string,
  payload: Record<string, unknown>,
  status: number,
  code: string,
  cost = 1,
): Promise<GatewayAnswer> {
  const [{ now }] = await q(p, `select clock_timestamp() as now`);
  const before = await balance(p, user.id);
  const r = await gateway(p, user.accessToken, action, payload);
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.success, false);
  assert.equal(r.body.code, code, JSON.stringify(r.body));
  assert.equal(r.body.data, undefined, "nothing is passed on");
  assert.deepEqual(r.body.billing, { refunded: cost });
  assert.equal(r.headers.get("x-credits-refunded"), String(cost));
  assert.equal(await balance(p, user.id), before, "refunded");
  const moves = await q(
    p,
    `select id, kind, amount::float as amount, refund_of from public.credit_transactions
      where user_id = $1 and created_at >= $2 order by created_at, kind`,
    [user.id, now],
  );
  assert.deepEqual(moves.map((m) => [m.kind, m.amount]), [["debit", -cost], ["refund", cost]]);
  assert.equal(moves[1].refund_of, moves[0].id, "the refund names the debit");
  return r;
}

/** The ai_service_calls rows of a user's action since `since`, oldest first. */
const recorded = (p: Platform, userId: string, action: string) =>
  q(
    p,
    `select attempt, ok, error, provider, model, task_type, cost_usd::float as cost_usd from public.ai_service_calls
      where user_id = $1 and action = $2 order by created_at, attempt`,
    [userId, action],
  );

platformTest(
  "ai_classify_document: unreachable, malformed twice and not configured are refunded exactly once",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    const payload = { content: "Price list 2026: oak plank 45 EUR per m2", workspace_id: t.ws };

    s.failNext(500, { times: 2 });
    const down = await failsRefundedOnce(
      p,
      t.member,
      "ai_classify_document",
      payload,
      502,
      "model_unavailable",
    );
    assert.match(down.body.error, /^Document classification: the model provider answered HTTP 500/);
    assert.equal(down.body.details.provider, "anthropic");
    assert.equal(down.body.details.provider_status, 500);
    assert.equal(modelRequests(s).length, 2, "the SDK's one retry, then the failure");
    let calls = await recorded(p, t.member.id, "ai_classify_document");
    assert.deepEqual(calls.map((c) => [c.attempt, c.ok, c.provider, c.task_type]), [
      [1, false, "anthropic", "document_classification"],
    ]);
    assert.match(calls[0].error, /HTTP 500/);

    s.reset();
    s.reply(wrong("classify_document"), wrong("classify_document"));
    const bad = await failsRefundedOnce(
      p,
      t.member,
      "ai_classify_document",
      payload,
      502,
      "model_bad_output",
    );
    assert.equal(bad.body.details.attempts, 2);
    assert.match(bad.body.details.problem, /document_type/);
    const [first, second] = modelRequests(s).map((r) => r.body as Json);
    assert.equal(first.tool_choice.name, "classify_document");
    assert.match(JSON.stringify(second.messages.at(-1)), /rejected: .*document_type/);
    calls = (await recorded(p, t.member.id, "ai_classify_document")).slice(1);
    assert.deepEqual(calls.map((c) => [c.attempt, c.ok]), [[1, false], [2, false]]);
    assert.ok(calls.every((c) => c.cost_usd > 0), "answered attempts carry their estimated cost");
    assert.equal(
      (await recorded(p, t.member.id, "ai_classify_document"))[0].cost_usd,
      null,
      "nothing answered",
    );

    // No configured model: 503 before any model call, refunded.
    s.reset();
    const names = ["LLM_PROVIDER", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"];
    const saved = names.map((n) => p.env[n]);
    for (const n of names) p.env[n] = "";
    try {
      const off = await failsRefundedOnce(
        p,
        t.member,
        "ai_classify_document",
        payload,
        503,
        "model_unavailable",
      );
      assert.equal(off.body.details.reason, "not_configured");
      assert.equal(modelRequests(s).length, 0);
    } finally {
      names.forEach((n, i) => {
        if (saved[i] === undefined) delete p.env[n];
        else p.env[n] = saved[i];
      });
    }
  },
);

platformTest("rag_query: unreachable and malformed twice are refunded exactly once", async (p) => {
  const w = await world(p, "llm-rag");
  const s = llm(p);
  const payload = { query: "How thick is the Nordic Oak Plank wear layer?", workspace_id: w.t.ws };

  s.failNext(500, { times: 2 });
  const down = await failsRefundedOnce(p, w.t.member, "rag_query", payload, 502, "model_unavailable");
  assert.match(down.body.error, /^Grounded answer: the model provider answered HTTP 500/);
  assert.equal(modelRequests(s).length, 2);

  s.reset();
  s.reply(wrong("answer_from_sources"), wrong("answer_from_sources"));
  const bad = await failsRefundedOnce(p, w.t.member, "rag_query", payload, 502, "model_bad_output");
  assert.equal(bad.body.details.attempts, 2);
  assert.match(bad.body.details.problem, /found|answer/);
  assert.equal(modelRequests(s).length, 2);
});

platformTest(
  "images_upload_analyze: unreachable and malformed twice are refunded once and store nothing",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    const payload = { image_base64: await pngBase64(RED), filename: "red.png", workspace_id: t.ws };

    s.failNext(500, { times: 2 });
    const down = await failsRefundedOnce(
      p,
      t.member,
      "images_upload_analyze",
      payload,
      502,
      "model_unavailable",
    );
    assert.match(down.body.error, /^Image analysis: the model provider answered HTTP 500/);

    s.reset();
    s.reply(wrong("analyze_image"), wrong("analyze_image"));
    const bad = await failsRefundedOnce(
      p,
      t.member,
      "images_upload_analyze",
      payload,
      502,
      "model_bad_output",
    );
    assert.match(bad.body.details.problem, /material_type/);
    // The image went to the model as a vision block both times.
    assert.deepEqual(
      modelRequests(s).map((r) =>
        ((r.body as Json).messages[0].content as Json[]).filter((b) => b.type === "image").length
      ),
      [1, 1],
    );

    const [uploads] = await q(p, `select count(*)::int as n from public.image_uploads where user_id = $1`, [
      t.member.id,
    ]);
    assert.equal(uploads.n, 0, "no record");
    const [objects] = await q(
      p,
      `select count(*)::int as n from storage.objects where bucket_id = 'image-uploads' and name like $1`,
      [`${t.member.id}/%`],
    );
    assert.equal(objects.n, 0, "no stored file");
    const calls = await recorded(p, t.member.id, "images_upload_analyze");
    assert.deepEqual(calls.map((c) => [c.attempt, c.ok]), [[1, false], [1, false], [2, false]]);
  },
);

platformTest(
  "unscripted: the sandbox model classifies a document and answers RAG with a citation",
  async (p) => {
    const w = await world(p, "llm-rag-ok");
    const s = llm(p);
    const tok = w.t.member.accessToken;

    const before = await balance(p, w.t.member.id);
    const cls = await gateway(p, tok, "ai_classify_document", {
      content: "Price list 2026. Oak plank: 45 EUR per m2. Slate tile: 30 EUR per m2.",
      workspace_id: w.t.ws,
    });
    assert.equal(cls.status, 200, JSON.stringify(cls.body));
    const c = cls.body.data;
    assert.deepEqual(
      Object.keys(c).sort(),
      ["confidence", "document_type", "language", "summary", "model"].sort(),
    );
    assert.equal(c.document_type, "price_list", "the enum value whose words the text holds");
    assert.ok(c.confidence >= 0 && c.confidence <= 1);
    assert.equal(await balance(p, w.t.member.id), before - 1);

    const r = await gateway(p, tok, "rag_query", {
      query: "How thick is the Nordic Oak Plank wear layer?",
      workspace_id: w.t.ws,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(s.pendingReplies, 0, "nothing was scripted");
    const d = r.body.data;
    assert.equal(d.found, true, JSON.stringify(d));
    assert.ok(d.citations.length >= 1);
    assert.deepEqual(d.invalid_citations, []);
    const cited = d.citations[0];
    const source = d.sources.find((x: Json) => x.label === cited.label);
    assert.ok(source, "the citation names a retrieved source");
    assert.equal(source.chunk_id, cited.chunk_id);
    const [chunk] = await q(p, `select content, document_id from public.document_chunks where id = $1`, [
      cited.chunk_id,
    ]);
    assert.ok(chunk, "the cited chunk exists");
    assert.equal(chunk.document_id, cited.document_id);
    assert.equal(w.corpus.keyOf[cited.chunk_id], "A0", "the chunk about the wear layer");
    // The answer quotes the cited chunk, with its marker.
    assert.ok(d.answer.includes(`[${cited.label}]`), d.answer);
    const quoted = d.answer.replace(/\s*\[S\d+\]/g, "").trim();
    assert.ok(chunk.content.includes(quoted.replace(/[.…]$/, "")), `${quoted} | ${chunk.content}`);
    const call = modelRequests(s).at(-1)!;
    assert.equal((call.body as Json).tool_choice.name, "answer_from_sources");
    assert.equal(call.rule, "rag-answer", "the sandbox model's grounded-answer rule");
  },
);
