/**
 * The content score (Analyze stage): a deterministic 0-100 rubric of on-page SEO checks, each
 * worth fixed points, computed from the article itself (no model):
 *
 * | check                      | points | passes when                                             |
 * | -------------------------- | ------ | ------------------------------------------------------- |
 * | keyword_in_title           | 10     | the title contains the target keyword                   |
 * | keyword_in_h1              | 10     | exactly one H1, containing the keyword                  |
 * | keyword_in_first_paragraph | 10     | the first body paragraph contains the keyword           |
 * | keyword_density            | 10     | 0.5-2.5 % of words (half points 0.2-0.5 % or 2.5-3.5 %) |
 * | h2_structure               | 10     | at least 3 H2 sections (half points for 2)              |
 * | keyword_in_subheading      | 5      | an H2/H3 has the keyword or a secondary keyword         |
 * | length_vs_target           | 10     | 90-130 % of the target word count (half 70-90/130-160)  |
 * | readability                | 10     | Flesch reading ease >= 50 (half points >= 30)           |
 * | meta_title_length          | 5      | 30-60 characters                                        |
 * | keyword_in_meta_title      | 5      | the meta title contains the keyword                     |
 * | meta_description_length    | 5      | 120-160 characters                                      |
 * | keyword_in_meta_description| 5      | the meta description contains the keyword               |
 * | faq_present                | 5      | an FAQ section with at least 3 questions                |
 *
 * Competitors are scored on the part of the rubric a SERP result shows (title, snippet, URL):
 * keyword in title (10), title length 30-60 (5), keyword in snippet (5), snippet length
 * 120-160 (5), keyword in URL (5), scaled to 0-100; `serp_score` is our article on the same
 * subset, so the two compare like with like. avgCompetitorScore is their mean.
 */
import type { Competitor } from "./schemas.ts";
import {
  containsPhrase,
  countPhrase,
  faqQuestions,
  firstParagraph,
  fleschReadingEase,
  headings,
  plainText,
  slugify,
  wordCount,
  words,
} from "./text.ts";

export interface ScoreInput {
  markdown: string;
  title: string;
  metaTitle: string;
  metaDescription: string;
  keyword: string;
  secondaryKeywords: string[];
  targetWordCount: number;
}

export interface Check {
  id: string;
  points: number;
  max: number;
  passed: boolean;
  detail: string;
}

