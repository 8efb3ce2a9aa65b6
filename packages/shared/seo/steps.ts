/**
 * The four stages as the sub-functions call them directly (seo-research, seo-plan, seo-write,
 * seo-analyze; spec "SEO" bodies): parse the stage input given in the body, charge the step
 * (reference: a fresh id per call), run it, and refund everything the call took when it fails
 * (a model failure, model_unavailable or model_bad_output, included: refunded once, nothing kept).
 * The model's configuration is checked before the charge (503 model_unavailable, nothing debited).
 * The caller is always the JWT's user; the bodies' user_id is ignored.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { type Analysis, analyzeArticle } from "./analyze.ts";
import { SeoBilling, type SeoStage, type SeoStep } from "./billing.ts";
import type { DataForSeoClient } from "./dataforseo.ts";
import { DomainError } from "../errors.ts";
import type { SeoLlm } from "./llm.ts";
import { planArticle } from "./plan.ts";
import { researchKeyword } from "./research.ts";
import {
  ArticlePlan,
  type ContentBrief,
  KeywordResearch,
  parseStageInput,
  type WrittenArticle,
} from "./schemas.ts";
import { assembleMarkdown, wordCount } from "./text.ts";
import { writeArticle } from "./write.ts";

export interface StepDeps {
  db: SupabaseClient;
  userId: string;
  llm: () => SeoLlm;
  keywordData: () => DataForSeoClient;
}

/** Debits `step`, runs `fn`, refunds every debit of this call when `fn` throws. */
async function billed<T>(
  deps: StepDeps,
  step: SeoStep,
  stage: SeoStage,
  fn: (billing: SeoBilling) => Promise<T>,
): Promise<{ result: T; billing: SeoBilling }> {
  const billing = new SeoBilling(deps.db, deps.userId, `seo-${stage}:${crypto.randomUUID()}`);
  await billing.charge(step, stage);
  try {
    return { result: await fn(billing), billing };
  } catch (err) {
    await billing.refundOutstanding(`seo-${stage} failed: ${(err as Error)?.message ?? err}`.slice(0, 300));
    throw err;
  }
}

export async function researchStep(
  deps: StepDeps,
  body: { target_keyword: string; language_code: string; location_code: number },
): Promise<KeywordResearch> {
  return (await billed(deps, "research", "research", () => researchKeyword(deps.keywordData(), body))).result;
}

export async function planStep(
  deps: StepDeps,
  body: {
    topic: string;
    target_keyword: string;
    keyword_research: Record<string, unknown>;
    content_brief: ContentBrief;
    additional_instructions?: string;
  },
): Promise<ArticlePlan> {
  const research = parseStageInput(
    KeywordResearch,
    { target_keyword: body.target_keyword, ...body.keyword_research },
    "keyword_research",
  );
  const llm = deps.llm(); // not configured: 503 before anything is charged
  return (await billed(deps, "plan", "plan", () =>
    planArticle(llm, {
      topic: body.topic,
      targetKeyword: body.target_keyword,
      research,
      brief: body.content_brief,
      additionalInstructions: body.additional_instructions,
    }))).result;
}

function summaryText(s: string | Record<string, unknown> | undefined): string | undefined {
  if (s === undefined) return undefined;
  return typeof s === "string" ? s : JSON.stringify(s).slice(0, 20_000);
}

export async function writeStep(
  deps: StepDeps,
  body: {
    article_plan: Record<string, unknown>;
    content_brief: ContentBrief;
    keyword_research_summary?: string | Record<string, unknown>;
    additional_instructions?: string;
  },
): Promise<WrittenArticle & { word_count: number }> {
  const plan = parseStageInput(
    ArticlePlan,
    withBriefTarget(body.article_plan, body.content_brief),
    "article_plan",
  );
  const llm = deps.llm();
  const article = (await billed(deps, "write", "write", () =>
    writeArticle(llm, {
      plan,
      brief: body.content_brief,
      researchSummary: summaryText(body.keyword_research_summary),
      additionalInstructions: body.additional_instructions,
    }))).result;
  return { ...article, word_count: wordCount(assembleMarkdown(article)) };
}

/** A plan without a target word count takes the brief's. */
function withBriefTarget(plan: Record<string, unknown>, brief: ContentBrief): Record<string, unknown> {
  return plan.target_word_count === undefined && brief.targetWordCount
    ? { ...plan, target_word_count: brief.targetWordCount }
    : plan;
}

export async function analyzeStep(
  deps: StepDeps,
  body: {
    content_markdown: string;
    article_plan: Record<string, unknown>;
    content_brief: ContentBrief;
    auto_fix: boolean;
    max_iterations: number;
  },
): Promise<
  Omit<Analysis, "article"> & { article: WrittenArticle; content_markdown: string; word_count: number }
> {
  const plan = parseStageInput(
    ArticlePlan,
    withBriefTarget(body.article_plan, body.content_brief),
    "article_plan",
  );
  const article: WrittenArticle = {
    title: plan.title,
    meta_title: plan.meta_title,
    meta_description: plan.meta_description,
    content_markdown: body.content_markdown,
    faq: [],
  };
  const llm = deps.llm();
  const { result } = await billed(deps, "analyze", "analyze", (billing) =>
    analyzeArticle(llm, {
      article,
      plan,
      brief: body.content_brief,
      autoFix: body.auto_fix,
      maxIterations: body.max_iterations,
    }, {
      chargeFix: async () => {
        try {
          await billing.charge("fix", "analyze");
          return true;
        } catch (err) {
          if (err instanceof DomainError && err.kind === "insufficient_credits") return false;
          throw err;
        }
      },
    }));
  const md = assembleMarkdown(result.article);
  return { ...result, content_markdown: md, word_count: wordCount(md) };
}
