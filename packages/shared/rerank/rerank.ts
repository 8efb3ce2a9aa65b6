/**
 * Re-ranking search candidates with a language model (spec "Re-rank"). Stages: prompt (the
 * query and compact candidates) -> model call (the platform's model layer, ../llm: a forced
 * `submit_ranking` tool call validated with zod) -> check the proposed order is a permutation of
 * the given ids (`check`: every id exactly once, nothing else) -> apply it -> cost from usage.
 *
 * The model never adds or drops a result. An order that is not a permutation (missing,
 * duplicated or invented ids) or input that does not match the schema is sent back once with the
 * problem quoted; the corrected order is used (`warnings` says what the first answer got wrong),
 * a second unusable answer is `model_bad_output` (502). A model that cannot be reached or answers
 * an error is `model_unavailable` (502; 503 when not configured), never a made-up order.
 *
 * Cost (USD): the layer's estimate from the tokens of every attempt at the list prices of the
 * provider model sent (llm/models.ts MODEL_PRICES); 0 for a model without a listed price.
 */
import { z } from "zod";
import type { Llm } from "../llm/mod.ts";
import type { RerankRequest, RerankResponse, SearchResult } from "./schemas.ts";

/** What the model sees of a description. */
const DESCRIPTION_CHARS = 500;
/** Room for up to 100 ids and, when asked for, one short explanation each. */
const MAX_OUTPUT_TOKENS = 8192;
const TOOL_NAME = "submit_ranking";

const SYSTEM = `You re-rank search results of a building-materials catalog for a search query.
Order the candidates from most to least useful for the query, judging by the query's intent,
product type, material, dimensions and usage; the first-pass scores are hints, not the answer.
Call the ${TOOL_NAME} tool once with ranked_ids: every candidate id exactly once, no other ids.`;

export function buildPrompt(req: RerankRequest): string {
  const candidates = req.results.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description.length > DESCRIPTION_CHARS
      ? `${r.description.slice(0, DESCRIPTION_CHARS)}...`
      : r.description,
    ...(r.category ? { category: r.category } : {}),
    relevanceScore: r.relevanceScore,
    ...(r.semanticScore !== undefined ? { semanticScore: r.semanticScore } : {}),
  }));
  return [
    `Query: ${JSON.stringify(req.query)}`,
    `Candidates (${candidates.length}, first-pass order):`,
    JSON.stringify(candidates),
    req.includeExplanations
      ? "Also give explanations: for each id, one short sentence on why it sits where it does."
      : "Do not give explanations.",
  ].join("\n");
}

const RankedIds = z.array(z.string()).describe("every candidate id exactly once");
const Ranking = z.object({ ranked_ids: RankedIds });
const ExplainedRanking = z.object({
  ranked_ids: RankedIds,
  explanations: z.record(z.string(), z.string()).optional().describe("id -> one short sentence"),
});

/** Why `ids` is not a permutation of `given`, or null when it is. */
export function permutationProblem(ids: unknown, given: readonly string[]): string | null {
  if (!Array.isArray(ids)) return "the model's output has no list of ids";
  if (ids.some((x) => typeof x !== "string")) return "the model's list holds values that are not ids";
  const known = new Set(given);
  const seen = new Set<string>();
  const duplicated = new Set<string>();
  const invented: string[] = [];
  for (const id of ids as string[]) {
    if (!known.has(id)) invented.push(id);
    else if (seen.has(id)) duplicated.add(id);
    seen.add(id);
  }
  const missing = given.filter((id) => !seen.has(id));
  const parts: string[] = [];
  if (missing.length) parts.push(`${missing.length} id(s) missing (${missing.slice(0, 5).join(", ")})`);
  if (duplicated.size) {
    parts.push(`${duplicated.size} id(s) duplicated (${[...duplicated].slice(0, 5).join(", ")})`);
  }
  if (invented.length) {
    parts.push(
      `${invented.length} unknown id(s) (${invented.slice(0, 5).map((s) => s.slice(0, 60)).join(", ")})`,
    );
  }
  return parts.length ? `the model's order is not a permutation of the given ids: ${parts.join("; ")}` : null;
}

function explanationsOf(raw: unknown, given: readonly string[]): Record<string, string> {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return {};
  const out: Record<string, string> = {};
  for (const id of given) {
    const v = (raw as Record<string, unknown>)[id];
    if (typeof v === "string" && v.trim()) out[id] = v.trim().slice(0, 500);
  }
  return out;
}

export async function rerank(llm: Llm, req: RerankRequest): Promise<RerankResponse> {
  const t0 = performance.now();
  const ids = req.results.map((r) => r.id);
  let firstProblem: string | null = null;
  const r = await llm.structured(req.includeExplanations ? ExplainedRanking : Ranking, {
    model: req.model,
    purpose: "Re-rank",
    system: SYSTEM,
    prompt: buildPrompt(req),
    tool: TOOL_NAME,
    description: "Submit the candidates' ids from most to least relevant",
    maxTokens: MAX_OUTPUT_TOKENS,
    check: (v) => permutationProblem(v.ranked_ids, ids),
    onCall: (call) => {
      if (call.attempt === 1 && !call.ok) firstProblem = call.error;
    },
  });
  const byId = new Map(req.results.map((x) => [x.id, x]));
  const ordered: SearchResult[] = r.value.ranked_ids.map((id) => byId.get(id)!);
  const rerankedResults = ordered.slice(0, req.maxResults ?? ordered.length);
  let explanations: Record<string, string> = {};
  if (req.includeExplanations) {
    const shown = rerankedResults.map((x) => x.id);
    explanations = explanationsOf((r.value as z.infer<typeof ExplainedRanking>).explanations, shown);
  }
  return {
    rerankedResults,
    explanations,
    processingTimeMs: Math.round(performance.now() - t0),
    model: req.model,
    cost: r.cost_usd ?? 0,
    usage: { inputTokens: r.usage.input_tokens, outputTokens: r.usage.output_tokens },
    warnings: firstProblem
      ? [`the first answer was refused (${firstProblem}); the corrected order is used`]
      : [],
  };
}