export interface ContentScore {
  score: number;
  checks: Check[];
  metrics: {
    word_count: number;
    keyword_count: number;
    keyword_density: number;
    flesch_reading_ease: number;
    h1_count: number;
    h2_count: number;
    faq_questions: number;
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function graded(id: string, max: number, full: boolean, half: boolean, detail: string): Check {
  const points = full ? max : half ? max / 2 : 0;
  return { id, points, max, passed: full, detail };
}

export function scoreContent(input: ScoreInput): ContentScore {
  const kw = input.keyword;
  const text = plainText(input.markdown);
  const total = words(text).length;
  const kwCount = countPhrase(text, kw);
  // Uses of the phrase per 100 words (the usual keyphrase density).
  const density = total ? (kwCount * 100) / total : 0;
  const hs = headings(input.markdown);
  const h1 = hs.filter((h) => h.level === 1);
  const h2 = hs.filter((h) => h.level === 2);
  const sub = hs.filter((h) => h.level === 2 || h.level === 3);
  const faq = faqQuestions(input.markdown).length;
  const flesch = fleschReadingEase(text);
  const count = wordCount(input.markdown);
  const ratio = count / input.targetWordCount;
  const mt = input.metaTitle.trim().length;
  const md = input.metaDescription.trim().length;
  const subKeywords = [kw, ...input.secondaryKeywords];

  const checks: Check[] = [
    graded("keyword_in_title", 10, containsPhrase(input.title, kw), false, `title: "${input.title}"`),
    graded(
      "keyword_in_h1",
      10,
      h1.length === 1 && containsPhrase(h1[0].text, kw),
      false,
      h1.length === 1 ? `H1: "${h1[0].text}"` : `${h1.length} H1 headings (want exactly 1)`,
    ),
    graded(
      "keyword_in_first_paragraph",
      10,
      containsPhrase(firstParagraph(input.markdown), kw),
      false,
      "the first paragraph should use the keyword",
    ),
    graded(
      "keyword_density",
      10,
      density >= 0.5 && density <= 2.5,
      (density >= 0.2 && density < 0.5) || (density > 2.5 && density <= 3.5),
      `${round1(density)}% (${kwCount} uses in ${total} words; want 0.5-2.5%)`,
    ),
    graded("h2_structure", 10, h2.length >= 3, h2.length === 2, `${h2.length} H2 sections (want 3 or more)`),
    graded(
      "keyword_in_subheading",
      5,
      sub.some((h) => subKeywords.some((k) => k.trim() && containsPhrase(h.text, k))),
      false,
      "an H2 or H3 should carry the keyword or a secondary keyword",
    ),
    graded(
      "length_vs_target",
      10,
      ratio >= 0.9 && ratio <= 1.3,
      (ratio >= 0.7 && ratio < 0.9) || (ratio > 1.3 && ratio <= 1.6),
      `${count} words for a target of ${input.targetWordCount} (${Math.round(ratio * 100)}%)`,
    ),
    graded("readability", 10, flesch >= 50, flesch >= 30, `Flesch reading ease ${round1(flesch)} (want 50+)`),
    graded("meta_title_length", 5, mt >= 30 && mt <= 60, false, `${mt} characters (want 30-60)`),
    graded(
      "keyword_in_meta_title",
      5,
      containsPhrase(input.metaTitle, kw),
      false,
      "meta title has the keyword",
    ),
    graded("meta_description_length", 5, md >= 120 && md <= 160, false, `${md} characters (want 120-160)`),
    graded(
      "keyword_in_meta_description",
      5,
      containsPhrase(input.metaDescription, kw),
      false,
      "meta description has the keyword",
    ),
    graded("faq_present", 5, faq >= 3, false, `${faq} FAQ questions (want 3 or more)`),
  ];
  return {
    score: round1(checks.reduce((n, c) => n + c.points, 0)),
    checks,
    metrics: {
      word_count: count,
      keyword_count: kwCount,
      keyword_density: round1(density),
      flesch_reading_ease: round1(flesch),
      h1_count: h1.length,
      h2_count: h2.length,
      faq_questions: faq,
    },
  };
}

export interface SerpView {
  title: string;
  snippet: string | null;
  url: string;
}

/** The SERP-visible subset of the rubric, 0-100. */
export function serpScore(v: SerpView, keyword: string): number {
  const t = v.title.trim().length;
  const s = (v.snippet ?? "").trim().length;
  const kwSlug = slugify(keyword);
  let path = v.url;
  try {
    path = decodeURIComponent(new URL(v.url).pathname).toLowerCase();
  } catch (_) {
    path = v.url.toLowerCase(); // a bare slug (our own article) or a malformed URL: match it as text
  }
  const slugish = path.replace(/[^a-z0-9]+/g, "-");
  const points = (containsPhrase(v.title, keyword) ? 10 : 0) +
    (t >= 30 && t <= 60 ? 5 : 0) +
    (v.snippet && containsPhrase(v.snippet, keyword) ? 5 : 0) +
    (s >= 120 && s <= 160 ? 5 : 0) +
    (kwSlug && slugish.includes(kwSlug) ? 5 : 0);
  return round1((points * 100) / 30);
}

/** Mean SERP score of the organic competitors; null without any. */
export function avgCompetitorScore(competitors: Competitor[], keyword: string): number | null {
  if (competitors.length === 0) return null;
  const sum = competitors.reduce(
    (n, c) => n + serpScore({ title: c.title, snippet: c.description, url: c.url }, keyword),
    0,
  );
  return round1(sum / competitors.length);
}
