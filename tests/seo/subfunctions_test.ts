/**
 * The SEO sub-functions called directly with the spec's bodies (seo-research, seo-plan,
 * seo-write, seo-analyze): chained as a client would, the caller taken from the JWT (the body's
 * user_id is ignored), each step charged and refunded on failure, 401 without a JWT, 400s.
 */
import assert from "node:assert/strict";
import { createUser, platformTest } from "../helpers/platform.ts";
import {
  articleInput,
  balance,
  grant,
  KW,
  planInput,
  post,
  reviewInput,
  seoLedger,
  standIns,
  tool,
} from "./helpers.ts";

const brief = {
  contentType: "guide",
  targetAudience: "home owners",
  toneOfVoice: "friendly",
  targetWordCount: 400,
};

platformTest("sub-functions chain with the spec's bodies and bill the JWT's user", async (p) => {
  const { anthropic, dataforseo } = standIns(p);
  const [user, victim] = await Promise.all([createUser(p, "seo-sub"), createUser(p, "seo-sub-victim")]);
  await grant(p, user.id, 20);
  await grant(p, victim.id, 20);

  const research = await post(p, "seo-research", user.accessToken, {
    topic: "Oak floors",
    target_keyword: KW,
    language_code: "en",
    location_code: 2840,
    user_id: victim.id,
  });
  assert.equal(research.status, 200, JSON.stringify(research.body));
  const kr = research.body.data;
  assert.equal(kr.target_keyword, KW);
  assert.equal(typeof kr.search_volume, "number");
  assert.ok(kr.keyword_difficulty >= 0 && kr.keyword_difficulty <= 100);
  assert.ok(kr.related_keywords.length > 0);
  assert.ok(
    kr.competitors.length > 0 && kr.competitors.every((c: { url: string }) => c.url.startsWith("https://")),
  );
  assert.ok(kr.people_also_ask.length > 0);
  assert.ok(kr.provider_cost > 0);
  // Deterministic: the same keyword gets the same data.
  const again = await post(p, "seo-research", user.accessToken, { topic: "Oak floors", target_keyword: KW });
  assert.equal(again.body.data.search_volume, kr.search_volume);
  assert.deepEqual(again.body.data.competitors, kr.competitors);
  const auth = dataforseo.captures.requests()[0].headers.authorization;
  assert.match(auth, /^Basic |\[redacted\]/i);

  anthropic.reply(tool("submit_plan", planInput(KW)));
  const plan = await post(p, "seo-plan", user.accessToken, {
    topic: "Oak floors",
    target_keyword: KW,
    keyword_research: kr,
    content_brief: brief,
    additional_instructions: "Mention sustainability.",
    user_id: victim.id,
  });
  assert.equal(plan.status, 200, JSON.stringify(plan.body));
  assert.equal(plan.body.data.target_word_count, 400);
  assert.equal(plan.body.data.competitors.length, kr.competitors.length);
  const planPrompt = anthropic.captures.requests().at(-1)!.body as { messages: { content: string }[] };
  assert.match(planPrompt.messages[0].content, /Mention sustainability/);
  assert.match(planPrompt.messages[0].content, /People also ask/);

  anthropic.reply(tool("submit_article", articleInput(KW)));
  const write = await post(p, "seo-write", user.accessToken, {
    article_plan: plan.body.data,
    content_brief: brief,
    keyword_research_summary: "High volume, medium difficulty.",
    user_id: victim.id,
  });
  assert.equal(write.status, 200, JSON.stringify(write.body));
  assert.match(write.body.data.content_markdown, /^# The Complete Guide/);
  assert.ok(write.body.data.word_count > 300);

  anthropic.reply(tool("submit_review", reviewInput()));
  const analyze = await post(p, "seo-analyze", user.accessToken, {
    content_markdown: write.body.data.content_markdown,
    article_plan: plan.body.data,
    content_brief: brief,
    auto_fix: true,
    max_iterations: 2,
    user_id: victim.id,
  });
  assert.equal(analyze.status, 200, JSON.stringify(analyze.body));
  const a = analyze.body.data;
  // The body came without its FAQ (seo-write returns it apart), so that check fails.
  assert.equal(a.checks.find((c: { id: string }) => c.id === "faq_present").passed, false);
  assert.equal(typeof a.avg_competitor_score, "number");
  assert.ok(a.content_score > 80 && a.content_score < 100);
  assert.equal(a.fix_stopped, "target_reached");
  assert.equal(a.fix_iterations, 0);

  // 2 + 2 (research twice) + 1 + 3 + 1, all from the JWT's user.
  assert.equal(await balance(p, user.id), 20 - 9);
  assert.equal(await balance(p, victim.id), 20);
});

platformTest("seo-analyze fixes when asked, bounded by max_iterations", async (p) => {
  const { anthropic } = standIns(p);
  const user = await createUser(p, "seo-sub-fix");
  await grant(p, user.id, 20);
  const plan: Record<string, unknown> = { ...planInput(KW), target_keyword: KW, title: "A Guide to Floors" };
  const weak = articleInput(KW, { weak: true });
  anthropic.reply(
    tool("submit_review", reviewInput()),
    tool("submit_article", {
      ...weak,
      title: `A Guide to ${KW}`,
      meta_title: plan.meta_title,
      meta_description: plan.meta_description,
    }),
    tool("submit_article", articleInput(KW)),
  );
  const r = await post(p, "seo-analyze", user.accessToken, {
    content_markdown: weak.content_markdown,
    article_plan: plan,
    content_brief: brief,
    auto_fix: true,
    max_iterations: 1,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data.fix_iterations, 1);
  assert.equal(r.body.data.fix_stopped, "max_iterations");
  assert.equal(anthropic.pendingReplies, 1);
  assert.equal(await balance(p, user.id), 20 - 1 - 2);

  // No auto_fix: score and review only.
  anthropic.reset();
  anthropic.reply(tool("submit_review", reviewInput()));
  const r2 = await post(p, "seo-analyze", user.accessToken, {
    content_markdown: weak.content_markdown,
    article_plan: plan,
    auto_fix: false,
  });
  assert.equal(r2.body.data.fix_stopped, "auto_fix_off");
  assert.equal(r2.body.data.review.tone_matches_brief, true);
});

platformTest("sub-functions: 401 without a JWT, 400 bad bodies, failures refunded, 402", async (p) => {
  const { anthropic, dataforseo } = standIns(p);
  const user = await createUser(p, "seo-sub-refuse");
  await grant(p, user.id, 10);
  for (const fn of ["seo-research", "seo-plan", "seo-write", "seo-analyze"]) {
    const r = await post(p, fn, null, {});
    assert.equal(r.status, 401, fn);
  }
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ["seo-research", { topic: "x" }, /target_keyword/],
    ["seo-research", { topic: "x", target_keyword: KW, location_code: -1 }, /location_code/],
    ["seo-plan", { topic: "x", target_keyword: KW }, /keyword_research/],
    [
      "seo-plan",
      { topic: "x", target_keyword: KW, keyword_research: { competitors: 3 } },
      /keyword_research\.competitors/,
    ],
    ["seo-write", { content_brief: brief }, /article_plan/],
    ["seo-write", { article_plan: { title: "x" } }, /article_plan\./],
    ["seo-analyze", { article_plan: planInput(KW) }, /content_markdown/],
    ["seo-analyze", { content_markdown: "# x", article_plan: {} }, /article_plan/],
    [
      "seo-analyze",
      { content_markdown: "# x", article_plan: planInput(KW), max_iterations: 99 },
      /max_iterations/,
    ],
  ];
  for (const [fn, body, field] of bad) {
    const r = await post(p, fn, user.accessToken, body);
    assert.equal(r.status, 400, `${fn} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, field, fn);
  }
  assert.equal(await balance(p, user.id), 10, "a refused body is not charged");

  dataforseo.failNext(500);
  const down = await post(p, "seo-research", user.accessToken, { topic: "x", target_keyword: KW });
  assert.equal(down.status, 502);
  assert.equal(down.body.code, "keyword_data_error");
  anthropic.reply(tool("submit_plan", { title: "x" }), tool("submit_plan", { title: "y" }));
  const malformed = await post(p, "seo-plan", user.accessToken, {
    topic: "x",
    target_keyword: KW,
    keyword_research: { competitors: [] },
  });
  assert.equal(malformed.status, 502);
  assert.equal(malformed.body.code, "model_bad_output");
  assert.equal(await balance(p, user.id), 10, "failed steps are refunded");
  const ledger = await seoLedger(p, user.id);
  assert.equal(ledger.filter((l) => l.kind === "refund").length, 2);

  const poor = await createUser(p, "seo-sub-poor");
  await grant(p, poor.id, 2);
  const short = await post(p, "seo-write", poor.accessToken, {
    article_plan: { ...planInput(KW), target_keyword: KW },
  });
  assert.equal(short.status, 402);
  assert.equal(anthropic.captures.requests().length, 2, "nothing asked of the model when short");
});
