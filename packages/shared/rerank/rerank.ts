/**
 * Re-ranking search candidates with a language model (spec "Re-rank"). Stages: prompt (the
 * query and compact candidates) -> model call (Anthropic Messages API, a forced `submit_ranking`
 * tool call) -> read the proposed order (the tool input, or JSON in a text reply) -> validate it
 * as a permutation of the given ids -> apply it (or keep the input order) -> cost from usage.
 *
 * The model never adds or drops a result: its order is used only when it names every given id
 * exactly once and nothing else. Anything else - missing, duplicated or invented ids, or output
 * that cannot be read - keeps the input order and says why in `warnings`. A model that cannot be
 * reached or answers an error is a DomainError (502 upstream; 503 when not configured), not a
 * made-up order.
 *
 * Cost (USD) = input tokens x input price + output tokens x output price, per million tokens,
 * at Anthropic's list prices of the model sent (MODEL_PRICES_USD_PER_MTOK), rounded to 1e-6.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { apiModelId } from "../agent/agents.ts";
import { DomainError } from "../errors.ts";
import type { RerankModel, RerankRequest, RerankResponse, SearchResult } from "./schemas.ts";

/** USD per million tokens, [input, output]. */
export const MODEL_PRICES_USD_PER_MTOK: Readonly<Record<RerankModel, readonly [number, number]>> = {
  "vendor-sonnet-4-5": [3, 15],
  "vendor-haiku-4-5": [1, 5],
};

/** What the model sees of a description. */
const DESCRIPTION_CHARS = 500;
/** Room for up to 100 ids and, when asked for, one short explanation each. */
const MAX_OUTPUT_TOKENS = 8192;
const TOOL_NAME = "submit_ranking";

const SYSTEM = `You re-rank search results of a building-materials catalog for a search query.
Order the candidates from most to least useful for the query, judging by the query's intent,
product type, material, dimensions and usage; the first-pass scores are hints, not the answer.
Call the ${TOOL_NAME} tool once with ranked_ids: every candidate id exactly once, no other ids.`;

export function costOf(model: RerankModel, usage: { inputTokens: number; outputTokens: number }): number {
  const [inPrice, outPrice] = MODEL_PRICES_USD_PER_MTOK[model];
  return Math.round(usage.inputTokens * inPrice + usage.outputTokens * outPrice) / 1e6;
}

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

function tool(includeExplanations: boolean) {
  return {
    name: TOOL_NAME,
    description: "Submit the candidates' ids from most to least relevant",
    input_schema: {
      type: "object" as const,
      properties: {
        ranked_ids: {
          type: "array",
          items: { type: "string" },
          description: "every candidate id exactly once",
        },
        ...(includeExplanations
          ? { explanations: { type: "object", additionalProperties: { type: "string" } } }
          : {}),
      },
      required: ["ranked_ids"],
    },
  };
}

export interface ProposedOrder {
  ids: unknown;
  explanations: unknown;
}

/** The order the model proposed: the tool input, else the first JSON value of its text; null if none. */
export function readProposal(content: readonly Anthropic.ContentBlock[]): ProposedOrder | null {
  const call = content.find((b) => b.type === "tool_use" && b.name === TOOL_NAME);
  if (call && call.type === "tool_use") {
    const input = call.input as Record<string, unknown> | null;
    return { ids: input?.ranked_ids, explanations: input?.explanations };
  }
  const text = content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlock).text).join(
    "\n",
  );
  const start = text.search(/[[{]/);
  if (start < 0) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, Math.max(text.lastIndexOf("]"), text.lastIndexOf("}")) + 1));
  } catch {
    return null; // unreadable output: the caller keeps the input order and warns
  }
  if (Array.isArray(parsed)) return { ids: parsed, explanations: undefined };
  if (parsed && typeof parsed === "object") {
    const o = parsed as Record<string, unknown>;
    return { ids: o.ranked_ids ?? o.order ?? o.ids, explanations: o.explanations };
  }
  return null;
}

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

export async function rerank(llm: Anthropic, req: RerankRequest): Promise<RerankResponse> {
  const t0 = performance.now();
  const ids = req.results.map((r) => r.id);
  let message: Anthropic.Message;
  try {
    message = await llm.messages.create({
      model: apiModelId(req.model),
      max_tokens: MAX_OUTPUT_TOKENS,
      system: SYSTEM,
      tools: [tool(req.includeExplanations)],
      tool_choice: { type: "tool", name: TOOL_NAME },
      messages: [{ role: "user", content: buildPrompt(req) }],
    });
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    throw new DomainError(
      "upstream",
      "rerank_model_failed",
      typeof status === "number"
        ? `The language model answered HTTP ${status}; nothing was re-ranked`
        : "The language model could not be reached; nothing was re-ranked",
    );
  }
  const usage = { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens };
  const proposal = readProposal(message.content);
  const warnings: string[] = [];
  let ordered: SearchResult[] = req.results;
  let explanations: Record<string, string> = {};
  const problem = proposal === null
    ? "the model's output could not be read as an order"
    : permutationProblem(proposal.ids, ids);
  if (problem === null && proposal) {
    const byId = new Map(req.results.map((r) => [r.id, r]));
    ordered = (proposal.ids as string[]).map((id) => byId.get(id)!);
    if (req.includeExplanations) explanations = explanationsOf(proposal.explanations, ids);
  } else {
    warnings.push(`${problem}; the input order is kept`);
  }
  const rerankedResults = ordered.slice(0, req.maxResults ?? ordered.length);
  if (req.includeExplanations) {
    const shown = new Set(rerankedResults.map((r) => r.id));
    explanations = Object.fromEntries(Object.entries(explanations).filter(([id]) => shown.has(id)));
  }
  return {
    rerankedResults,
    explanations,
    processingTimeMs: Math.round(performance.now() - t0),
    model: req.model,
    cost: costOf(req.model, usage),
    usage,
    warnings,
  };
}
