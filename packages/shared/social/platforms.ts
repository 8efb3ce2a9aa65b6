/**
 * The eight platforms the social functions publish to (spec "Social functions": instagram,
 * facebook, linkedin, tiktok, pinterest, youtube, twitter, threads) and what each accepts, checked
 * before anything is sent to the provider:
 *
 * | platform  | caption (characters) | media             | kinds allowed |
 * | --------- | -------------------- | ----------------- | ------------- |
 * | instagram | 2200                 | required          | image, video  |
 * | facebook  | 63206                | optional          | image, video  |
 * | linkedin  | 3000                 | optional          | image, video  |
 * | tiktok    | 2200                 | required          | video         |
 * | pinterest | 500                  | required          | image, video  |
 * | youtube   | 5000                 | required          | video         |
 * | twitter   | 280                  | optional          | image, video  |
 * | threads   | 500                  | optional          | image, video  |
 *
 * Captions are counted in Unicode code points (an emoji is one), as the platforms count them.
 * Instagram also refuses more than 30 hashtags. A media URL's kind is the declared media_type,
 * else its file extension (jpg, jpeg, png, gif, webp: image; mp4, mov, webm, m4v: video).
 */
import { DomainError } from "../errors.ts";

export const PLATFORMS = [
  "instagram",
  "facebook",
  "linkedin",
  "tiktok",
  "pinterest",
  "youtube",
  "twitter",
  "threads",
] as const;
export type Platform = (typeof PLATFORMS)[number];

export type MediaKind = "image" | "video";

export interface PlatformRules {
  /** Longest caption, in code points. */
  maxCaption: number;
  mediaRequired: boolean;
  mediaKinds: readonly MediaKind[];
  /** Most hashtags a caption may carry (null: no limit of its own). */
  maxHashtags: number | null;
}

export const PLATFORM_RULES: Readonly<Record<Platform, PlatformRules>> = {
  instagram: { maxCaption: 2200, mediaRequired: true, mediaKinds: ["image", "video"], maxHashtags: 30 },
  facebook: { maxCaption: 63206, mediaRequired: false, mediaKinds: ["image", "video"], maxHashtags: null },
  linkedin: { maxCaption: 3000, mediaRequired: false, mediaKinds: ["image", "video"], maxHashtags: null },
  tiktok: { maxCaption: 2200, mediaRequired: true, mediaKinds: ["video"], maxHashtags: null },
  pinterest: { maxCaption: 500, mediaRequired: true, mediaKinds: ["image", "video"], maxHashtags: null },
  youtube: { maxCaption: 5000, mediaRequired: true, mediaKinds: ["video"], maxHashtags: null },
  twitter: { maxCaption: 280, mediaRequired: false, mediaKinds: ["image", "video"], maxHashtags: null },
  threads: { maxCaption: 500, mediaRequired: false, mediaKinds: ["image", "video"], maxHashtags: null },
};

const IMAGE_EXT = new Set(["jpg", "jpeg", "png", "gif", "webp"]);
const VIDEO_EXT = new Set(["mp4", "mov", "webm", "m4v"]);

/** Caption length as the platforms count it: code points. */
export function captionLength(text: string): number {
  return [...text].length;
}

export function countHashtags(text: string): number {
  return (text.match(/(^|\s)#[\p{L}\p{N}_]+/gu) ?? []).length;
}

/** The kind of a media URL: the declared one, else by extension; null when it cannot be told. */
export function mediaKindOf(url: string, declared?: MediaKind | null): MediaKind | null {
  if (declared) return declared;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch (_) {
    // Not a URL: the caller's schema already refuses it; here it simply has no kind.
    return null;
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? "";
  if (IMAGE_EXT.has(ext)) return "image";
  if (VIDEO_EXT.has(ext)) return "video";
  return null;
}

export interface PostDraft {
  platform: Platform;
  content: string;
  media: { url: string; kind: MediaKind | null } | null;
}

/** Every rule the draft breaks, in words (empty when it may be published). */
export function platformProblems(draft: PostDraft): string[] {
  const rules = PLATFORM_RULES[draft.platform];
  const problems: string[] = [];
  const length = captionLength(draft.content);
  if (length > rules.maxCaption) {
    problems.push(
      `${draft.platform} captions are at most ${rules.maxCaption} characters (this one has ${length})`,
    );
  }
  if (rules.maxHashtags !== null && countHashtags(draft.content) > rules.maxHashtags) {
    problems.push(`${draft.platform} allows at most ${rules.maxHashtags} hashtags`);
  }
  if (!draft.media) {
    if (rules.mediaRequired) {
      problems.push(`${draft.platform} posts need media (${rules.mediaKinds.join(" or ")}): give media_url`);
    }
  } else if (draft.media.kind === null) {
    problems.push(
      "the kind of media_url cannot be told from its extension: give media_type (image or video)",
    );
  } else if (!rules.mediaKinds.includes(draft.media.kind)) {
    problems.push(
      `${draft.platform} does not take ${draft.media.kind} media (only ${rules.mediaKinds.join(", ")})`,
    );
  }
  return problems;
}

/** Throws 400 `platform_limits` naming every broken rule. */
export function checkPlatformLimits(draft: PostDraft): void {
  const problems = platformProblems(draft);
  if (problems.length > 0) {
    throw DomainError.invalid(`The post breaks ${draft.platform}'s rules: ${problems.join("; ")}`, {
      platform: draft.platform,
      problems,
    }, "platform_limits");
  }
}
