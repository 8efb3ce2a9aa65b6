/**
 * rag_query and rag_chat through ai-gateway with the scripted model stand-in (answers are
 * answer_from_sources tool calls): answers grounded in retrieved chunks with citations (chunk,
 * document, pages), invented citations sent back to the model once, no model call without
 * context, client-kept chat history, model failures (model_unavailable) and unusable answers
 * (model_bad_output) refunded.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn, ScriptedReply } from "../../stack/sandbox/providers/anthropic.ts";
import { balance, gateway, type Json, ok, world } from "./helpers.ts";

function llm(p: Platform): AnthropicStandIn {
  const s = p.sandbox!.get("anthropic");
  s.reset();
  return s;
}

const modelCalls = (s: AnthropicStandIn) => s.captures.requests().filter((r) => r.path.endsWith("/messages"));

/** The model's answer: a call of the answer tool. */
const answer = (input: Record<string, unknown>): ScriptedReply => ({
  toolUse: [{ name: "answer_from_sources", input }],
});

platformTest(
  "rag_query: a grounded answer with citations; invented ones sent back once; billed 1",
  async (p) => {
    const w = await world(p, "rag-q1");
    const s = llm(p);
    s.reply(
      answer({
        found: true,
        answer: "Nordic Oak Plank is 14 mm thick with a 3.5 mm oak wear layer [S1]. It costs 12 euros [S9].",
        citations: ["S1"],
      }),
      answer({
        found: true,
        answer: "Nordic Oak Plank is 14 mm thick with a 3.5 mm oak wear layer [S1].",
        citations: ["S1"],
      }),
    );
    const uid = w.t.member.id;
    const before = await balance(p, uid);
    const r = await gateway(p, w.t.member.accessToken, "rag_query", {
      query: "How thick is the Nordic Oak Plank wear layer?",
      workspace_id: w.t.ws,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(await balance(p, uid), before - 1, "rag_query is priced default (1 credit)");
    const d = r.body.data;
    assert.equal(d.found, true);
    assert.equal(d.answer, "Nordic Oak Plank is 14 mm thick with a 3.5 mm oak wear layer [S1].");
    assert.equal(d.citations.length, 1);
    const c = d.citations[0];
    assert.equal(w.corpus.keyOf[c.chunk_id], "A0");
    assert.deepEqual([c.document_id, c.document_filename, c.page_start, c.page_end], [
      w.corpus.ids.A,
      "oak-flooring-2026.pdf",
      1,
      1,
    ]);
    assert.deepEqual(d.invalid_citations, []);
    assert.deepEqual(d.warnings, []);
    assert.ok(d.sources.length >= 1 && d.sources[0].label === "S1");
    // The invented [S9] was quoted back to the model, which answered again.
    const [call, retry] = modelCalls(s);
    assert.match(
      JSON.stringify((retry.body as Json).messages.at(-1)),
      /cites \[S9\], which is not among the sources/,
    );
    // The model saw only retrieved chunks of the caller's workspace, labelled as sources, and
    // may cite only their labels.
    const body = call.body as Json;
    assert.equal(body.tool_choice.name, "answer_from_sources");
    assert.deepEqual(
      body.tools[0].input_schema.properties.citations.items.enum,
      d.sources.map((x: Json) => x.label),
    );
    const prompt = body.messages.at(-1).content as string;
    assert.match(prompt, /\[S1\] \(oak-flooring-2026\.pdf, page 1, product Nordic Oak Plank\)/);
    assert.ok(!prompt.includes("Confidential"), "never another workspace's chunk");
    assert.match(body.system, /ONLY the numbered sources/);
  },
);

platformTest(
  "rag_query: no context above the threshold is a not-found answer without a model call",
  async (p) => {
    const w = await world(p, "rag-q2");
    const s = llm(p);
    const uid = w.t.member.id;
    const before = await balance(p, uid);
    const d = await ok(p, w.t.member.accessToken, "rag_query", {
      query: "quarterly revenue of the marketing department",
      workspace_id: w.t.ws,
    });
    assert.equal(d.found, false);
    assert.match(d.answer, /could not find/);
    assert.deepEqual(d.citations, []);
    assert.equal(d.model, null);
    assert.equal(modelCalls(s).length, 0, "the model is not called");
    assert.equal(await balance(p, uid), before - 1, "the retrieval was done and is billed");
    // A model that cites nothing has its answer withheld.
    s.reply(answer({ found: true, answer: "Oak is a tree.", citations: [] }));
    const uncited = await ok(p, w.t.member.accessToken, "rag_query", {
      query: "Nordic Oak Plank finish options",
    });
    assert.equal(uncited.found, false);
    assert.match(uncited.warnings.join(" "), /cited no retrieved source/);
    // The model's own "not found".
    s.reply(answer({ found: false, answer: "The sources do not say.", citations: [] }));
    const nf = await ok(p, w.t.member.accessToken, "rag_query", { query: "Nordic Oak Plank warranty years" });
    assert.deepEqual([nf.found, nf.answer, nf.citations], [false, "The sources do not say.", []]);
  },
);

platformTest("rag_query failures are refunded: model error, bad reply, outsider workspace", async (p) => {
  const w = await world(p, "rag-q3");
  const s = llm(p);
  const tok = w.t.member.accessToken;
  const uid = w.t.member.id;
  const q = { query: "Welsh Slate Tile frost resistant", workspace_id: w.t.ws };
  let before = await balance(p, uid);
  s.failNext(529, { times: 2 });
  const down = await gateway(p, tok, "rag_query", q);
  assert.equal(down.status, 502, JSON.stringify(down.body));
  assert.equal(down.body.code, "model_unavailable");
  assert.equal(await balance(p, uid), before, "refunded");
  assert.equal(down.body.billing.refunded, 1);

  before = await balance(p, uid);
  s.reply("Sure! Slate is great.", "Slate is great, really.");
  const prose = await gateway(p, tok, "rag_query", q);
  assert.equal(prose.status, 502);
  assert.equal(prose.body.code, "model_bad_output");
  assert.equal(await balance(p, uid), before);

  before = await balance(p, uid);
  s.reply(answer({ found: "yes", answer: 3 }), answer({ found: true, answer: "x [S1]", citations: ["S77"] }));
  const wrongShape = await gateway(p, tok, "rag_query", q);
  assert.equal(wrongShape.status, 502);
  assert.equal(wrongShape.body.code, "model_bad_output");
  assert.equal(await balance(p, uid), before);

  const outsider = await gateway(p, w.t.outsider.accessToken, "rag_query", q);
  assert.equal(outsider.status, 404);
  const empty = await gateway(p, tok, "rag_query", { query: "   " });
  assert.equal(empty.status, 400);
});

platformTest(
  "rag_chat: client-kept history reaches the model; follow-ups retrieve with context",
  async (p) => {
    const w = await world(p, "rag-c");
    const s = llm(p);
    const tok = w.t.member.accessToken;
    s.reply(
      answer({ found: true, answer: "Use an impregnating sealer after grouting [S1].", citations: ["S1"] }),
    );
    const first = await ok(p, tok, "rag_chat", {
      message: "How do I seal Welsh slate tiles?",
      workspace_id: w.t.ws,
    });
    assert.equal(first.found, true);
    assert.equal(first.citations[0].chunk_id, first.sources[0].chunk_id, "S1 is the first source");
    assert.match(w.corpus.keyOf[first.citations[0].chunk_id], /^B\d$/, "a chunk of the slate document");
    assert.equal(first.history.length, 2);
    assert.deepEqual(first.history[0], { role: "user", content: "How do I seal Welsh slate tiles?" });

    s.reply(answer({ found: true, answer: "It is frost resistant [S1].", citations: ["S1"] }));
    const second = await ok(p, tok, "rag_chat", {
      message: "And outdoors?",
      history: first.history,
      workspace_id: w.t.ws,
    });
    assert.equal(second.history.length, 4);
    const calls = modelCalls(s);
    const sent = (calls.at(-1)!.body as Json).messages;
    assert.equal(sent.length, 3, "two history turns and the new question");
    assert.deepEqual(sent[0], { role: "user", content: "How do I seal Welsh slate tiles?" });
    assert.equal(sent[1].role, "assistant");
    assert.ok(
      second.sources.some((x: Json) => w.corpus.keyOf[x.chunk_id] === "B0"),
      "the short follow-up was retrieved together with the previous question",
    );
    const badHistory = await gateway(p, tok, "rag_chat", {
      message: "hi",
      history: [{ role: "assistant", content: "hello" }],
    });
    assert.equal(badHistory.status, 400);
    assert.match(JSON.stringify(badHistory.body), /history/);
  },
);
