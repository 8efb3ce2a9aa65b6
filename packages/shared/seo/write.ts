/**
 * Stage 3, Write: the model writes the article from the plan (Markdown body with one H1, the
 * meta title and description, and the FAQ answers). Fix iterations (Analyze) use rewriteArticle,
 * which hands the model its previous version and what the analysis found.
 */
import { ArticleOutput, type ArticlePlan, type ContentBrief, type WrittenArticle } from "./schemas.ts";
import type { SeoLlm } from "./llm.ts";
import { briefLines } from "./plan.ts";

const SYSTEM = "You are an expert SEO writer for a building-materials catalog. You write accurate, " +
  "well-structured Markdown articles: one `# ` H1 containing the target keyword, the keyword in the " +
  "first paragraph, H2 sections following the plan, short paragraphs and plain language. Never write " +
  "raw HTML. Do not put the FAQ in the body: give it in the `faq` field.";

function maxTokensFor(words: number): number {
  return Math.min(16_000, Math.max(2048, Math.ceil(words * 2.2) + 1500));
}

function planText(plan: ArticlePlan): string {
  return [
    `Title: ${plan.title}`,
    `Meta title: ${plan.meta_title}`,
    `Meta description: ${plan.meta_description}`,
    `Target keyword: ${plan.target_keyword}`,
    `Secondary keywords: ${plan.secondary_keywords.join(", ") || "none"}`,
    `Search intent: ${plan.search_intent}; angle: ${plan.angle}`,
    "Outline:",
    ...plan.outline.map((s) =>
      `  ## ${s.heading} (~${s.target_words} words)${
        s.key_points.length ? `: ${s.key_points.join("; ")}` : ""
      }`
    ),
    `FAQ questions: ${plan.faq_questions.join(" | ") || "choose 3-5 useful ones"}`,
  ].join("\n");
}

export interface WriteInput {
  plan: ArticlePlan;
  brief: ContentBrief;
  researchSummary?: string;
  additionalInstructions?: string;
}

export async function writeArticle(llm: SeoLlm, input: WriteInput): Promise<WrittenArticle> {
  const prompt = [
    "Write the article for this plan.",
    planText(input.plan),
    "",
    "Content brief:",
    briefLines({ ...input.brief, targetWordCount: input.plan.target_word_count }),
    input.researchSummary ? `\nKeyword research summary:\n${input.researchSummary}` : "",
    input.additionalInstructions ? `\nAdditional instructions: ${input.additionalInstructions}` : "",
    "\nSubmit it with submit_article.",
  ].join("\n");
  const r = await llm.llm.structured(ArticleOutput, {
    model: llm.model,
    purpose: "SEO write",
    system: SYSTEM,
    prompt,
    tool: "submit_article",
    description: "Submit the written article",
    maxTokens: maxTokensFor(input.plan.target_word_count),
  });
  return r.value;
}

export interface RewriteInput {
  plan: ArticlePlan;
  brief: ContentBrief;
  article: WrittenArticle;
  /** What the analysis found: failing checks and review issues, one per line. */
  findings: string[];
  iteration: number;
}

export async function rewriteArticle(llm: SeoLlm, input: RewriteInput): Promise<WrittenArticle> {
  const prompt = [
    `Revise this article (fix iteration ${input.iteration}). Keep what works; fix these findings:`,
    ...input.findings.map((f) => `- ${f}`),
    "",
    "Plan:",
    planText(input.plan),
    "",
    "Content brief:",
    briefLines({ ...input.brief, targetWordCount: input.plan.target_word_count }),
    "",
    `Current title: ${input.article.title}`,
    `Current meta title: ${input.article.meta_title}`,
    `Current meta description: ${input.article.meta_description}`,
    "Current body:",
    input.article.content_markdown,
    "",
    `Current FAQ: ${JSON.stringify(input.article.faq)}`,
    "\nSubmit the complete revised article with submit_article.",
  ].join("\n");
  const r = await llm.llm.structured(ArticleOutput, {
    model: llm.model,
    purpose: "SEO fix",
    system: SYSTEM,
    prompt,
    tool: "submit_article",
    description: "Submit the complete revised article",
    maxTokens: maxTokensFor(input.plan.target_word_count),
  });
  return r.value;
}
