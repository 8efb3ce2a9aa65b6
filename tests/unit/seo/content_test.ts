/**
 * The SEO pipeline's deterministic parts: the content-score rubric (check by check), the SERP
 * score of competitors, word counts, slugs, HTML rendering with raw HTML escaped and unsafe
 * links neutralised, and the schema.org JSON-LD of Finalize.
 */
import assert from "node:assert/strict";
import { avgCompetitorScore, scoreContent, serpScore } from "../../../packages/shared/seo/score.ts";
import { finalizeArticle, renderHtml, safeUrl } from "../../../packages/shared/seo/render.ts";
import {
  assembleMarkdown,
  countPhrase,
  faqQuestions,
  slugify,
  wordCount,
} from "../../../packages/shared/seo/text.ts";
import { ArticleOutput } from "../../../packages/shared/seo/schemas.ts";
import { articleInput } from "../../../fixtures/seo.ts";

const KW = "oak flooring";

function score(article: Record<string, unknown>, target = 400) {
  const a = ArticleOutput.parse(article);
  return scoreContent({
    markdown: assembleMarkdown(a),
    title: a.title,
    metaTitle: a.meta_title,
    metaDescription: a.meta_description,
    keyword: KW,
    secondaryKeywords: [`${KW} cost`],
    targetWordCount: target,
  });
}

const byId = (s: ReturnType<typeof score>) => Object.fromEntries(s.checks.map((c) => [c.id, c]));

Deno.test("a strong article passes every check of the rubric", () => {
  const s = score(articleInput(KW));
  const failing = s.checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.detail}`);
  assert.deepEqual(failing, []);
  assert.equal(s.score, 100);
  assert.equal(s.checks.reduce((n, c) => n + c.max, 0), 100);
  assert.ok(s.metrics.keyword_density >= 0.5 && s.metrics.keyword_density <= 2.5);
  assert.equal(s.metrics.faq_questions, 3);
});

Deno.test("a weak article fails the keyword placement, meta and FAQ checks", () => {
  const s = score(articleInput(KW, { weak: true }));
  const c = byId(s);
  for (
    const id of [
      "keyword_in_title",
      "keyword_in_h1",
      "keyword_in_first_paragraph",
      "meta_title_length",
      "keyword_in_meta_title",
      "meta_description_length",
      "keyword_in_meta_description",
      "faq_present",
    ]
  ) {
    assert.equal(c[id].passed, false, id);
    assert.equal(c[id].points, 0, id);
  }
  assert.ok(s.score < 60, `score ${s.score}`);
});

Deno.test("length is graded against the target word count", () => {
  const cases: [number, number][] = [[400, 10], [560, 5], [1000, 0]];
  for (const [target, points] of cases) {
    assert.equal(byId(score(articleInput(KW), target)).length_vs_target.points, points, `target ${target}`);
  }
});

Deno.test("keyword density: too many uses lose the points", () => {
  const stuffed = articleInput(KW);
  stuffed.content_markdown = `# ${KW}\n\n${Array(40).fill(`${KW} is great.`).join(" ")}`;
  const c = byId(score(stuffed));
  assert.equal(c.keyword_density.passed, false);
  assert.match(c.keyword_density.detail, /%/);
});

Deno.test("SERP score and competitor average", () => {
  const good = {
    title: "Oak Flooring: The Complete Guide for Homes",
    snippet:
      "Learn about oak flooring: types, costs, installation tips and what to look for before you buy. " +
      "Compared by our editors in real homes.",
    url: "https://example.com/oak-flooring-guide",
  };
  assert.equal(serpScore(good, KW), 100);
  assert.equal(serpScore({ title: "Floors", snippet: null, url: "https://example.com/a/1" }, KW), 0);
  assert.equal(avgCompetitorScore([], KW), null);
  const avg = avgCompetitorScore([
    { rank: 1, domain: "a", url: good.url, title: good.title, description: good.snippet },
    { rank: 2, domain: "b", url: "https://b.example/x", title: "Floors", description: null },
  ], KW);
  assert.equal(avg, 50);
});

