/**
 * The SEO pipeline's shapes (spec "SEO"): the request bodies of seo-pipeline and its four
 * sub-functions, and the typed data each stage hands to the next (keyword research, article
 * plan, written article, analysis). Model outputs are validated against the *Output schemas,
 * which are also the tools' JSON Schemas the model is asked to fill. The sub-functions' bodies
 * (seo-research, seo-plan, seo-write, seo-analyze) and content_brief are strict: an undeclared key
 * is a 400 naming it. The stage data a body carries (keyword_research, article_plan) is a previous
 * stage's answer passed back, read with its own schema, not a list of parameters.
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";

/** Default target length when the brief gives none. */
export const DEFAULT_WORD_COUNT = 1500;

export const ContentBrief = z.object({
  contentType: z.string().trim().min(1).max(100).optional(),
  targetAudience: z.string().trim().min(1).max(500).optional(),
  toneOfVoice: z.string().trim().min(1).max(200).optional(),
  targetWordCount: z.number().int().min(300).max(10_000).optional(),
}).strict();
export type ContentBrief = z.infer<typeof ContentBrief>;

const Keyword = z.string().trim().min(1, "must not be empty").max(200);
const Topic = z.string().trim().min(1, "must not be empty").max(500);
const LanguageCode = z.string().regex(/^[a-z]{2}(-[A-Za-z]{2,4})?$/, "must be a language code such as en");
const LocationCode = z.number().int().min(1).max(99_999_999);
/** Accepted for the spec's bodies and ignored: the caller is the JWT's user, never this. */
const UserIdIgnored = z.string().max(100).optional().describe("ignored: the caller comes from the JWT");

// ---- stage data ----

export const Competitor = z.object({
  rank: z.number().int(),
  domain: z.string(),
  url: z.string(),
  title: z.string(),
  description: z.string().nullable(),
});
export type Competitor = z.infer<typeof Competitor>;

export const RelatedKeyword = z.object({
  keyword: z.string(),
  search_volume: z.number().nullable(),
  keyword_difficulty: z.number().nullable(),
  competition: z.number().nullable(),
  intent: z.string().nullable(),
});

export const KeywordResearch = z.object({
  target_keyword: z.string().min(1),
  language_code: z.string().default("en"),
  location_code: z.number().int().default(2840),
  search_volume: z.number().nullable().default(null),
  cpc: z.number().nullable().default(null),
  competition: z.string().nullable().default(null),
  keyword_difficulty: z.number().nullable().default(null),
  monthly_searches: z.array(z.object({ year: z.number(), month: z.number(), search_volume: z.number() }))
    .default([]),
  related_keywords: z.array(RelatedKeyword).default([]),
  competitors: z.array(Competitor).default([]),
  people_also_ask: z.array(z.string()).default([]),
  /** `dataforseo` when the research stage fetched it, `provided` for existing_research. */
  source: z.string().default("provided"),
  /** What DataForSEO charged for it (USD), when fetched. */
  provider_cost: z.number().optional(),
});
export type KeywordResearch = z.infer<typeof KeywordResearch>;

/** What the model fills for a plan. */
export const PlanOutput = z.object({
  title: z.string().min(5).max(200),
  meta_title: z.string().min(5).max(200),
  meta_description: z.string().min(20).max(400),
  search_intent: z.string().min(1).max(100),
  angle: z.string().min(1).max(1000),
  outline: z.array(z.object({
    heading: z.string().min(1).max(200),
    key_points: z.array(z.string().max(500)).max(12).default([]),
    target_words: z.number().int().min(20).max(5000),
  })).min(2).max(20),
  secondary_keywords: z.array(z.string().max(200)).max(30).default([]),
  faq_questions: z.array(z.string().min(3).max(300)).max(12).default([]),
});

