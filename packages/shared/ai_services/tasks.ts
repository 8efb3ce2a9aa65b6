/**
 * The AI services' model tasks (gateway group AI services): document classification, product
 * boundary detection, grouping by product, product validation, multi-model consensus and the
 * table of critical tasks. Every model answer is a forced tool call validated with a zod schema
 * (models.ts over packages/shared/llm: a malformed answer is sent back once, then a 502
 * `model_bad_output`); answers that fit the schema but are impossible (a page range outside the
 * document, an item id that was never given) fail the call's `check`, so they are malformed too:
 * retried and never passed on.
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";
import { AI_CONFIG_PROFILES, type AiConfig } from "./config.ts";
import type { ModelRun } from "./models.ts";

// ---- Critical tasks ----------------------------------------------------------------------------

export interface CriticalTask {
  critical: boolean;
  /** Models asked by ai_consensus_validate when the caller names none. */
  min_models: number;
  /** Share of models that must give the same verdict for a consensus. */
  agreement_threshold: number;
  reason: string;
}

/**
 * The documented table of task types (ai_is_critical). A critical task is one whose wrong answer
 * reaches customers or money; consensus on it asks three models, needs all to agree, and
 * escalates a disagreement to a tie-breaking model. Unknown task types are not critical.
 */
export const CRITICAL_TASKS: Readonly<Record<string, CriticalTask>> = {
  product_validation: {
    critical: true,
    min_models: 3,
    agreement_threshold: 1,
    reason: "a wrong verdict publishes a bad product or rejects a good one in the catalogue",
  },
  price_extraction: {
    critical: true,
    min_models: 3,
    agreement_threshold: 1,
    reason: "extracted prices flow into quotes and product price caches",
  },
  certificate_validation: {
    critical: true,
    min_models: 3,
    agreement_threshold: 1,
    reason: "certificates are safety and regulatory claims",
  },
  product_boundary_detection: {
    critical: true,
    min_models: 3,
    agreement_threshold: 1,
    reason: "a wrong boundary merges or splits products, and every later stage builds on it",
  },
  material_classification: {
    critical: false,
    min_models: 2,
    agreement_threshold: 0.5,
    reason: "a wrong material label is visible and cheap to correct",
  },
  image_classification: {
    critical: false,
    min_models: 2,
    agreement_threshold: 0.5,
    reason: "low-confidence answers already go to the validation model",
  },
  document_classification: {
    critical: false,
    min_models: 2,
    agreement_threshold: 0.5,
    reason: "routing aid only; the pipeline does not depend on it",
  },
  metadata_extraction: {
    critical: false,
    min_models: 2,
    agreement_threshold: 0.5,
    reason: "metadata is reviewed and editable",
  },
  product_enrichment: {
    critical: false,
    min_models: 2,
    agreement_threshold: 0.5,
    reason: "enrichment is a suggestion, never written without review",
  },
};

const NOT_CRITICAL: CriticalTask = {
  critical: false,
  min_models: 2,
  agreement_threshold: 0.5,
  reason: "not a known critical task type",
};

export function criticalTask(taskType: string): CriticalTask & { task_type: string; known: boolean } {
  const known = Object.hasOwn(CRITICAL_TASKS, taskType);
  return { task_type: taskType, known, ...(known ? CRITICAL_TASKS[taskType] : NOT_CRITICAL) };
}

export const taskTypeSchema = z.string().trim().regex(
  /^[a-z][a-z0-9_]{0,63}$/,
  "lowercase snake_case, up to 64 characters",
);

// ---- Document classification -------------------------------------------------------------------

export const DOCUMENT_TYPES = [
  "product_catalog",
  "price_list",
  "technical_datasheet",
  "certificate",
  "installation_guide",
  "brochure",
  "invoice",
  "other",
] as const;

export const documentClassification = z.object({
  document_type: z.enum(DOCUMENT_TYPES),
  confidence: z.number().min(0).max(1),
  language: z.string().trim().min(2).max(35).nullable().default(null),
  summary: z.string().trim().max(2000).default(""),
});
export type DocumentClassification = z.infer<typeof documentClassification>;

/** How much of a document the classifier reads (its beginning). */
export const CLASSIFY_CHARS = 20_000;

const CLASSIFY_DOC_SYSTEM =
  "You classify documents from building-materials suppliers. Call classify_document " +
  "with the document's type, how sure you are (0..1), its language (ISO 639-1 code, or null) and a " +
  "one-sentence summary.";

