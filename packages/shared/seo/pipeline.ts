/**
 * The SEO pipeline run (spec "SEO"; States and transitions seo_articles): five stages over one
 * seo_articles row, each a function from the previous stage's checkpoint to its own:
 *
 * | stage    | status      | progress | input -> checkpoint column             | credits |
 * | -------- | ----------- | -------- | -------------------------------------- | ------- |
 * | research | researching | 0-20     | request -> research                    | 2       |
 * | plan     | planning    | 20-35    | research -> plan                       | 1       |
 * | write    | writing     | 35-55    | plan -> draft                          | 3       |
 * | analyze  | analyzing   | 55-90    | draft -> analysis (best version)       | 1 + 2/fix |
 * | finalize | analyzing   | 90-100   | analysis -> article fields, completed  | 0       |
 *
 * One worker holds a row at a time (seo_article_claim; every write names the worker id, so a
 * worker declared dead that wakes up cannot overwrite anything). The worker heartbeats every
 * HEARTBEAT_MS; a row whose heartbeat is older than STALE_AFTER_MS is taken over by the sweeper
 * (sweepStale: pg_cron every minute, or on demand; the shared tick, scheduling/tick.ts), which refunds what the dead worker debited
 * for the stage it did not finish and resumes from the last checkpoint; after MAX_ATTEMPTS
 * workers the row is failed instead. A failure refunds what the run did not deliver and then
 * marks the row failed with the error: the debits of the stage that failed and of every later one.
 * A stage whose checkpoint was written is delivered (its output is readable by the author through
 * /rest/v1/seo_articles from that moment, and stays so on the failed row) and stays charged
 * (issue 31: a run failing after Write refunded everything while the draft stayed readable). The
 * article fields are only ever written by Finalize, in the statement that completes the row.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { type Charge, refund } from "../credits/ledger.ts";
import { DomainError } from "../errors.ts";
import { dbError } from "../supabase/postgrest.ts";
import { analyzeArticle } from "./analyze.ts";
import { SeoBilling, type SeoStage } from "./billing.ts";
import type { DataForSeoClient } from "./dataforseo.ts";
import type { SeoLlm } from "./llm.ts";
import { planArticle } from "./plan.ts";
import { finalizeArticle } from "./render.ts";
import { researchKeyword, summarizeResearch } from "./research.ts";
import {
  type ArticlePlan,
  ContentBrief,
  KeywordResearch,
  parseStageInput,
  type PipelineRequest,
  type WrittenArticle,
} from "./schemas.ts";
import { writeArticle } from "./write.ts";
import { runTick, staleBefore } from "../scheduling/tick.ts";
import type { Analysis } from "./analyze.ts";

export const STAGES = ["research", "plan", "write", "analyze", "finalize"] as const;
export type Stage = (typeof STAGES)[number];
const RANGE: Record<Stage, [number, number]> = {
  research: [0, 20],
  plan: [20, 35],
  write: [35, 55],
  analyze: [55, 90],
  finalize: [90, 100],
};
export const HEARTBEAT_MS = 30_000;
export const STALE_AFTER_MS = 90_000;
/** Workers a run may have (the first plus restarts) before the sweeper fails it. */
export const MAX_ATTEMPTS = 3;
const RUNNING = ["researching", "planning", "writing", "analyzing"];

export interface ArticleRow {
  id: string;
  user_id: string;
  workspace_id: string | null;
  topic: string;
  target_keyword: string;
  language_code: string;
  location_code: number;
  content_brief: Record<string, unknown>;
  additional_instructions: string | null;
  auto_fix: boolean;
  max_fix_iterations: number;
  status: string;
  progress_percentage: number;
  current_stage: Stage;
  research: unknown;
  plan: unknown;
  draft: unknown;
  analysis: unknown;
  title: string | null;
  content_markdown: string | null;
  content_html: string | null;
  word_count: number | null;
  meta_title: string | null;
  meta_description: string | null;
  slug: string | null;
  schema_markup: unknown;
  faq_schema: unknown;
  content_score: number | string | null;
  avg_competitor_score: number | string | null;
  error: string | null;
  attempts: number;
}

export interface PipelineDeps {
  /** Service-role client: the run writes for the system after the caller was authorised. */
  db: SupabaseClient;
  llm: () => SeoLlm;
  keywordData: () => DataForSeoClient;
  heartbeatMs?: number;
}

/** The worker lost its claim (another worker resumed the run): stop without touching the row. */
class LostClaim extends Error {}