Deno.test("text helpers: word count of rendered text, phrases, slugs, FAQ", () => {
  assert.equal(wordCount("# Title here\n\nSome **bold** [link text](https://x.y/z) and `code`."), 8);
  assert.equal(countPhrase("Oak  flooring, oak flooring! OAK-flooring", KW), 2);
  const slugCases: [string, string][] = [
    ["The Complete Guide to Oak Flooring!", "the-complete-guide-to-oak-flooring"],
    ["Carrelage & Céramique", "carrelage-and-ceramique"],
    ["???", "article"],
  ];
  for (const [title, slug] of slugCases) assert.equal(slugify(title), slug);
  assert.ok(slugify("word ".repeat(40)).length <= 80);
  const md = assembleMarkdown({
    content_markdown: "# T\n\nBody.",
    faq: [{ question: "Why?", answer: "Because." }],
  });
  assert.deepEqual(faqQuestions(md), ["Why?"]);
});

Deno.test("HTML: raw HTML from the model is escaped and unsafe links are neutralised", () => {
  const html = renderHtml(
    "# Hi\n\n<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> [a](javascript:alert(1)) " +
      "[b](https://ok.example/) [c](JaVa\tScRiPt:alert(1)) ![i](data:text/html;base64,xx)",
  );
  assert.match(html, /<h1>Hi<\/h1>/);
  assert.doesNotMatch(html, /<script|<img src=x|javascript:|data:text/i);
  assert.match(html, /&lt;script&gt;/);
  assert.match(html, /href="https:\/\/ok.example\/"/);
  const safe: [string, boolean][] = [
    ["https://a.b", true],
    ["/path", true],
    ["#frag", true],
    ["mailto:a@b.c", true],
    ["javascript:x", false],
    [" java\nscript:x", false],
    ["vbscript:x", false],
    ["data:x", false],
  ];
  for (const [url, ok] of safe) assert.equal(safeUrl(url), ok, url);
});

Deno.test("Finalize: Article and FAQPage JSON-LD, slug, real word count", () => {
  const a = ArticleOutput.parse(articleInput(KW));
  const f = finalizeArticle({
    article: a,
    keyword: KW,
    secondaryKeywords: ["oak flooring cost"],
    languageCode: "en",
    contentScore: 95,
    avgCompetitorScore: 40,
    now: new Date("2026-11-24T12:00:00Z"),
  });
  assert.equal(f.slug, "the-complete-guide-to-oak-flooring");
  assert.equal(f.word_count, wordCount(f.content_markdown));
  assert.equal(f.schema_markup["@context"], "https://schema.org");
  assert.equal(f.schema_markup["@type"], "Article");
  assert.equal(f.schema_markup.headline, a.title);
  assert.equal(f.schema_markup.wordCount, f.word_count);
  assert.equal(f.faq_schema.length, 1);
  const faq = f.faq_schema[0] as { "@type": string; mainEntity: Record<string, unknown>[] };
  assert.equal(faq["@type"], "FAQPage");
  assert.equal(faq.mainEntity.length, 3);
  assert.deepEqual(Object.keys(faq.mainEntity[0]).sort(), ["@type", "acceptedAnswer", "name"]);
  assert.equal((faq.mainEntity[0].acceptedAnswer as Record<string, unknown>)["@type"], "Answer");
  assert.match(f.content_html, /<h2>Frequently Asked Questions<\/h2>/);
  const none = finalizeArticle({
    article: { ...a, faq: [] },
    keyword: KW,
    secondaryKeywords: [],
    languageCode: "en",
    contentScore: 1,
    avgCompetitorScore: null,
    now: new Date(),
  });
  assert.deepEqual(none.faq_schema, []);
});