export async function classifyDocument(
  run: ModelRun,
  ai: AiConfig,
  text: string,
): Promise<DocumentClassification> {
  return await run.ask({
    model: ai.classification_primary_model,
    system: CLASSIFY_DOC_SYSTEM,
    maxTokens: Math.max(ai.classification_max_tokens, 512),
    purpose: "Document classification",
    taskType: "document_classification",
    tool: "classify_document",
    description: "Report the document's type, confidence, language and summary.",
    content: [{ type: "text", text: text.slice(0, CLASSIFY_CHARS) }],
  }, documentClassification);
}

// ---- Product boundaries ------------------------------------------------------------------------

export interface PageText {
  page_number: number;
  text: string;
}

export const productBoundary = z.object({
  name: z.string().trim().min(1).max(300),
  page_start: z.number().int().min(1),
  page_end: z.number().int().min(1),
  confidence: z.number().min(0).max(1),
});
export type ProductBoundary = z.infer<typeof productBoundary>;

const boundaryReply = z.object({
  products: z.array(productBoundary).max(1000),
  index_pages: z.array(z.number().int()).default([]),
});

/** Impossible boundaries (ranges outside the given pages, reversed ranges) make the answer malformed. */
function boundaryProblem(pageNumbers: Set<number>) {
  return (v: z.infer<typeof boundaryReply>): string | null => {
    for (const [i, p] of v.products.entries()) {
      if (p.page_end < p.page_start) return `products.${i}: page_end is before page_start`;
      if (!pageNumbers.has(p.page_start) || !pageNumbers.has(p.page_end)) {
        return `products.${i}: the range ${p.page_start}-${p.page_end} is outside the given pages`;
      }
    }
    const bad = v.index_pages.find((n) => !pageNumbers.has(n));
    return bad === undefined ? null : `index_pages: no page ${bad}`;
  };
}

const BOUNDARY_SYSTEM = "You find product boundaries in a building-materials catalogue. Call " +
  "report_product_boundaries with every product and the first and last page it is described on (only " +
  "page numbers that appear in the input), and the pages that are only a table of contents or an index.";

export async function detectBoundaries(
  run: ModelRun,
  ai: AiConfig,
  pages: PageText[],
): Promise<{ products: ProductBoundary[]; index_pages: number[]; page_count: number }> {
  const text = pages.map((p) => `--- Page ${p.page_number} ---\n${p.text}`).join("\n\n");
  const answer = await run.ask({
    model: ai.discovery_model,
    system: BOUNDARY_SYSTEM,
    maxTokens: ai.discovery_max_tokens,
    purpose: "Product boundary detection",
    taskType: "product_boundary_detection",
    tool: "report_product_boundaries",
    description: "Report the products with their page ranges, and the index pages.",
    check: boundaryProblem(new Set(pages.map((p) => p.page_number))),
    content: [{ type: "text", text }],
  }, boundaryReply);
  return {
    products: [...answer.products].sort((a, b) =>
      a.page_start - b.page_start || a.name.localeCompare(b.name)
    ),
    index_pages: [...new Set(answer.index_pages)].sort((a, b) => a - b),
    page_count: pages.length,
  };
}

// ---- Grouping by product -----------------------------------------------------------------------

export interface GroupItem {
  id: string;
  page_number?: number;
  text?: string;
}
export interface GroupResult {
  method: "page_range" | "model";
  groups: { product_name: string; page_start: number | null; page_end: number | null; item_ids: string[] }[];
  ungrouped: string[];
}

const groupReply = z.object({
  groups: z.array(z.object({
    product_name: z.string().trim().min(1).max(300),
    item_ids: z.array(z.string()).min(1),
  })).max(1000),
});

/**
 * With product page ranges: every item goes to the first product (by page_start, then name) whose
 * range holds its page_number, no model call. Without: the model groups the items by the product
 * they describe; ids it invents or repeats make the answer malformed.
 */
