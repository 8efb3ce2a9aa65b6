/**
 * rag_query and rag_chat through ai-gateway with the scripted model stand-in: answers grounded
 * in retrieved chunks with citations (chunk, document, pages), invented citations dropped, no
 * model call without context, client-kept chat history, model failures and bad replies refunded.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn } from "../../stack/sandbox/providers/anthropic.ts";
import { balance, gateway, type Json, ok, world } from "./helpers.ts";

function llm(p: Platform): AnthropicStandIn {
  const s = p.sandbox!.get("anthropic");
  s.reset();
  return s;
}

const modelCalls = (s: AnthropicStandIn) => s.captures.requests().filter((r) => r.path.endsWith("/messages"));

platformTest("rag_query: a grounded answer with citations; invented ones dropped; billed 1", async (p) => {
  const w = await world(p, "rag-q1");
  const s = llm(p);
  s.reply(JSON.stringify({
    found: true,
    answer: "Nordic Oak Plank is 14 mm thick with a 3.5 mm oak wear layer [S1]. It costs 12 euros [S9].",
    citations: ["S1", "S9", "not-a-chunk"],
  }));
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
  assert.equal(
    d.answer,
    "Nordic Oak Plank is 14 mm thick with a 3.5 mm oak wear layer [S1]. It costs 12 euros .",
  );
  assert.equal(d.citations.length, 1);
  const c = d.citations[0];
  assert.equal(w.corpus.keyOf[c.chunk_id], "A0");
  assert.deepEqual([c.document_id, c.document_filename, c.page_start, c.page_end], [
    w.corpus.ids.A,
    "oak-flooring-2026.pdf",
    1,
    1,
  ]);
  assert.deepEqual(d.invalid_citations.sort(), ["S9", "not-a-chunk"]);
  assert.match(d.warnings[0], /dropped citations/);
  assert.ok(d.sources.length >= 1 && d.sources[0].label === "S1");
  // The model saw only retrieved chunks of the caller's workspace, labelled as sources.
  const [call] = modelCalls(s);
  const body = call.body as Json;
  const prompt = body.messages.at(-1).content as string;
  assert.match(prompt, /\[S1\] \(oak-flooring-2026\.pdf, page 1, product Nordic Oak Plank\)/);
  assert.ok(!prompt.includes("Confidential"), "never another workspace's chunk");
  assert.match(body.system, /ONLY the numbered sources/);
});

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
    s.reply(JSON.stringify({ found: true, answer: "Oak is a tree.", citations: [] }));
    const uncited = await ok(p, w.t.member.accessToken, "rag_query", {
      query: "Nordic Oak Plank finish options",
    });
    assert.equal(uncited.found, false);
    assert.match(uncited.warnings.join(" "), /cited no retrieved source/);
    // The model's own "not found".
    s.reply(JSON.stringify({ found: false, answer: "The sources do not say.", citations: [] }));
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
  s.failNext(529);
  const down = await gateway(p, tok, "rag_query", q);
  assert.equal(down.status, 502, JSON.stringify(down.body));
  assert.equal(down.body.code, "llm_error");
  assert.equal(await balance(p, uid), before, "refunded");
  assert.equal(down.body.billing.refunded, 1);

  before = await balance(p, uid);
  s.reply("Sure! Slate is great.");
  const prose = await gateway(p, tok, "rag_query", q);
  assert.equal(prose.status, 502);
  assert.equal(prose.body.code, "llm_bad_reply");
  assert.equal(await balance(p, uid), before);

  before = await balance(p, uid);
  s.reply(JSON.stringify({ found: "yes", answer: 3 }));
  const wrongShape = await gateway(p, tok, "rag_query", q);
  assert.equal(wrongShape.status, 502);
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
      JSON.stringify({
        found: true,
        answer: "Use an impregnating sealer after grouting.",
        citations: [w.corpus.ids.B1],
      }),
    );
    const first = await ok(p, tok, "rag_chat", {
      message: "How do I seal Welsh slate tiles?",
      workspace_id: w.t.ws,
    });
    assert.equal(first.found, true);
    assert.equal(w.corpus.keyOf[first.citations[0].chunk_id], "B1");
    assert.equal(first.history.length, 2);
    assert.deepEqual(first.history[0], { role: "user", content: "How do I seal Welsh slate tiles?" });

    s.reply(JSON.stringify({ found: true, answer: "It is frost resistant [S1].", citations: ["S1"] }));
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
