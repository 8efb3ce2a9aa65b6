/**
 * Stage 5, Finalize: the article as the spec returns it. contentHtml is rendered from the
 * Markdown by `marked` (GFM); raw HTML the model wrote is escaped, not passed through, and links
 * or images whose URL is not http(s), mailto, a fragment or relative are neutralised, so the HTML
 * is safe to embed. The slug comes from the title, the word count from the rendered text, and
 * the structured data is schema.org JSON-LD: an Article (schemaMarkup) and an FAQPage
 * (faqSchema, an array holding one FAQPage document, empty when the article has no FAQ).
 */
import { Marked, type Tokens } from "marked";
import type { WrittenArticle } from "./schemas.ts";
import { assembleMarkdown, slugify, wordCount } from "./text.ts";

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** True for URLs a rendered article may link to: relative, fragments, http(s) and mailto only. */
export function safeUrl(href: string): boolean {
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:").
  // deno-lint-ignore no-control-regex
  const h = href.replace(/[\u0000-\u0020]+/g, "");
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(h);
  return !scheme || ["http", "https", "mailto"].includes(scheme[1].toLowerCase());
}

const markdown = new Marked({ gfm: true, async: false });
markdown.use({
  walkTokens(token) {
    if (token.type === "link" || token.type === "image") {
      const t = token as Tokens.Link | Tokens.Image;
      if (!safeUrl(t.href)) t.href = "#";
    }
  },
  renderer: {
    // Raw HTML blocks and inline tags from the model are shown as text, never interpreted.
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
  },
});

export function renderHtml(md: string): string {
  return markdown.parse(md, { async: false }) as string;
}

export interface FinalArticle {
  title: string;
  content_markdown: string;
  content_html: string;
  word_count: number;
  meta_title: string;
  meta_description: string;
  slug: string;
  schema_markup: Record<string, unknown>;
  faq_schema: Record<string, unknown>[];
  content_score: number;
  avg_competitor_score: number | null;
}

export interface FinalizeInput {
  article: WrittenArticle;
  keyword: string;
  secondaryKeywords: string[];
  languageCode: string;
  contentScore: number;
  avgCompetitorScore: number | null;
  now: Date;
}

export function articleJsonLd(a: {
  title: string;
  description: string;
  wordCount: number;
  keywords: string[];
  languageCode: string;
  slug: string;
  now: Date;
}): Record<string, unknown> {
  return {
    "@context": "https://schema.org",
    "@type": "Article",
    headline: a.title.slice(0, 110),
    description: a.description,
    wordCount: a.wordCount,
    inLanguage: a.languageCode,
    keywords: a.keywords.join(", "),
    identifier: a.slug,
    dateCreated: a.now.toISOString(),
    dateModified: a.now.toISOString(),
  };
}

export function faqPageJsonLd(faq: { question: string; answer: string }[]): Record<string, unknown>[] {
  if (faq.length === 0) return [];
  return [{
    "@context": "https://schema.org",
    "@type": "FAQPage",
    mainEntity: faq.map((q) => ({
      "@type": "Question",
      name: q.question.trim(),
      acceptedAnswer: { "@type": "Answer", text: q.answer.trim() },
    })),
  }];
}

export function finalizeArticle(input: FinalizeInput): FinalArticle {
  const a = input.article;
  const md = assembleMarkdown(a);
  const slug = slugify(a.title);
  const count = wordCount(md);
  const keywords = [input.keyword, ...input.secondaryKeywords.filter((k) => k.trim())].slice(0, 10);
  return {
    title: a.title.trim(),
    content_markdown: md,
    content_html: renderHtml(md),
    word_count: count,
    meta_title: a.meta_title.trim(),
    meta_description: a.meta_description.trim(),
    slug,
    schema_markup: articleJsonLd({
      title: a.title.trim(),
      description: a.meta_description.trim(),
      wordCount: count,
      keywords,
      languageCode: input.languageCode,
      slug,
      now: input.now,
    }),
    faq_schema: faqPageJsonLd(a.faq),
    content_score: input.contentScore,
    avg_competitor_score: input.avgCompetitorScore,
  };
}