async function rpc<T>(db: SupabaseClient, fn: string, args: Record<string, unknown>): Promise<T> {
  const { data, error, status } = await db.rpc(fn, args);
  if (error) {
    throw dbError(error, "Article", status, {
      code: "seo_store_failed",
      message: `${fn} failed: ${error.message}`,
    });
  }
  return data as T;
}

/** existing_research of a skip_research request, parsed (400 naming the field), else null. */
export function existingResearch(req: PipelineRequest): KeywordResearch | null {
  if (!req.skip_research) return null;
  return parseStageInput(
    KeywordResearch,
    {
      target_keyword: req.target_keyword,
      language_code: req.language_code,
      location_code: req.location_code,
      ...req.existing_research,
    },
    "existing_research",
  );
}

/** Creates the row, claimed by `workerId` (a run that never starts is swept like a dead one). */
export async function createArticle(
  db: SupabaseClient,
  userId: string,
  workspaceId: string | null,
  req: PipelineRequest,
  workerId: string,
): Promise<ArticleRow> {
  const research = existingResearch(req);
  const { data, error } = await db.from("seo_articles").insert({
    user_id: userId,
    workspace_id: workspaceId,
    topic: req.topic,
    target_keyword: req.target_keyword,
    language_code: req.language_code,
    location_code: req.location_code,
    content_brief: req.content_brief,
    additional_instructions: req.additional_instructions ?? null,
    auto_fix: req.auto_fix,
    max_fix_iterations: req.max_fix_iterations,
    skip_research: req.skip_research,
    research,
    worker_id: workerId,
    attempts: 1,
    heartbeat_at: new Date().toISOString(),
  }).select("*").single();
  if (error) {
    throw DomainError.internal(`The article could not be created: ${error.message}`, "seo_store_failed");
  }
  return data as ArticleRow;
}

/** The first stage without a checkpoint. */
export function resumeStage(row: Pick<ArticleRow, "research" | "plan" | "draft" | "analysis">): Stage {
  if (row.research == null) return "research";
  if (row.plan == null) return "plan";
  if (row.draft == null) return "write";
  if (row.analysis == null) return "analyze";
  return "finalize";
}

class Worker {
  readonly billing: SeoBilling;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lost = false;
  /** Debits of the stage in progress (cleared by its checkpoint). */
  #pending: Charge[] = [];
  /** The first stage whose output is not persisted: it and every later one are undelivered. */
  undelivered: Stage;

  constructor(readonly deps: PipelineDeps, readonly row: ArticleRow, readonly workerId: string) {
    this.billing = new SeoBilling(deps.db, row.user_id, row.id);
    this.undelivered = resumeStage(row);
  }