export async function groupByProduct(
  run: ModelRun,
  ai: AiConfig,
  items: GroupItem[],
  products?: { name: string; page_start: number; page_end: number }[],
): Promise<GroupResult> {
  if (products && products.length > 0) {
    const sorted = [...products].sort((a, b) => a.page_start - b.page_start || a.name.localeCompare(b.name));
    const groups = sorted.map((p) => ({
      product_name: p.name,
      page_start: p.page_start,
      page_end: p.page_end,
      item_ids: [] as string[],
    }));
    const ungrouped: string[] = [];
    for (const item of items) {
      const g = item.page_number === undefined
        ? undefined
        : groups.find((x) => item.page_number! >= x.page_start && item.page_number! <= x.page_end);
      if (g) g.item_ids.push(item.id);
      else ungrouped.push(item.id);
    }
    return { method: "page_range", groups, ungrouped };
  }
  const ids = new Set(items.map((i) => i.id));
  const check = (v: z.infer<typeof groupReply>): string | null => {
    const seen = new Set<string>();
    for (const [i, g] of v.groups.entries()) {
      for (const id of g.item_ids) {
        if (!ids.has(id)) return `groups.${i}: unknown id ${id}`;
        if (seen.has(id)) return `groups.${i}: id ${id} is in two groups`;
        seen.add(id);
      }
    }
    return null;
  };
  const listing = items.map((i) =>
    `[${i.id}]${i.page_number === undefined ? "" : ` (page ${i.page_number})`} ${
      (i.text ?? "").slice(0, 2000)
    }`
  ).join("\n");
  const answer = await run.ask({
    model: ai.discovery_model,
    system: "You group catalogue items (text chunks, image captions) by the product they describe. Call " +
      "group_items with the groups, using only the ids given in brackets, each id in at most one group; " +
      "leave out items that describe no product.",
    maxTokens: ai.discovery_max_tokens,
    purpose: "Grouping by product",
    taskType: "product_grouping",
    tool: "group_items",
    description: "Report the items grouped by the product they describe.",
    check,
    content: [{ type: "text", text: listing }],
  }, groupReply);
  const grouped = new Set(answer.groups.flatMap((g) => g.item_ids));
  return {
    method: "model",
    groups: answer.groups.map((g) => ({ ...g, page_start: null, page_end: null })),
    ungrouped: items.map((i) => i.id).filter((id) => !grouped.has(id)),
  };
}

// ---- Product validation ------------------------------------------------------------------------

export const productInput = z.strictObject({
  name: z.string().trim().min(1).max(500),
  description: z.string().max(20_000).nullish(),
  sku: z.string().max(200).nullish(),
  category: z.string().max(200).nullish(),
  metadata: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: "ProductInput" });
export type ProductInput = z.infer<typeof productInput>;

export const productValidation = z.object({
  is_valid: z.boolean(),
  quality_score: z.number().min(0).max(1),
  confidence: z.number().min(0).max(1),
  issues: z.array(z.object({
    field: z.string().trim().min(1).max(100),
    problem: z.string().trim().min(1).max(1000),
    severity: z.enum(["low", "medium", "high"]),
  })).max(100),
  suggestions: z.array(z.string().trim().min(1).max(1000)).max(50),
});

const VALIDATE_SYSTEM = "You review building-materials product records for a catalogue: is the record " +
  "complete, consistent and plausible? Call review_product with your verdict, a quality score and your " +
  "confidence (0..1), the issues you found (field, problem, severity) and suggestions.";

/**
 * One model's review; when its confidence is under the threshold the validation model reviews
 * again (recorded as an escalation) and its answer is final.
 */
export async function validateProduct(run: ModelRun, ai: AiConfig, product: ProductInput) {
  const ask = (model: string, note: string, escalate: boolean) =>
    run.ask({
      model,
      system: VALIDATE_SYSTEM,
      maxTokens: Math.max(ai.classification_max_tokens, 1024),
      purpose: "Product validation",
      taskType: "product_validation",
      tool: "review_product",
      description: "Report the review of the product record.",
      escalation: escalate ? "low_confidence" : undefined,
      content: [{ type: "text", text: `Product record:\n${JSON.stringify(product, null, 2)}${note}` }],
    }, productValidation);
  const first = await ask(ai.classification_primary_model, "", false);
  if (first.confidence >= ai.classification_confidence_threshold) {
    return { ...first, model: ai.classification_primary_model, escalated: false };
  }
  const second = await ask(
    ai.classification_validation_model,
    `\n\nA first review (confidence ${first.confidence}) said is_valid=${first.is_valid}; review it again.`,
    true,
  );
  return { ...second, model: ai.classification_validation_model, escalated: true };
}

