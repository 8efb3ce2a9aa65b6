/**
 * Stage 2, Plan: the model turns the topic, the keyword research and the content brief into an
 * article plan (title, meta title and description, outline with word budgets, secondary
 * keywords, FAQ questions). The pipeline adds what it knows for sure: the target keyword, the
 * target word count and the SERP competitors (Analyze compares against them).
 */
import {
  type ArticlePlan,
  type ContentBrief,
  DEFAULT_WORD_COUNT,
  type KeywordResearch,
  PlanOutput,
} from "./schemas.ts";
import type { SeoLlm } from "./llm.ts";
import { summarizeResearch } from "./research.ts";

export interface PlanInput {
  topic: string;
  targetKeyword: string;
  research: KeywordResearch;
  brief: ContentBrief;
  additionalInstructions?: string;
}

export function briefLines(brief: ContentBrief): string {
  return [
    `Content type: ${brief.contentType ?? "blog article"}`,
    `Target audience: ${brief.targetAudience ?? "general readers interested in building materials"}`,
    `Tone of voice: ${brief.toneOfVoice ?? "clear, helpful, professional"}`,
    `Target word count: ${brief.targetWordCount ?? DEFAULT_WORD_COUNT}`,
  ].join("\n");
}

const SYSTEM = "You are an SEO content strategist for a building-materials catalog. You plan articles " +
  "that answer the searcher's intent better than the pages ranking today. Meta titles are 30-60 " +
  "characters, meta descriptions 120-160 characters, and both contain the target keyword.";

export async function planArticle(llm: SeoLlm, input: PlanInput): Promise<ArticlePlan> {
  const target = input.brief.targetWordCount ?? DEFAULT_WORD_COUNT;
  const prompt = [
    `Plan an article on: ${input.topic}`,
    `Target keyword: ${input.targetKeyword}`,
    "",
    "Keyword research:",
    summarizeResearch(input.research),
    "",
    "Content brief:",
    briefLines(input.brief),
    input.additionalInstructions ? `\nAdditional instructions: ${input.additionalInstructions}` : "",
    "",
    `Give an outline of H2 sections whose word budgets add up to about ${target} words, and 3-6 FAQ ` +
    "questions (use the 'people also ask' questions where they fit). Submit it with submit_plan.",
  ].join("\n");
  const r = await llm.llm.structured(PlanOutput, {
    model: llm.model,
    purpose: "SEO plan",
    system: SYSTEM,
    prompt,
    tool: "submit_plan",
    description: "Submit the article plan",
    maxTokens: 4096,
  });
  return {
    ...r.value,
    target_keyword: input.targetKeyword,
    target_word_count: target,
    competitors: input.research.competitors,
  };
}