  #args(extra: Record<string, unknown> = {}) {
    return { p_id: this.row.id, p_worker: this.workerId, ...extra };
  }

  async #guard(ok: Promise<boolean>): Promise<void> {
    if (!(await ok) || this.#lost) throw new LostClaim();
  }

  startHeartbeat(): void {
    this.#timer = setInterval(() => {
      rpc<boolean>(this.deps.db, "seo_article_heartbeat", this.#args())
        .then((ok) => {
          if (!ok) this.#lost = true;
        })
        .catch((err) => console.error(`seo-pipeline: heartbeat of ${this.row.id} failed`, err));
    }, this.deps.heartbeatMs ?? HEARTBEAT_MS);
  }

  stopHeartbeat(): void {
    clearInterval(this.#timer);
  }

  stage(stage: Stage): Promise<void> {
    return this.#guard(
      rpc<boolean>(
        this.deps.db,
        "seo_article_stage",
        this.#args({ p_stage: stage, p_progress: RANGE[stage][0] }),
      ),
    );
  }

  async checkpoint(
    stage: Exclude<Stage, "finalize">,
    output: unknown,
    fixIterations?: number,
  ): Promise<void> {
    await this.#guard(rpc<boolean>(
      this.deps.db,
      "seo_article_checkpoint",
      this.#args({
        p_stage: stage,
        p_output: output,
        p_progress: RANGE[stage][1],
        p_fix_iterations: fixIterations ?? null,
      }),
    ));
    this.#pending = [];
    this.undelivered = STAGES[STAGES.indexOf(stage) + 1];
  }

  progress(p: number): Promise<void> {
    return this.#guard(
      rpc<boolean>(this.deps.db, "seo_article_progress", this.#args({ p_progress: Math.floor(p) })),
    );
  }

  /** Debits a step of the stage being run (kept as pending until the stage's checkpoint). */
  async charge(step: "research" | "plan" | "write" | "analyze" | "fix", stage: SeoStage): Promise<void> {
    this.#pending.push(await this.billing.charge(step, stage));
    if (this.#lost) throw new LostClaim();
  }

  /** True while this worker still holds the row. */
  owns(): Promise<boolean> {
    return rpc<boolean>(this.deps.db, "seo_article_heartbeat", this.#args());
  }

  /**
   * A worker that lost the row gives back what it debited for the stage it did not finish and
   * that the new owner has not refunded already (the new owner's debits are never touched).
   */
  async refundOwnPending(reason: string): Promise<void> {
    const mine = new Set(this.#pending.map((c) => c.transactionId));
    for (const { charge } of await this.billing.outstanding()) {
      if (mine.has(charge.transactionId)) await refund(this.deps.db, charge, reason);
    }
  }

  async finalize(fields: Record<string, unknown>): Promise<ArticleRow> {
    const rows = await rpc<ArticleRow[]>(
      this.deps.db,
      "seo_article_finalize",
      this.#args({ p_article: fields }),
    );
    if (!rows?.length) throw new LostClaim();
    return rows[0];
  }

  fail(message: string): Promise<boolean> {
    return rpc<boolean>(this.deps.db, "seo_article_fail", this.#args({ p_error: message }));
  }
}

async function runStages(w: Worker): Promise<ArticleRow> {
  const { deps } = w;
  const row = w.row;
  const brief = parseStageInput(ContentBrief, row.content_brief ?? {}, "content_brief");
  let research = row.research == null ? null : parseStageInput(KeywordResearch, row.research, "research");
  let plan = row.plan as ArticlePlan | null;
  let draft = row.draft as WrittenArticle | null;
  let analysis = row.analysis as Analysis | null;

  if (!research) {
    await w.stage("research");
    await w.charge("research", "research");
    research = await researchKeyword(deps.keywordData(), row);
    await w.checkpoint("research", research);
  }
  if (!plan) {
    await w.stage("plan");
    await w.charge("plan", "plan");
    plan = await planArticle(deps.llm(), {
      topic: row.topic,
      targetKeyword: row.target_keyword,
      research,
      brief,
      additionalInstructions: row.additional_instructions ?? undefined,
    });
    await w.checkpoint("plan", plan);
  }
  if (!draft) {
    await w.stage("write");
    await w.charge("write", "write");
    draft = await writeArticle(deps.llm(), {
      plan,
      brief,
      researchSummary: summarizeResearch(research),
      additionalInstructions: row.additional_instructions ?? undefined,
    });
    await w.checkpoint("write", draft);
  }
  if (!analysis) {
    await w.stage("analyze");
    await w.charge("analyze", "analyze");
    const [from, to] = RANGE.analyze;
    analysis = await analyzeArticle(deps.llm(), {
      article: draft,
      plan,
      brief,
      autoFix: row.auto_fix,
      maxIterations: row.max_fix_iterations,
    }, {
      chargeFix: async () => {
        try {
          await w.charge("fix", "analyze");
          return true;
        } catch (err) {
          if (err instanceof DomainError && err.kind === "insufficient_credits") return false;
          throw err;
        }
      },
      afterIteration: (i, max) => w.progress(from + ((to - from - 5) * i) / Math.max(1, max)),
    });
    await w.checkpoint("analyze", analysis, analysis.fix_iterations);
  }
  await w.stage("finalize");
  const final = finalizeArticle({
    article: analysis.article,
    keyword: plan.target_keyword,
    secondaryKeywords: plan.secondary_keywords,
    languageCode: row.language_code,
    contentScore: analysis.content_score,
    avgCompetitorScore: analysis.avg_competitor_score,
    now: new Date(),
  });
  return await w.finalize({ ...final });
}

export type RunOutcome =
  | { status: "completed"; row: ArticleRow }
  | { status: "failed"; error: DomainError }
  | { status: "taken_over" };

/** Selects the ledger stages at or after `from` (fix debits belong to analyze). */
export const stagesFrom = (from: Stage) => (stage: string) =>
  STAGES.indexOf(stage as Stage) >= STAGES.indexOf(from);

/**
 * Runs (or resumes) a claimed row to the end. A failure refunds the credits of the stages not
 * delivered (see the module doc), then marks the row failed; the outcome carries the error for a
 * caller that waits.
 */
export async function runArticle(deps: PipelineDeps, row: ArticleRow, workerId: string): Promise<RunOutcome> {
  const w = new Worker(deps, row, workerId);
  w.startHeartbeat();
  try {
    return { status: "completed", row: await runStages(w) };
  } catch (err) {
    // A worker that lost the row (declared dead, then woke up) leaves it and the new owner's
    // credits alone, whatever went wrong for it.
    if (err instanceof LostClaim || !(await w.owns().catch(() => false))) {
      await w.refundOwnPending("seo run taken over by another worker");
      return { status: "taken_over" };
    }
    const error = err instanceof DomainError ? err : new DomainError(
      "internal",
      "seo_pipeline_failed",
      `The pipeline failed: ${(err as Error)?.message ?? err}`,
    );
    if (!(err instanceof DomainError)) console.error(`seo-pipeline: run ${row.id} failed`, err);
    await w.billing.refundOutstanding(`seo pipeline failed: ${error.code}`, stagesFrom(w.undelivered));
    await w.fail(`${error.code}: ${error.message}`);
    return { status: "failed", error };
  } finally {
    w.stopHeartbeat();
  }
}

export interface SweepResult {
  resumed: string[];
  failed: string[];
  /** The resumed runs, for a caller that keeps the process alive until they end (waitUntil). */
  runs: Promise<RunOutcome>[];
}

/**
 * Takes over running rows whose worker's heartbeat is older than `staleMs`: each is claimed
 * atomically (a live worker or a concurrent sweep keeps it), what the dead worker debited for
 * its unfinished stage is refunded, and the run resumes from its last checkpoint; a row that
 * already had MAX_ATTEMPTS workers is failed instead, refunded for its unfinished stages.
 */
export async function sweepStale(
  deps: PipelineDeps,
  opts: { staleMs?: number; limit?: number; now?: Date } = {},
): Promise<SweepResult> {
  const now = opts.now ?? new Date();
  const before = staleBefore(now, opts.staleMs ?? STALE_AFTER_MS);
  const out: SweepResult = { resumed: [], failed: [], runs: [] };
  await runTick({
    name: "seo-pipeline-sweeper",
    now,
    claim: async () => {
      const { data, error } = await deps.db.from("seo_articles").select("id")
        .in("status", RUNNING).lt("heartbeat_at", before)
        .order("heartbeat_at", { ascending: true }).limit(opts.limit ?? 20);
      if (error) {
        throw DomainError.internal(`Reading stale articles failed: ${error.message}`, "seo_store_failed");
      }
      return data ?? [];
    },
    run: ({ id }) => takeOver(deps, id, before, out),
  });
  return out;
}

/** Claims one stale row for a new worker: refunds the dead worker's unfinished stage, resumes or fails it. */
async function takeOver(
  deps: PipelineDeps,
  id: string,
  staleBefore: string,
  out: SweepResult,
): Promise<void> {
  const workerId = `sweeper:${crypto.randomUUID()}`;
  const claimed = await rpc<ArticleRow[]>(deps.db, "seo_article_claim", {
    p_id: id,
    p_worker: workerId,
    p_stale_before: staleBefore,
  });
  const row = claimed?.[0];
  if (!row) return;
  const billing = new SeoBilling(deps.db, row.user_id, row.id);
  // The dead worker's debits for the stages it did not finish (their checkpoints are missing);
  // finished stages are delivered and stay charged.
  const undelivered = stagesFrom(resumeStage(row));
  if (row.attempts > MAX_ATTEMPTS) {
    await billing.refundOutstanding("seo pipeline abandoned", undelivered);
    await rpc<boolean>(deps.db, "seo_article_fail", {
      p_id: id,
      p_worker: workerId,
      p_error: `worker_lost: the run's worker stopped ${row.attempts - 1} times; giving up`,
    });
    out.failed.push(id);
    return;
  }
  await billing.refundOutstanding("seo stage interrupted (worker lost)", undelivered);
  out.resumed.push(id);
  out.runs.push(runArticle(deps, row, workerId));
}

/** The spec's article object (camelCase) from a row. */
export function articleView(row: ArticleRow): Record<string, unknown> {
  const num = (v: number | string | null) => (v === null || v === undefined ? null : Number(v));
  return {
    id: row.id,
    title: row.title,
    contentMarkdown: row.content_markdown,
    contentHtml: row.content_html,
    wordCount: row.word_count,
    metaTitle: row.meta_title,
    metaDescription: row.meta_description,
    slug: row.slug,
    schemaMarkup: row.schema_markup,
    faqSchema: row.faq_schema ?? [],
    optimize: { contentScore: num(row.content_score), avgCompetitorScore: num(row.avg_competitor_score) },
    status: row.status,
  };
}
