/**
 * generate-social-content: three caption variants for a platform, written by the language
 * model (the platform's model layer, ../llm: a forced submit_variants tool call checked with zod
 * and the rules below, retried once with the problem quoted back) before anyone is charged for
 * them. Stages: check the model is configured (503 model_unavailable, nothing debited) -> debit 2
 * credits (spec Limits "social content generation") -> prompt -> structured answer -> answer; a
 * model failure (model_unavailable, model_bad_output: 502) refunds the debit once, in full.
 *
 * The model submits {variants: [{caption, hashtags: []}] x 3}. Hashtags are normalised to
 * `#word`; with include_hashtags each variant keeps exactly hashtag_count of them (fewer is a bad
 * answer), without it none. Each variant's full text (caption, a blank line, the hashtags) must
 * fit the platform's caption limit. Answer: {success, platform, variants: [{caption, hashtags,
 * text, character_count}], credits_used, balance}.
 * Model: SOCIAL_CONTENT_MODEL, default vendor-sonnet-4-5 (SONNET).
 */
import { z } from "zod";
import { runBilled } from "../credits/ledger.ts";
import { env } from "../env.ts";
import { type Llm, SONNET } from "../llm/mod.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { captionLength, PLATFORM_RULES } from "./platforms.ts";
import type { ContentBody } from "./schemas.ts";
import { actingUser } from "./accounts.ts";

export const CONTENT_CREDITS = 2;
const TOOL = "submit_variants";

/** The submit_variants input for a request: three captions, each with at least the hashtags asked. */
export function variantsSchema(req: ContentBody) {
  const hashtags = z.array(z.string());
  return z.object({
    variants: z.array(z.object({
      caption: z.string().trim().min(1).max(PLATFORM_RULES[req.platform].maxCaption),
      hashtags: (req.include_hashtags ? hashtags.min(req.hashtag_count) : hashtags).default([]),
    })).length(3),
  });
}
export type VariantsAnswer = z.infer<ReturnType<typeof variantsSchema>>;

export interface CaptionVariant {
  caption: string;
  hashtags: string[];
  text: string;
  character_count: number;
}

export function contentPrompt(req: ContentBody): { system: string; user: string } {
  const rules = PLATFORM_RULES[req.platform];
  const system = [
    "You write social media captions for a building-materials business.",
    `Submit exactly 3 variants with ${TOOL}.`,
    "Each variant takes a different angle. Captions contain no hashtags of their own.",
  ].join(" ");
  const lines = [
    `Platform: ${req.platform} (captions up to ${rules.maxCaption} characters including hashtags).`,
    `Topic: ${req.topic}`,
    `Tone: ${req.tone}`,
  ];
  if (req.product_info) {
    lines.push(
      `Product: ${req.product_info.name}${
        req.product_info.category ? ` (${req.product_info.category})` : ""
      }`,
    );
  }
  lines.push(
    req.include_hashtags
      ? `Give exactly ${req.hashtag_count} relevant hashtags per variant.`
      : "Give no hashtags (an empty list).",
  );
  return { system, user: lines.join("\n") };
}

/** The model's variants as checked captions, or the problem that makes the answer unusable. */
export function shapeVariants(
  answer: VariantsAnswer,
  req: ContentBody,
): { variants: CaptionVariant[] } | { problem: string } {
  const limit = PLATFORM_RULES[req.platform].maxCaption;
  const variants: CaptionVariant[] = [];
  for (const [i, v] of answer.variants.entries()) {
    const tags = [
      ...new Set(
        v.hashtags.map((h) => h.trim().replace(/^#+/, "")).filter((h) => /^[\p{L}\p{N}_]+$/u.test(h)),
      ),
    ]
      .map((h) => `#${h}`);
    if (req.include_hashtags && tags.length < req.hashtag_count) {
      return {
        problem: `variant ${i + 1} has ${tags.length} usable hashtags, ${req.hashtag_count} were asked for`,
      };
    }
    const hashtags = req.include_hashtags ? tags.slice(0, req.hashtag_count) : [];
    const full = hashtags.length ? `${v.caption}\n\n${hashtags.join(" ")}` : v.caption;
    const length = captionLength(full);
    if (length > limit) {
      return { problem: `variant ${i + 1} has ${length} characters, ${req.platform} allows ${limit}` };
    }
    variants.push({ caption: v.caption, hashtags, text: full, character_count: length });
  }
  return { variants };
}

export async function generateContent(s: WorkspaceScope, llm: Llm, req: ContentBody) {
  const purpose = "Social content generation";
  llm.assertConfigured(purpose);
  const request = {
    userId: actingUser(s),
    action: "social_content_generation",
    credits: CONTENT_CREDITS,
    metadata: { workspace_id: s.workspaceId, platform: req.platform },
  };
  const { result, charge } = await runBilled(
    () => s.service,
    request,
    async () => {
      const { system, user } = contentPrompt(req);
      const r = await llm.structured(variantsSchema(req), {
        model: env("SOCIAL_CONTENT_MODEL") ?? SONNET,
        purpose,
        system,
        prompt: user,
        tool: TOOL,
        description: "Submit the three caption variants",
        maxTokens: 2048,
        check: (answer) => {
          const shaped = shapeVariants(answer, req);
          return "problem" in shaped ? shaped.problem : null;
        },
      });
      return shapeVariants(r.value, req) as { variants: CaptionVariant[] };
    },
    () => null,
    (err) => `social content generation failed: ${err.message}`,
  );
  return {
    success: true,
    platform: req.platform,
    variants: result.variants,
    credits_used: CONTENT_CREDITS,
    balance: charge!.balance,
  };
}
