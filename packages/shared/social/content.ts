/**
 * generate-social-content: three caption variants for a platform, written by the language
 * model (Anthropic Messages API, agent/llm.ts) and checked with zod before anyone is charged
 * for them. Stages: debit 2 credits (spec Limits "social content generation") -> prompt -> parse
 * and validate the model's JSON -> answer; any failure after the debit refunds it in full.
 *
 * The model must answer {"variants": [{"caption", "hashtags": []}] x 3}. Hashtags are
 * normalised to `#word`; with include_hashtags each variant keeps exactly hashtag_count of them
 * (fewer is a bad answer), without it none. Each variant's full text (caption, a blank line,
 * the hashtags) must fit the platform's caption limit. Answer: {success, platform, variants:
 * [{caption, hashtags, text, character_count}], credits_used, balance}.
 * Model: SOCIAL_CONTENT_MODEL, default claude-sonnet-4-6.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { debit, refund } from "../credits/ledger.ts";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";
import type { SocialScope } from "./accounts.ts";
import { captionLength, PLATFORM_RULES } from "./platforms.ts";
import type { ContentBody } from "./schemas.ts";

export const CONTENT_CREDITS = 2;
const DEFAULT_MODEL = "claude-sonnet-4-6";

const ModelOutput = z.object({
  variants: z.array(z.object({
    caption: z.string().trim().min(1),
    hashtags: z.array(z.string()).default([]),
  })).length(3),
});

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
    "Answer with one JSON object and nothing else, of the form",
    '{"variants": [{"caption": "...", "hashtags": ["#tag", ...]}, ...]} with exactly 3 variants.',
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

function jsonIn(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("the answer holds no JSON object");
  return JSON.parse(text.slice(start, end + 1));
}

/** The model's answer as checked variants; throws (with the reason) when it is not usable. */
export function parseVariants(text: string, req: ContentBody): CaptionVariant[] {
  const out = ModelOutput.safeParse(jsonIn(text));
  if (!out.success) throw new Error(`the answer does not match the schema: ${out.error.issues[0]?.message}`);
  const limit = PLATFORM_RULES[req.platform].maxCaption;
  return out.data.variants.map((v, i) => {
    const tags = [
      ...new Set(
        v.hashtags.map((h) => h.trim().replace(/^#+/, "")).filter((h) => /^[\p{L}\p{N}_]+$/u.test(h)),
      ),
    ]
      .map((h) => `#${h}`);
    if (req.include_hashtags && tags.length < req.hashtag_count) {
      throw new Error(
        `variant ${i + 1} has ${tags.length} usable hashtags, ${req.hashtag_count} were asked for`,
      );
    }
    const hashtags = req.include_hashtags ? tags.slice(0, req.hashtag_count) : [];
    const full = hashtags.length ? `${v.caption}\n\n${hashtags.join(" ")}` : v.caption;
    const length = captionLength(full);
    if (length > limit) {
      throw new Error(`variant ${i + 1} has ${length} characters, ${req.platform} allows ${limit}`);
    }
    return { caption: v.caption, hashtags, text: full, character_count: length };
  });
}

export async function generateContent(s: SocialScope, llm: Anthropic, req: ContentBody) {
  const charge = await debit(s.service, {
    userId: s.userId,
    action: "social_content_generation",
    credits: CONTENT_CREDITS,
    metadata: { workspace_id: s.workspaceId, platform: req.platform },
  });
  try {
    const { system, user } = contentPrompt(req);
    const message = await llm.messages.create({
      model: env("SOCIAL_CONTENT_MODEL") ?? DEFAULT_MODEL,
      max_tokens: 2048,
      system,
      messages: [{ role: "user", content: user }],
    });
    const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    let variants: CaptionVariant[];
    try {
      variants = parseVariants(text, req);
    } catch (err) {
      throw new DomainError(
        "upstream",
        "invalid_model_output",
        `The language model gave an unusable answer (${(err as Error).message}); the credits were refunded`,
      );
    }
    return {
      success: true,
      platform: req.platform,
      variants,
      credits_used: CONTENT_CREDITS,
      balance: charge.balance,
    };
  } catch (err) {
    await refund(s.service, charge, `social content generation failed: ${(err as Error).message}`);
    if (err instanceof DomainError) throw err;
    throw new DomainError("upstream", "llm_error", "The language model failed; the credits were refunded");
  }
}
