/**
 * The pure parts of RAG retrieval: MMR selection, citation grounding of a model reply, the answer
 * schema and its citation check, the chat retrieval query and multi-vector weights.
 */
import assert from "node:assert/strict";
import { mmr, parseVector, resolveWeights } from "../../../packages/shared/rag/search.ts";
import type { ChunkRow } from "../../../packages/shared/rag/search.ts";
import {
  answerSchema,
  chatRetrievalQuery,
  citationProblem,
  contextOf,
  groundAnswer,
  NOT_FOUND_ANSWER,
} from "../../../packages/shared/rag/answer.ts";

Deno.test("mmr: lambda 1 is relevance order; lower lambda skips near-duplicates", () => {
  const cands = [
    { id: "a", relevance: 0.9, embedding: [1, 0, 0] },
    { id: "a2", relevance: 0.89, embedding: [0.999, 0.045, 0] },
    { id: "b", relevance: 0.6, embedding: [0, 1, 0] },
    { id: "c", relevance: 0.5, embedding: [0, 0, 1] },
  ];
  const cases: [number, string[]][] = [
    [1, ["a", "a2", "b"]],
    [0.5, ["a", "b", "c"]],
    [0, ["a", "b", "c"]],
  ];
  for (const [lambda, want] of cases) {
    assert.deepEqual(mmr(cands, 3, lambda).map((p) => p.id), want, `lambda ${lambda}`);
  }
  const picks = mmr(cands, 2, 0.5);
  assert.equal(picks[0].redundancy, 0);
  assert.ok(Math.abs(picks[1].redundancy) < 1e-9, "b is orthogonal to a");
  assert.deepEqual(mmr(cands, 10, 0.5).length, 4, "never more than the candidates");
  assert.deepEqual(mmr([], 3, 0.5), []);
});

const chunk = (id: string, vs: number): ChunkRow => ({
  chunk_id: id,
  document_id: "doc",
  workspace_id: "ws",
  document_filename: "f.pdf",
  chunk_index: 0,
  content: `text ${id}`,
  page_start: 2,
  page_end: 3,
  product_id: null,
  product_name: null,
  vector_score: vs,
  text_score: 0,
  vector_rank: 1,
  text_rank: null,
  score: vs,
  embedding: null,
});

Deno.test("grounding: only retrieved sources can be cited", () => {
  const sources = contextOf([chunk("c1", 0.5), chunk("c2", 0.3), chunk("c3", 0.05)], 0.12);
  assert.deepEqual(sources.map((s) => s.label), ["S1", "S2"], "under the threshold is not context");
  const cases: [
    string,
    Parameters<typeof groundAnswer>[0],
    { found: boolean; cited: string[]; invalid: string[] },
  ][] = [
    ["valid markers", { found: true, answer: "A [S1] and B [S2].", citations: [] }, {
      found: true,
      cited: ["c1", "c2"],
      invalid: [],
    }],
    ["invented marker dropped", { found: true, answer: "A [S1], C [S7].", citations: ["S7"] }, {
      found: true,
      cited: ["c1"],
      invalid: ["S7"],
    }],
    ["chunk id as citation", { found: true, answer: "A.", citations: ["c2"] }, {
      found: true,
      cited: ["c2"],
      invalid: [],
    }],
    ["nothing valid cited: withheld", { found: true, answer: "A [S9].", citations: ["zzz"] }, {
      found: false,
      cited: [],
      invalid: ["zzz", "S9"],
    }],
    ["model says not found", { found: false, answer: "Not in the sources.", citations: [] }, {
      found: false,
      cited: [],
      invalid: [],
    }],
  ];
  for (const [name, reply, want] of cases) {
    const g = groundAnswer(reply, sources);
    assert.equal(g.found, want.found, name);
    assert.deepEqual(g.citations.map((c) => c.chunk_id), want.cited, name);
    assert.deepEqual(g.invalid_citations.sort(), want.invalid.sort(), name);
    assert.ok(!/\[S[3-9]\]/.test(g.answer), `${name}: invented markers are removed`);
  }
  const withheld = groundAnswer({ found: true, answer: "Made up.", citations: [] }, sources);
  assert.equal(withheld.answer, NOT_FOUND_ANSWER);
  const c = groundAnswer({ found: true, answer: "[S2]", citations: [] }, sources).citations[0];
  assert.deepEqual([c.label, c.document_id, c.page_start, c.page_end], ["S2", "doc", 2, 3]);
});

Deno.test("answer schema and check: only the given sources' labels may be cited", () => {
  const sources = contextOf([chunk("c1", 0.5), chunk("c2", 0.3)], 0.12);
  const schema = answerSchema(sources);
  assert.deepEqual(schema.parse({ found: true, answer: "x [S2]", citations: ["S2"] }), {
    found: true,
    answer: "x [S2]",
    citations: ["S2"],
  });
  assert.deepEqual(schema.parse({ found: false, answer: "no" }).citations, []);
  for (
    const bad of [
      { found: "yes", answer: "x" },
      { found: true, answer: "" },
      { found: true, answer: "x", citations: ["S3"] },
      { found: true, answer: "x", citations: ["c1"] },
    ]
  ) {
    assert.equal(schema.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.equal(citationProblem({ found: true, answer: "A [S1][S2].", citations: ["S1"] }, sources), null);
  assert.equal(
    citationProblem({ found: true, answer: "A [S1], B [S4], C [S4] [S9].", citations: [] }, sources),
    "the answer cites [S4], [S9], which are not among the sources (S1, S2)",
  );
});

Deno.test("chat retrieval query: short follow-ups carry the previous user turn", () => {
  const history = [{ role: "user", content: "How do I seal slate?" }, {
    role: "assistant",
    content: "Seal it.",
  }];
  assert.equal(chatRetrievalQuery("And outdoors?", history), "How do I seal slate?\nAnd outdoors?");
  const long = "Which adhesive do I need for large format porcelain tiles on a heated floor?";
  assert.equal(chatRetrievalQuery(long, history), long);
  assert.equal(chatRetrievalQuery("Hi?", []), "Hi?");
});

Deno.test("weights and vectors", () => {
  assert.equal(resolveWeights(undefined).text, 0.5);
  assert.equal(resolveWeights({ visual: 1 }).visual, 1);
  assert.throws(
    () => resolveWeights({ text: 0, visual: 0, color: 0, texture: 0, style: 0, material: 0 }),
    RangeError,
  );
  assert.deepEqual(parseVector("[1,-0.5,2e-3]"), [1, -0.5, 0.002]);
  assert.equal(parseVector(null), null);
  assert.throws(() => parseVector("1,2"));
});
