/**
 * Grounded answers (rag_query, rag_chat): retrieve chunks as the caller (retrieval.ts), keep
 * those above min_similarity as numbered sources, and ask the model layer for one structured
 * answer (answer.ts: the tool answer_from_sources, whose citations must name retrieved sources).
 * No source: the not-found answer, without a model call. A provider failure is
 * `model_unavailable` (502; 503 when no model is configured), an answer unusable twice
 * `model_bad_output` (502), both from the model layer.
 */
import type { z } from "zod";
import type { Llm } from "../llm/mod.ts";
import {
  ANSWER_TOOL,
  answerSchema,
  chatRetrievalQuery,
  citationProblem,
  contextOf,
  groundAnswer,
  NOT_FOUND_ANSWER,
  type Source,
  SYSTEM_PROMPT,
  userPrompt,
} from "./answer.ts";
import { type RetrievalDeps, searchChunks } from "./retrieval.ts";
import type { Filters, ragChatSchema, ragQuerySchema, TextMode } from "./schemas.ts";
import { chunkResult } from "./search.ts";

/** Retrieval, the model layer (built once a question has sources) and the model (RAG_MODEL). */
export interface AnswerDeps extends RetrievalDeps {
  llm: () => Llm;
  model: string;
}

interface AnswerArgs {
  question: string;
  retrievalQuery: string;
  history: { role: "user" | "assistant"; content: string }[];
  workspaceId?: string;
  topK: number;
  mode: TextMode;
  minSimilarity: number;
  filters: Filters;
  maxTokens: number;
}

async function answer(deps: AnswerDeps, a: AnswerArgs) {
  const rows = await searchChunks(deps, {
    query: a.retrievalQuery,
    mode: a.mode,
    count: a.topK,
    workspaceId: a.workspaceId,
    filters: a.filters,
  });
  const sources: Source[] = contextOf(rows, a.minSimilarity);
  const retrieval = {
    strategy: a.mode,
    top_k: a.topK,
    min_similarity: a.minSimilarity,
    retrieved: rows.length,
    context_chunks: sources.length,
  };
  const sourceList = sources.map((s) => ({ label: s.label, ...chunkResult(s.chunk, a.mode) }));
  if (sources.length === 0) {
    return {
      answer: NOT_FOUND_ANSWER,
      found: false,
      citations: [],
      invalid_citations: [],
      warnings: [],
      sources: [],
      model: null,
      usage: null,
      retrieval,
    };
  }
  const reply = await deps.llm().structured(answerSchema(sources), {
    model: deps.model,
    system: SYSTEM_PROMPT,
    messages: [...a.history, { role: "user", content: userPrompt(a.question, sources) }],
    maxTokens: a.maxTokens,
    purpose: "Grounded answer",
    tool: ANSWER_TOOL,
    description: "Give the answer from the numbered sources, with the labels of the sources it cites.",
    check: (v) => citationProblem(v, sources),
  });
  const grounded = groundAnswer(reply.value, sources);
  return {
    ...grounded,
    sources: sourceList,
    model: deps.model,
    usage: { input_tokens: reply.usage.input_tokens, output_tokens: reply.usage.output_tokens },
    retrieval,
  };
}

/** rag_query: `{query, answer, found, citations, invalid_citations, warnings, sources, model, usage, retrieval}`. */
export async function ragQuery(deps: AnswerDeps, input: z.infer<typeof ragQuerySchema>) {
  const out = await answer(deps, {
    question: input.query,
    retrievalQuery: input.query,
    history: [],
    workspaceId: input.workspace_id,
    topK: input.top_k,
    mode: input.strategy,
    minSimilarity: input.min_similarity,
    filters: { document_ids: input.document_ids, product_ids: input.product_ids },
    maxTokens: input.max_tokens,
  });
  return { query: input.query, ...out };
}

/** rag_chat: rag_query's answer to the next message, retrieved with the conversation, and the history with this turn. */
export async function ragChat(deps: AnswerDeps, input: z.infer<typeof ragChatSchema>) {
  const out = await answer(deps, {
    question: input.message,
    retrievalQuery: chatRetrievalQuery(input.message, input.history),
    history: input.history,
    workspaceId: input.workspace_id,
    topK: input.top_k,
    mode: input.strategy,
    minSimilarity: input.min_similarity,
    filters: { document_ids: input.document_ids, product_ids: input.product_ids },
    maxTokens: input.max_tokens,
  });
  return {
    message: input.message,
    ...out,
    history: [
      ...input.history,
      { role: "user", content: input.message },
      { role: "assistant", content: out.answer },
    ],
  };
}
