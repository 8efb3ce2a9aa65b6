/**
 * Stage 4, Analyze: the content score (score.ts, deterministic), the competitors' average on the
 * SERP-visible checks, and one model review (tone, brief fit, issues). With auto_fix, the
 * article is rewritten while it scores below TARGET_SCORE: each fix iteration is charged (2
 * credits) before its model call, re-scored, and kept only when the score rose; the loop stops
 * at the first iteration that does not improve the score, at the target, when credits run
 * short, or after max iterations (bounded), and the best version wins.
 */
import {
  type ArticlePlan,
  type ContentBrief,
  type Review,
  ReviewOutput,
  type WrittenArticle,
} from "./schemas.ts";
import type { SeoLlm } from "./llm.ts";
import { avgCompetitorScore, type ContentScore, scoreContent, serpScore } from "./score.ts";
import { assembleMarkdown, slugify } from "./text.ts";
import { rewriteArticle } from "./write.ts";
import { briefLines } from "./plan.ts";

/** Fixing stops once the article scores this much. */
export const TARGET_SCORE = 90;

export type FixStop =
  | "auto_fix_off"
  | "target_reached"
  | "no_improvement"
  | "max_iterations"
  | "insufficient_credits";

export interface Analysis {
  content_score: number;
  avg_competitor_score: number | null;
  serp_score: number;
  checks: ContentScore["checks"];
  metrics: ContentScore["metrics"];
  review: Review;
  iterations: { iteration: number; content_score: number; kept: boolean }[];
  fix_iterations: number;
  fix_stopped: FixStop;
  /** The best version (the one scored above), the input of Finalize. */
  article: WrittenArticle;
}

export interface AnalyzeInput {
  article: WrittenArticle;
  plan: ArticlePlan;
  brief: ContentBrief;
  autoFix: boolean;
  maxIterations: number;
}

export interface AnalyzeHooks {
  /** Charges one fix iteration; false when the balance is short (fixing stops, nothing fails). */
  chargeFix(iteration: number): Promise<boolean>;
  /** After each fix iteration (progress, heartbeat). */
  afterIteration?(iteration: number, maxIterations: number): Promise<void>;
}

export function scoreArticle(article: WrittenArticle, plan: ArticlePlan): ContentScore {
  return scoreContent({
    markdown: assembleMarkdown(article),
    title: article.title,
    metaTitle: article.meta_title,
    metaDescription: article.meta_description,
    keyword: plan.target_keyword,
    secondaryKeywords: plan.secondary_keywords,
    targetWordCount: plan.target_word_count,
  });
}

function findings(s: ContentScore, review: Review): string[] {
  return [
    ...s.checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.detail}`),
    ...review.issues.map((i) => `${i.issue} -> ${i.suggestion}`),
  ];
}

async function reviewArticle(llm: SeoLlm, input: AnalyzeInput, s: ContentScore): Promise<Review> {
  const prompt = [
    `Review this article for the target keyword "${input.plan.target_keyword}".`,
    "Content brief:",
    briefLines({ ...input.brief, targetWordCount: input.plan.target_word_count }),
    "",
    `Automatic checks (score ${s.score}/100): ` +
    s.checks.map((c) => `${c.id} ${c.passed ? "ok" : "FAIL"} (${c.detail})`).join("; "),
    "",
    `Title: ${input.article.title}`,
    `Meta description: ${input.article.meta_description}`,
    assembleMarkdown(input.article),
    "\nReport whether the tone matches the brief and list concrete issues with suggestions via submit_review.",
  ].join("\n");
  const r = await llm.llm.structured(ReviewOutput, {
    model: llm.model,
    purpose: "SEO review",
    system: "You are a strict SEO editor. You judge accuracy, intent match, structure and readability.",
    prompt,
    tool: "submit_review",
    description: "Submit the editorial review",
    maxTokens: 2048,
  });
  return r.value;
}

export async function analyzeArticle(
  llm: SeoLlm,
  input: AnalyzeInput,
  hooks: AnalyzeHooks,
): Promise<Analysis> {
  let best = input.article;
  let bestScore = scoreArticle(best, input.plan);
  const review = await reviewArticle(llm, input, bestScore);
  const iterations: Analysis["iterations"] = [];
  let stop: FixStop = input.autoFix ? "max_iterations" : "auto_fix_off";
  if (input.autoFix) {
    for (let i = 1; i <= input.maxIterations; i++) {
      if (bestScore.score >= TARGET_SCORE) {
        stop = "target_reached";
        break;
      }
      if (!await hooks.chargeFix(i)) {
        stop = "insufficient_credits";
        break;
      }
      const candidate = await rewriteArticle(llm, {
        plan: input.plan,
        brief: input.brief,
        article: best,
        findings: findings(bestScore, review),
        iteration: i,
      });
      const s = scoreArticle(candidate, input.plan);
      const kept = s.score > bestScore.score;
      iterations.push({ iteration: i, content_score: s.score, kept });
      await hooks.afterIteration?.(i, input.maxIterations);
      if (!kept) {
        stop = "no_improvement";
        break;
      }
      best = candidate;
      bestScore = s;
    }
    if (stop === "max_iterations" && bestScore.score >= TARGET_SCORE) stop = "target_reached";
  }
  return {
    content_score: bestScore.score,
    avg_competitor_score: avgCompetitorScore(input.plan.competitors, input.plan.target_keyword),
    serp_score: serpScore(
      { title: best.meta_title, snippet: best.meta_description, url: slugify(best.title) },
      input.plan.target_keyword,
    ),
    checks: bestScore.checks,
    metrics: bestScore.metrics,
    review,
    iterations,
    fix_iterations: iterations.length,
    fix_stopped: stop,
    article: best,
  };
}