/** A plan as stages pass it on: the model's plan plus what the pipeline knows for sure. */
export const ArticlePlan = PlanOutput.extend({
  target_keyword: z.string().min(1),
  target_word_count: z.number().int().min(300).max(10_000).default(DEFAULT_WORD_COUNT),
  competitors: z.array(Competitor).default([]),
});
export type ArticlePlan = z.infer<typeof ArticlePlan>;

/** What the model fills for an article (write and each fix). */
export const ArticleOutput = z.object({
  title: z.string().min(5).max(200),
  meta_title: z.string().min(5).max(200),
  meta_description: z.string().min(20).max(400),
  content_markdown: z.string().min(200).max(200_000)
    .describe("The article body in Markdown, starting with one `# ` H1; no FAQ section, no raw HTML"),
  faq: z.array(z.object({ question: z.string().min(3).max(300), answer: z.string().min(3).max(3000) }))
    .max(12).default([]),
});
export type WrittenArticle = z.infer<typeof ArticleOutput>;

/** What the model fills when it reviews an article. */
export const ReviewOutput = z.object({
  summary: z.string().min(1).max(2000),
  tone_matches_brief: z.boolean(),
  issues: z.array(z.object({
    issue: z.string().min(1).max(500),
    suggestion: z.string().min(1).max(1000),
  })).max(20),
});
export type Review = z.infer<typeof ReviewOutput>;

// ---- request bodies ----

export const PipelineRequest = z.strictObject({
  topic: Topic,
  target_keyword: Keyword,
  language_code: LanguageCode.default("en"),
  location_code: LocationCode.default(2840),
  content_brief: ContentBrief.default({}),
  additional_instructions: z.string().max(5000).optional(),
  auto_fix: z.boolean().default(true),
  max_fix_iterations: z.number().int().min(0).max(10).default(3),
  skip_research: z.boolean().default(false),
  existing_research: z.record(z.string(), z.unknown()).optional(),
  /** Optional: make the article for this workspace (its members can read it); must be yours. */
  workspace_id: z.uuid().optional(),
  /** true: answer 202 {article_id} at once and run in the background (also `Prefer: respond-async`). */
  async: z.boolean().default(false),
  user_id: UserIdIgnored,
}).superRefine((b, ctx) => {
  if (b.skip_research && !b.existing_research) {
    ctx.addIssue({
      code: "custom",
      path: ["existing_research"],
      message: "is required when skip_research is true",
    });
  }
});
export type PipelineRequest = z.infer<typeof PipelineRequest>;

export const ResearchRequest = z.strictObject({
  topic: Topic,
  target_keyword: Keyword,
  language_code: LanguageCode.default("en"),
  location_code: LocationCode.default(2840),
  user_id: UserIdIgnored,
});

export const PlanRequest = z.strictObject({
  topic: Topic,
  target_keyword: Keyword,
  keyword_research: z.record(z.string(), z.unknown()),
  content_brief: ContentBrief.default({}),
  additional_instructions: z.string().max(5000).optional(),
  user_id: UserIdIgnored,
});

export const WriteRequest = z.strictObject({
  article_plan: z.record(z.string(), z.unknown()),
  content_brief: ContentBrief.default({}),
  keyword_research_summary: z.union([z.string().max(20_000), z.record(z.string(), z.unknown())]).optional(),
  additional_instructions: z.string().max(5000).optional(),
  user_id: UserIdIgnored,
});

export const AnalyzeRequest = z.strictObject({
  content_markdown: z.string().min(1, "must not be empty").max(200_000),
  article_plan: z.record(z.string(), z.unknown()),
  content_brief: ContentBrief.default({}),
  auto_fix: z.boolean().default(true),
  max_iterations: z.number().int().min(0).max(10).default(3),
  user_id: UserIdIgnored,
});

/** Parses stage data given in a body (keyword_research, article_plan): 400 naming the field. */
export function parseStageInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  field: string,
): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.slice(0, 5).map((i) => `${[field, ...i.path].join(".")}: ${i.message}`);
  throw DomainError.invalid(`Invalid ${field}: ${issues.join("; ")}`, undefined, "validation_failed");
}
