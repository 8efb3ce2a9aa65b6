/**
 * seo-pipeline's request, after the function authorised the caller (a user; the workspace, if
 * named, any member): configuration first (503 naming what is missing), then the balance against
 * the run's base cost (402, nothing created), then the article row and its run in the background
 * (kept alive past the response; the run does not depend on the connection). `articleOutcome`
 * turns the finished run into the spec's answer (or its error, with details.article_id).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { HOW_TO_GET_CREDITS } from "../credits/ledger.ts";
import { DomainError } from "../errors.ts";
import { runInBackground } from "../http/background.ts";
import { pipelineBaseCost } from "./billing.ts";
import {
  type ArticleRow,
  articleView,
  createArticle,
  type PipelineDeps,
  runArticle,
  type RunOutcome,
} from "./pipeline.ts";
import type { PipelineRequest } from "./schemas.ts";

export interface StartedArticle {
  row: ArticleRow;
  run: Promise<RunOutcome | undefined>;
}

export async function startArticle(
  deps: PipelineDeps,
  caller: { db: SupabaseClient; userId: string },
  req: PipelineRequest,
  workerId: string,
): Promise<StartedArticle> {
  // Configuration before anything is created or charged (503 names what is missing).
  deps.llm();
  if (!req.skip_research) deps.keywordData();
  const need = pipelineBaseCost(req.skip_research);
  const { data: credits } = await caller.db.from("user_credits").select("balance").eq(
    "user_id",
    caller.userId,
  )
    .maybeSingle();
  const balance = Number(credits?.balance ?? 0);
  if (balance < need) {
    throw DomainError.insufficientCredits(
      `Insufficient credits for the SEO pipeline: it costs ${need} credits and your balance is ${balance}. ` +
        `${HOW_TO_GET_CREDITS}.`,
      { required: need, price: need, balance, cost_key: null },
    );
  }
  const row = await createArticle(deps.db, caller.userId, req.workspace_id ?? null, req, workerId);
  return { row, run: runInBackground(`seo-pipeline ${row.id}`, runArticle(deps, row, workerId)) };
}

/** The 202 answer of an async request: where to poll. */
export function acceptedArticle(row: ArticleRow) {
  return {
    success: true,
    data: {
      article_id: row.id,
      status: row.status,
      progress_percentage: row.progress_percentage,
      current_stage: row.current_stage,
      poll: `/rest/v1/seo_articles?id=eq.${row.id}`,
    },
  };
}

/** The run's end as the answer: 200 with the article, 202 when a sweep took it over, else its error. */
export async function articleOutcome(started: StartedArticle) {
  const { row } = started;
  const outcome = await started.run;
  if (outcome?.status === "completed") {
    return {
      status: 200 as const,
      body: { success: true, data: { article_id: row.id, article: articleView(outcome.row) } },
    };
  }
  if (outcome?.status === "failed") {
    const e = outcome.error;
    throw new DomainError(e.kind, e.code, e.message, {
      article_id: row.id,
      stage_details: e.details ?? null,
    });
  }
  if (outcome?.status === "taken_over") {
    // A sweep judged this worker dead and resumed the run elsewhere: it goes on there.
    return { status: 202 as const, body: { success: true, data: { article_id: row.id, status: "running" } } };
  }
  // The run could not even record its failure (logged); the sweeper will settle the row.
  throw new DomainError("internal", "seo_pipeline_failed", "The pipeline failed unexpectedly", {
    article_id: row.id,
  });
}
