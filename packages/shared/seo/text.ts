/**
 * Text facts about Markdown articles that scoring and Finalize share: plain text, real word
 * count, headings, first paragraph, sentence and syllable counts (Flesch reading ease), slugs,
 * and the article's Markdown assembled with its FAQ section.
 */
import type { WrittenArticle } from "./schemas.ts";

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Markdown without its syntax: code fences, images, link targets, emphasis and heading marks. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/^\s{0,3}>\s?/gm, "")
    .replace(/^\s*([-*+]|\d+[.)])\s+/gm, "")
    .replace(/[*_~]+/g, "")
    .replace(/^\s*\|?[-:| ]+\|?\s*$/gm, " ")
    .replace(/\|/g, " ");
}

export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Words of the rendered text (what a reader counts), not of the Markdown source. */
export function wordCount(markdown: string): number {
  return words(plainText(markdown)).length;
}

export interface Heading {
  level: number;
  text: string;
}

export function headings(markdown: string): Heading[] {
  const out: Heading[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s{0,3}```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) out.push({ level: m[1].length, text: m[2] });
  }
  return out;
}

/** The first paragraph of body text (after the H1), as plain text. */
export function firstParagraph(markdown: string): string {
  const blocks = markdown.split(/\n\s*\n/).map((b) => b.trim()).filter(Boolean);
  for (const b of blocks) {
    if (/^#{1,6}\s/.test(b) && !b.includes("\n")) continue;
    const body = b.split("\n").filter((l) => !/^#{1,6}\s/.test(l.trim())).join(" ");
    if (body.trim()) return plainText(body).trim();
  }
  return "";
}

export function sentences(text: string): number {
  const n = text.split(/[.!?]+(?:\s|$)/).filter((s) => words(s).length > 0).length;
  return Math.max(1, n);
}

/** Syllables of an English word by vowel groups (the usual Flesch approximation). */
export function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, "");
  if (w.length <= 3) return 1;
  const trimmed = w.replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, "").replace(/^y/, "");
  const groups = trimmed.match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups?.length ?? 1);
}

/** Flesch reading ease (higher is easier; 60-70 is plain English). */
export function fleschReadingEase(text: string): number {
  const ws = words(text);
  if (ws.length === 0) return 0;
  const syl = ws.reduce((n, w) => n + syllables(w), 0);
  return 206.835 - 1.015 * (ws.length / sentences(text)) - 84.6 * (syl / ws.length);
}

/** URL slug: lower-case ASCII words joined by hyphens (accents folded), at most 80 characters. */
export function slugify(title: string): string {
  const s = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (s.length <= 80) return s || "article";
  return s.slice(0, 80).replace(/-[^-]*$/, "") || s.slice(0, 80);
}

/** Case- and spacing-insensitive phrase search on word boundaries. */
export function containsPhrase(text: string, phrase: string): boolean {
  return countPhrase(text, phrase) > 0;
}

export function countPhrase(text: string, phrase: string): number {
  const target = words(phrase.toLowerCase());
  if (target.length === 0) return 0;
  const ws = words(text.toLowerCase());
  let n = 0;
  for (let i = 0; i + target.length <= ws.length; i++) {
    if (target.every((t, j) => ws[i + j] === t)) n++;
  }
  return n;
}

const FAQ_HEADING = /^(faq|faqs|frequently asked questions)\b/i;

/** The article's Markdown: the body, plus its FAQ as an H2 section when the body has none. */
export function assembleMarkdown(a: Pick<WrittenArticle, "content_markdown" | "faq">): string {
  const body = a.content_markdown.trim();
  if (a.faq.length === 0 || headings(body).some((h) => h.level === 2 && FAQ_HEADING.test(h.text))) {
    return body + "\n";
  }
  const faq = a.faq.map((q) => `### ${q.question.trim()}\n\n${q.answer.trim()}`).join("\n\n");
  return `${body}\n\n## Frequently Asked Questions\n\n${faq}\n`;
}

/** Questions of the FAQ section (H3s under an FAQ H2, or ending with "?"). */
export function faqQuestions(markdown: string): string[] {
  const hs = headings(markdown);
  const start = hs.findIndex((h) => h.level === 2 && FAQ_HEADING.test(h.text));
  if (start < 0) return [];
  const out: string[] = [];
  for (const h of hs.slice(start + 1)) {
    if (h.level <= 2) break;
    out.push(h.text);
  }
  return out;
}
