/**
 * Grounded answers for rag_query and rag_chat: which retrieved chunks are context, the prompt,
 * and the validation of the model's reply.
 *
 * - Context: the retrieved chunks whose vector_score (cosine similarity to the question) is at
 *   least min_similarity. None: the answer is NOT_FOUND_ANSWER with found false, and the model
 *   is not called (it never answers from nothing).
 * - Prompt: each context chunk is a numbered source [S1]..[Sn] with its document and pages; the
 *   model must answer only from them, citing with [Sn] markers, by calling ANSWER_TOOL with
 *   {found, answer, citations: source labels} (answerSchema: the labels are an enum of exactly
 *   the sources given).
 * - Validation (the model layer's structured call, packages/shared/llm): an answer that does not
 *   fit the schema, or whose text cites a marker that is not a given source (citationProblem, the
 *   call's check), is sent back once with the problem quoted; a second is `model_bad_output`
 *   (502; billing refunds). groundAnswer still drops anything that names no source and reports it
 *   in `invalid_citations`. An answer that says found but cites no source is withheld: the
 *   not-found answer plus a warning.
 */
import { z } from "zod";
import type { ChunkRow } from "./search.ts";
import { round } from "./search.ts";

export const NOT_FOUND_ANSWER =
  "I could not find this in your documents: no processed document passage is relevant enough to answer.";

export interface Source {
  label: string;
  chunk: ChunkRow;
}

/** The chunks good enough to answer from, labelled S1..Sn in retrieval order. */
export function contextOf(rows: readonly ChunkRow[], minSimilarity: number): Source[] {
  return rows.filter((r) => r.vector_score >= minSimilarity).map((chunk, i) => ({
    label: `S${i + 1}`,
    chunk,
  }));
}

/** The tool the model answers with. */
export const ANSWER_TOOL = "answer_from_sources";

export const SYSTEM_PROMPT = [
  "You answer questions about building-materials documents using ONLY the numbered sources given.",
  "Never use outside knowledge and never guess numbers. If the sources do not contain the answer,",
  "set found to false and say so briefly.",
  "Cite every statement with the source markers, e.g. [S1] or [S2][S3].",
  `Answer by calling ${ANSWER_TOOL} with found, the answer text with its markers and the labels of the`,
  "sources it cites.",
].join(" ");

export function sourcesBlock(sources: readonly Source[]): string {
  return sources.map(({ label, chunk }) => {
    const pages = chunk.page_start === chunk.page_end
      ? `page ${chunk.page_start}`
      : `pages ${chunk.page_start}-${chunk.page_end}`;
    const product = chunk.product_name ? `, product ${chunk.product_name}` : "";
    return `[${label}] (${
      chunk.document_filename ?? chunk.document_id
    }, ${pages}${product})\n${chunk.content}`;
  }).join("\n\n");
}

export function userPrompt(question: string, sources: readonly Source[]): string {
  return `Sources:\n\n${sourcesBlock(sources)}\n\nQuestion: ${question}`;
}

/** A source marker in an answer's text: [S1]. */
const MARKER = /\[(S\d+)\]/g;

/** The answer the model gives: the cited labels are an enum of exactly the given sources. */
export function answerSchema(sources: readonly Source[]) {
  const labels = sources.map((s) => s.label) as [string, ...string[]];
  return z.object({
    found: z.boolean().describe("Whether the sources contain the answer"),
    answer: z.string().trim().min(1).max(20_000).describe(
      "The answer, each statement cited with [Sn] markers",
    ),
    citations: z.array(z.enum(labels)).max(100).default([]).describe(
      "The labels of the sources the answer cites",
    ),
  });
}

export interface AnswerReply {
  found: boolean;
  answer: string;
  citations: string[];
}

/** The structured call's check: [Sn] markers in the text must name given sources. */
export function citationProblem(reply: AnswerReply, sources: readonly Source[]): string | null {
  const labels = new Set(sources.map((s) => s.label));
  const unknown = [...new Set([...reply.answer.matchAll(MARKER)].map((m) => m[1]))].filter((l) =>
    !labels.has(l)
  );
  if (unknown.length === 0) return null;
  return `the answer cites ${unknown.map((l) => `[${l}]`).join(", ")}, which ${
    unknown.length === 1 ? "is" : "are"
  } not among the sources (${[...labels].join(", ")})`;
}

export interface Citation {
  label: string;
  chunk_id: string;
  document_id: string;
  document_filename: string | null;
  page_start: number;
  page_end: number;
  product_id: string | null;
  score: number;
}

export interface GroundedAnswer {
  answer: string;
  found: boolean;
  citations: Citation[];
  /** Labels or ids the model cited that were not among the sources (dropped). */
  invalid_citations: string[];
  warnings: string[];
}

/** A cited label: `S2`, `[S2]` or the chunk id of a source. */
function labelOf(cited: string, sources: readonly Source[]): string | null {
  const s = cited.trim().replace(/^\[|\]$/g, "");
  const hit = sources.find((x) => x.label === s || x.chunk.chunk_id === s);
  return hit ? hit.label : null;
}

export function groundAnswer(reply: AnswerReply, sources: readonly Source[]): GroundedAnswer {
  const invalid = new Set<string>();
  const cited = new Set<string>();
  for (const c of reply.citations) {
    const l = labelOf(c, sources);
    if (l) cited.add(l);
    else invalid.add(c);
  }
  const answer = reply.answer.replace(MARKER, (m, label: string) => {
    if (sources.some((s) => s.label === label)) {
      cited.add(label);
      return m;
    }
    invalid.add(label);
    return "";
  }).replace(/[ \t]{2,}/g, " ").trim();
  const warnings: string[] = [];
  if (invalid.size) {
    warnings.push(`dropped citations of sources that were not retrieved: ${[...invalid].join(", ")}`);
  }
  if (!reply.found) {
    return {
      answer: answer || NOT_FOUND_ANSWER,
      found: false,
      citations: [],
      invalid_citations: [...invalid],
      warnings,
    };
  }
  if (cited.size === 0) {
    warnings.push("the model's answer cited no retrieved source, so it was withheld");
    return {
      answer: NOT_FOUND_ANSWER,
      found: false,
      citations: [],
      invalid_citations: [...invalid],
      warnings,
    };
  }
  const citations = sources.filter((s) => cited.has(s.label)).map(({ label, chunk }) => ({
    label,
    chunk_id: chunk.chunk_id,
    document_id: chunk.document_id,
    document_filename: chunk.document_filename,
    page_start: chunk.page_start,
    page_end: chunk.page_end,
    product_id: chunk.product_id,
    score: round(chunk.score)!,
  }));
  return { answer, found: true, citations, invalid_citations: [...invalid], warnings };
}

/**
 * The retrieval query of a chat turn: the message, plus the previous user turn when the message
 * is short (a follow-up such as "and in grey?" needs its antecedent to retrieve anything).
 */
export function chatRetrievalQuery(
  message: string,
  history: readonly { role: string; content: string }[],
): string {
  const words = message.split(/\s+/).filter(Boolean).length;
  if (words >= 8) return message;
  const prev = [...history].reverse().find((t) => t.role === "user");
  return prev ? `${prev.content}\n${message}` : message;
}
