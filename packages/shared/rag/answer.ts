/**
 * Grounded answers for rag_query and rag_chat: which retrieved chunks are context, the prompt,
 * and the validation of the model's reply.
 *
 * - Context: the retrieved chunks whose vector_score (cosine similarity to the question) is at
 *   least min_similarity. None: the answer is NOT_FOUND_ANSWER with found false, and the model
 *   is not called (it never answers from nothing).
 * - Prompt: each context chunk is a numbered source [S1]..[Sn] with its document and pages; the
 *   model must answer only from them, as one JSON object
 *   {"found": boolean, "answer": string, "citations": ["S1", ...]}, citing with [Sn] markers.
 * - Validation: a reply that is not that object is an upstream failure (502; billing refunds).
 *   Citations (the list and the [Sn] markers in the text) must name given sources; others are
 *   dropped and reported in `invalid_citations` (markers removed from the text). An answer that
 *   says found but cites no valid source is withheld: not-found answer plus a warning.
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

export const SYSTEM_PROMPT = [
  "You answer questions about building-materials documents using ONLY the numbered sources given.",
  "Never use outside knowledge and never guess numbers. If the sources do not contain the answer,",
  'set "found" to false and say so briefly.',
  "Cite every statement with the source markers, e.g. [S1] or [S2][S3]. Answer with exactly one JSON",
  'object and nothing else: {"found": true|false, "answer": "text with [Sn] markers", "citations": ["S1"]}.',
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

export const replySchema = z.object({
  found: z.boolean(),
  answer: z.string().min(1).max(20_000),
  citations: z.array(z.string().max(200)).max(100).default([]),
});

/** The first {...} object of a reply (models sometimes wrap JSON in prose or a code fence). */
export function parseReply(text: string): z.infer<typeof replySchema> {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new ReplyError("the model's reply has no JSON object");
  let json: unknown;
  try {
    json = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    throw new ReplyError(`the model's reply is not valid JSON (${(err as Error).message})`);
  }
  const r = replySchema.safeParse(json);
  if (!r.success) {
    throw new ReplyError(
      `the model's reply does not match {found, answer, citations}: ${r.error.issues[0]?.message}`,
    );
  }
  return r.data;
}

export class ReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplyError";
  }
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

const MARKER = /\[(S\d+)\]/g;

/** A cited label: `S2`, `[S2]` or the chunk id of a source. */
function labelOf(cited: string, sources: readonly Source[]): string | null {
  const s = cited.trim().replace(/^\[|\]$/g, "");
  const hit = sources.find((x) => x.label === s || x.chunk.chunk_id === s);
  return hit ? hit.label : null;
}

export function groundAnswer(reply: z.infer<typeof replySchema>, sources: readonly Source[]): GroundedAnswer {
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