// ---- Consensus ---------------------------------------------------------------------------------

export const VERDICTS = ["valid", "invalid", "uncertain"] as const;
const modelVerdict = z.object({
  verdict: z.enum(VERDICTS),
  confidence: z.number().min(0).max(1),
  reasoning: z.string().trim().max(4000).default(""),
});

/** The default models of a consensus: the profile's primary and validation models, then the fast profile's. */
export function consensusModels(ai: AiConfig, count: number): string[] {
  const pool = [
    ai.classification_primary_model,
    ai.classification_validation_model,
    AI_CONFIG_PROFILES.FAST_CONFIG.classification_primary_model,
    ai.discovery_model,
  ];
  const unique = [...new Set(pool)];
  while (unique.length < count) unique.push(unique[unique.length % pool.length]);
  return unique.slice(0, count);
}

export interface ConsensusRequest {
  task_type: string;
  content: string;
  question?: string;
  models?: string[];
  agreement_threshold?: number;
}

/**
 * Asks each model the same question (one verdict each, a give_verdict call), measures agreement (the share of
 * models giving the most common verdict) and reaches a consensus when it meets the threshold
 * (the task's default, or the caller's). A critical task without consensus is escalated: the
 * tie-breaking model (the validation model) sees every answer and decides; recorded as an
 * escalation (`disagreement`). A non-critical task without consensus answers `uncertain`.
 */
export async function consensusValidate(run: ModelRun, ai: AiConfig, req: ConsensusRequest) {
  const task = criticalTask(req.task_type);
  const models = req.models ?? consensusModels(ai, task.min_models);
  const threshold = req.agreement_threshold ?? task.agreement_threshold;
  const system = "You validate information about building materials. Call give_verdict with valid, " +
    "invalid or uncertain, your confidence (0..1) and your reasoning.";
  const tool = { tool: "give_verdict", description: "Report the verdict, its confidence and the reasoning." };
  const question = req.question ?? "Is the following correct and consistent?";
  const answers = [];
  for (const model of models) {
    const a = await run.ask({
      model,
      system,
      maxTokens: Math.max(ai.classification_max_tokens, 1024),
      purpose: `Consensus validation (${req.task_type})`,
      taskType: req.task_type,
      ...tool,
      content: [{ type: "text", text: `${question}\n\n${req.content}` }],
    }, modelVerdict);
    answers.push({ model, ...a });
  }
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a.verdict, (counts.get(a.verdict) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const [top, topCount] = ranked[0];
  const tie = ranked.length > 1 && ranked[1][1] === topCount;
  const agreement = topCount / answers.length;
  const reached = !tie && agreement >= threshold;
  let final = reached ? top : "uncertain";
  let escalation: { model: string; verdict: string; confidence: number; reasoning: string } | null = null;
  if (!reached && task.critical) {
    const tieBreaker = ai.classification_validation_model;
    const quoted = answers.map((a) => `- ${a.model}: ${a.verdict} (${a.confidence}): ${a.reasoning}`).join(
      "\n",
    );
    const t = await run.ask({
      model: tieBreaker,
      system,
      maxTokens: Math.max(ai.classification_max_tokens, 1024),
      purpose: `Consensus tie-break (${req.task_type})`,
      taskType: req.task_type,
      ...tool,
      escalation: "disagreement",
      content: [{
        type: "text",
        text: `${question}\n\n${req.content}\n\nOther models disagreed:\n${quoted}\nDecide.`,
      }],
    }, modelVerdict);
    escalation = { model: tieBreaker, ...t };
    final = t.verdict;
  }
  return {
    task_type: req.task_type,
    is_critical: task.critical,
    models,
    answers,
    agreement,
    agreement_threshold: threshold,
    consensus_reached: reached,
    verdict: final,
    escalated: escalation !== null,
    escalation,
  };
}

/** Pages of a document text (form feeds, or the whole text as page 1). */
export function pagesOf(texts: string[]): PageText[] {
  return texts.map((text, i) => ({ page_number: i + 1, text }));
}

/** A grouping request must name every id once. */
export function checkUniqueIds(items: { id: string }[]): void {
  const seen = new Set<string>();
  for (const [i, it] of items.entries()) {
    if (seen.has(it.id)) {
      throw DomainError.invalid(`items.${i}.id: ${it.id} is repeated`, undefined, "validation_failed");
    }
    seen.add(it.id);
  }
}
