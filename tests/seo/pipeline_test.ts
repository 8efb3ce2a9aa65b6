/**
 * seo-pipeline over HTTP (spec "SEO", States and transitions seo_articles): refusals (401, 400,
 * 402), the status sequence a client sees polling /rest/v1/seo_articles with monotonic
 * progress, the spec's 200 body, auto_fix bounded by max_fix_iterations, failing stages (nothing
 * half-written, credits refunded), restart handling by the sweeper, and who may read articles.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, pauseCronJobsInModule, platformTest } from "../helpers/platform.ts";
import {
  articleInput,
  balance,
  grant,
  type Json,
  KW,
  pipelineBody,
  planInput,
  post,
  row,
  scriptPipeline,
  seoLedger,
  settled,
  standIns,
  tool,
} from "./helpers.ts";

// This module drives seo-pipeline-sweeper by hand: the real per-minute tick must not claim its work.
pauseCronJobsInModule("seo-pipeline-sweeper");

const STATUSES = ["researching", "planning", "writing", "analyzing", "completed"];

platformTest("seo-pipeline refuses: 401 without a JWT, 400 bad bodies, 402 short balance", async (p) => {
  const user = await createUser(p, "seo-refuse");
  await grant(p, user.id, 6);
  const anon = await post(p, "seo-pipeline", null, pipelineBody());
  assert.equal(anon.status, 401);
  const service = await post(p, "seo-pipeline", p.config.serviceRoleKey, pipelineBody());
  assert.equal(service.status, 401, "the service role is not a user");

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ ...pipelineBody(), topic: undefined }, /topic/],
    [{ ...pipelineBody(), target_keyword: "  " }, /target_keyword/],
    [pipelineBody({ skip_research: true }), /existing_research/],
    [pipelineBody({ location_code: "us" }), /location_code/],
    [pipelineBody({ language_code: "English" }), /language_code/],
    [pipelineBody({ max_fix_iterations: 11 }), /max_fix_iterations/],
    [pipelineBody({ content_brief: { targetWordCount: 50 } }), /targetWordCount/],
    [pipelineBody({ content_brief: { wordz: 1 } }), /content_brief/],
    [pipelineBody({ workspace_id: "not-a-uuid" }), /workspace_id/],
  ];
  for (const [body, field] of bad) {
    const r = await post(p, "seo-pipeline", user.accessToken, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.code, "validation_failed");
    assert.match(r.body.error, field);
  }
  const notJson = await post(p, "seo-pipeline", user.accessToken, "{nope");
  assert.equal(notJson.status, 400);

  // 6 credits < 7: nothing is created, nothing is charged.
  const short = await post(p, "seo-pipeline", user.accessToken, pipelineBody());
  assert.equal(short.status, 402);
  assert.equal(short.body.code, "insufficient_credits");
  assert.equal(short.body.details.required, 7);
  const rows = await p.db.query(`select 1 from public.seo_articles where user_id = $1`, [user.id]);
  assert.equal(rows.rows.length, 0);
  assert.equal(await balance(p, user.id), 6);

  // Someone else's workspace: 404, as for one that does not exist.
  const other = await createUser(p, "seo-refuse-other");
  const ws = await createWorkspace(p, other.id);
  await grant(p, user.id, 10);
  const foreign = await post(p, "seo-pipeline", user.accessToken, pipelineBody({ workspace_id: ws }));
  assert.equal(foreign.status, 404);
});

platformTest("async run: polled status sequence, monotonic progress, the finished article", async (p) => {
  const { anthropic, dataforseo } = standIns(p);
  const user = await createUser(p, "seo-async");
  await grant(p, user.id, 50);
  dataforseo.setLatency(120); // research lasts long enough for a poll to see it

  const seen: { status: string; progress: number; stage: string }[] = [];
  let articleId = "";
  const poll = async () => {
    const { data, error } = await user.client.from("seo_articles")
      .select("status, progress_percentage, current_stage").eq("id", articleId).single();
    assert.equal(error, null);
    seen.push({ status: data!.status, progress: data!.progress_percentage, stage: data!.current_stage });
    return data!;
  };
  const atReply: Record<string, Json> = {};
  scriptPipeline(anthropic, KW, {
    before: async (stage) => {
      atReply[stage] = await poll();
    },
  });

  const started = await post(p, "seo-pipeline", user.accessToken, pipelineBody({ async: true }));
  assert.equal(started.status, 202, JSON.stringify(started.body));
  articleId = started.body.data.article_id;
  assert.equal(started.body.data.status, "researching");
  assert.equal(started.body.data.poll, `/rest/v1/seo_articles?id=eq.${articleId}`);

  let last: Json;
  const until = Date.now() + 20_000;
  do {
    last = await poll();
    await new Promise((r) => setTimeout(r, 15));
  } while (last.status !== "completed" && last.status !== "failed" && Date.now() < until);
  assert.equal(last.status, "completed", JSON.stringify((await row(p, articleId)).error));

  // Each model call saw its own stage.
  assert.deepEqual(
    [atReply.plan.status, atReply.write.status, atReply.review.status],
    ["planning", "writing", "analyzing"],
  );
  assert.deepEqual(
    [atReply.plan.current_stage, atReply.write.current_stage, atReply.review.current_stage],
    ["plan", "write", "analyze"],
  );
  const statuses = seen.map((s) => s.status).filter((s, i, a) => i === 0 || a[i - 1] !== s);
  assert.deepEqual(statuses, STATUSES);
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i].progress >= seen[i - 1].progress, `progress went down: ${JSON.stringify(seen)}`);
    assert.ok(STATUSES.indexOf(seen[i].status) >= STATUSES.indexOf(seen[i - 1].status));
  }
  assert.equal(seen.at(-1)!.progress, 100);

  const r = await row(p, articleId);
  assert.equal(r.title, `The Complete Guide to ${KW}`);
  assert.equal(r.slug, "the-complete-guide-to-oak-flooring");
  assert.ok(r.word_count > 350);
  assert.match(r.content_html, /<h1>The Complete Guide to oak flooring<\/h1>/);
  assert.equal(r.schema_markup["@type"], "Article");
  assert.equal(r.faq_schema[0]["@type"], "FAQPage");
  assert.equal(Number(r.content_score), 100);
  assert.ok(r.avg_competitor_score !== null);
  assert.equal(r.research.source, "dataforseo");
  assert.ok(r.research.competitors.length > 0);
  assert.equal(r.analysis.fix_stopped, "target_reached");
  assert.equal(r.worker_id, null);

  // DataForSEO: four live calls, Basic auth, one task each in the wire format.
  const calls = dataforseo.captures.requests();
  assert.deepEqual(calls.map((c) => c.path).sort(), [
    "/dataforseo_labs/google/bulk_keyword_difficulty/live",
    "/dataforseo_labs/google/related_keywords/live",
    "/keywords_data/google_ads/search_volume/live",
    "/serp/google/organic/live/advanced",
  ]);
  for (const c of calls) {
    assert.ok(Array.isArray(c.body) && (c.body as Json[]).length === 1);
    assert.equal((c.body as Json[])[0].location_code, 2840);
    assert.equal((c.body as Json[])[0].language_code, "en");
  }
  // The model was asked for structured output through a forced tool.
  const first = anthropic.captures.requests()[0].body as Json;
  assert.deepEqual(first.tool_choice, { type: "tool", name: "submit_plan" });

  // 2 research + 1 plan + 3 write + 1 analyze, nothing refunded.
  assert.equal(await balance(p, user.id), 43);
  assert.deepEqual((await seoLedger(p, user.id)).map((l) => `${l.kind}:${l.action}:${l.amount}`), [
    "debit:seo_research:-2",
    "debit:seo_plan:-1",
    "debit:seo_write:-3",
    "debit:seo_analyze:-1",
  ]);
});

platformTest("sync run answers the spec's 200 body; RLS: author and workspace members read it", async (p) => {
  const { anthropic } = standIns(p);
  const [author, member, stranger] = await Promise.all([
    createUser(p, "seo-sync"),
    createUser(p, "seo-sync-member"),
    createUser(p, "seo-sync-stranger"),
  ]);
  const ws = await createWorkspace(p, author.id, { [member.id]: "member" });
  await grant(p, author.id, 20);
  scriptPipeline(anthropic, KW);
  const res = await post(
    p,
    "seo-pipeline",
    author.accessToken,
    pipelineBody({ workspace_id: ws, user_id: stranger.id }),
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.success, true);
  const { article_id, article } = res.body.data;
  assert.equal(article.id, article_id);
  assert.deepEqual(Object.keys(article).sort(), [
    "contentHtml",
    "contentMarkdown",
    "faqSchema",
    "id",
    "metaDescription",
    "metaTitle",
    "optimize",
    "schemaMarkup",
    "slug",
    "status",
    "title",
    "wordCount",
  ]);
  assert.equal(article.status, "completed");
  assert.equal(typeof article.optimize.contentScore, "number");
  assert.equal(typeof article.optimize.avgCompetitorScore, "number");
  assert.ok(Array.isArray(article.faqSchema));
  assert.match(article.contentMarkdown, /## Frequently Asked Questions/);
  assert.equal(article.schemaMarkup.wordCount, article.wordCount);
  assert.equal((await row(p, article_id)).user_id, author.id, "the body's user_id is ignored");

  for (const [who, visible] of [[author, 1], [member, 1], [stranger, 0]] as const) {
    const { data } = await who.client.from("seo_articles").select("id").eq("id", article_id);
    assert.equal(data!.length, visible);
  }
  // Users cannot write rows themselves.
  const forged = await stranger.client.from("seo_articles").insert({
    user_id: stranger.id,
    topic: "x",
    target_keyword: "x",
  });
  assert.ok(forged.error);
  const upd = await author.client.from("seo_articles").update({ status: "completed" }).eq("id", article_id)
    .select();
  assert.ok(upd.error || upd.data!.length === 0);
});

platformTest("auto_fix rewrites while the score improves, bounded by max_fix_iterations", async (p) => {
  const { anthropic } = standIns(p);
  const user = await createUser(p, "seo-fix");
  await grant(p, user.id, 100);
  const weak = articleInput(KW, { weak: true });
  // Each fix improves a little but never reaches the target: exactly max_fix_iterations fixes.
  const better1 = { ...weak, title: `A Guide to ${KW}` };
  const better2 = { ...better1, meta_title: `${KW}: Costs, Types and Tips` };
  const better3 = { ...better2, meta_description: `All about ${KW}, what it costs and how to pick it.` };
  scriptPipeline(anthropic, KW, { article: weak, fixes: [better1, better2, better3] });
  const r1 = await post(p, "seo-pipeline", user.accessToken, pipelineBody({ max_fix_iterations: 2 }));
  assert.equal(r1.status, 200, JSON.stringify(r1.body));
  const a1 = await row(p, r1.body.data.article_id);
  assert.equal(a1.fix_iterations, 2);
  assert.equal(a1.analysis.fix_stopped, "max_iterations");
  assert.deepEqual(a1.analysis.iterations.map((i: Json) => i.kept), [true, true]);
  assert.equal(a1.meta_title, better2.meta_title, "the best version is the one published");
  assert.equal(anthropic.pendingReplies, 1, "the third fix was never asked for");
  assert.equal(
    (await seoLedger(p, user.id)).filter((l) => l.action === "seo_fix").length,
    2,
  );
  anthropic.reset();

  // A fix that does not raise the score stops the loop at once; the earlier version wins.
  scriptPipeline(anthropic, KW, { article: weak, fixes: [better1, better1, better2] });
  const r2 = await post(p, "seo-pipeline", user.accessToken, pipelineBody());
  assert.equal(r2.status, 200);
  const a2 = await row(p, r2.body.data.article_id);
  assert.equal(a2.fix_iterations, 2);
  assert.equal(a2.analysis.fix_stopped, "no_improvement");
  assert.deepEqual(a2.analysis.iterations.map((i: Json) => i.kept), [true, false]);
  assert.equal(a2.title, better1.title);
  anthropic.reset();

  // auto_fix false: no rewrite at all.
  scriptPipeline(anthropic, KW, { article: weak, fixes: [better1] });
  const r3 = await post(p, "seo-pipeline", user.accessToken, pipelineBody({ auto_fix: false }));
  const a3 = await row(p, r3.body.data.article_id);
  assert.equal(a3.fix_iterations, 0);
  assert.equal(a3.analysis.fix_stopped, "auto_fix_off");
  assert.equal(anthropic.pendingReplies, 1);
});

platformTest(
  "a failing stage ends failed, with nothing half-written and its undelivered stages refunded",
  async (p) => {
    const { anthropic, dataforseo } = standIns(p);
    const user = await createUser(p, "seo-fail");
    await grant(p, user.id, 30);

    // DataForSEO reports a task error inside an HTTP 200 envelope.
    dataforseo.failTaskNext(40501, "Invalid Field: 'keyword'.");
    const r1 = await post(p, "seo-pipeline", user.accessToken, pipelineBody());
    assert.equal(r1.status, 502, JSON.stringify(r1.body));
    assert.equal(r1.body.code, "keyword_data_error");
    const a1 = await row(p, r1.body.details.article_id);
    assert.equal(a1.status, "failed");
    assert.equal(a1.error_stage, "research");
    assert.equal(a1.research, null);
    assert.equal(await balance(p, user.id), 30);

    // The model answers malformed output twice at the write stage (retried once, then failed).
    anthropic.reply(
      tool("submit_plan", planInput(KW)),
      tool("submit_article", { title: "x" }),
      "no tool call at all",
    );
    const r2 = await post(p, "seo-pipeline", user.accessToken, pipelineBody({ async: true }));
    const a2 = await settled(p, r2.body.data.article_id);
    assert.equal(a2.status, "failed");
    assert.equal(a2.error_stage, "write");
    assert.match(a2.error, /model_bad_output/);
    assert.equal(a2.draft, null);
    for (const f of ["title", "content_markdown", "content_html", "slug", "schema_markup", "completed_at"]) {
      assert.equal(a2[f], null, f);
    }
    assert.ok(a2.plan, "the finished plan stays readable");
    assert.ok(a2.progress_percentage < 100);
    // Research and plan were delivered (readable checkpoints): they stay charged; write is refunded.
    assert.equal(await balance(p, user.id), 30 - 2 - 1);
    const retry = anthropic.captures.requests().at(-1)!.body as Json;
    assert.equal(retry.messages.at(-1).content[0].type, "tool_result", "the second ask names the problems");

    // The model API fails (the SDK retries once): failed at plan, refunded.
    anthropic.reset();
    anthropic.failNext(500, { times: 2 });
    const r3 = await post(p, "seo-pipeline", user.accessToken, pipelineBody());
    assert.equal(r3.status, 502);
    assert.equal(r3.body.code, "model_unavailable");
    assert.equal((await row(p, r3.body.details.article_id)).error_stage, "plan");
    assert.equal(await balance(p, user.id), 30 - 3 - 2, "r3's research was delivered");
    const ledger = await seoLedger(p, user.id);
    const debits = ledger.filter((l) => l.kind === "debit").reduce((n, l) => n + l.amount, 0);
    const refunds = ledger.filter((l) => l.kind === "refund").reduce((n, l) => n + l.amount, 0);
    // Refunded: r1's research, r2's write, r3's plan; kept: r2's research and plan, r3's research.
    assert.equal(debits, -(2) - (2 + 1 + 3) - (2 + 1));
    assert.equal(refunds, 2 + 3 + 1);

    // A failed row is final: the guard refuses to move it.
    await assert.rejects(
      p.db.query(`update public.seo_articles set status = 'writing' where id = $1`, [a2.id]),
      /final/,
    );
  },
);

platformTest("skip_research uses existing_research: no DataForSEO call, research not charged", async (p) => {
  const { anthropic, dataforseo } = standIns(p);
  const user = await createUser(p, "seo-skip");
  await grant(p, user.id, 5);
  scriptPipeline(anthropic, KW);
  const res = await post(
    p,
    "seo-pipeline",
    user.accessToken,
    pipelineBody({
      skip_research: true,
      existing_research: { search_volume: 900, competitors: [], related_keywords: [] },
    }),
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(dataforseo.captures.all().length, 0);
  assert.equal(res.body.data.article.optimize.avgCompetitorScore, null, "no competitors given");
  assert.equal(await balance(p, user.id), 0);
  const bad = await post(
    p,
    "seo-pipeline",
    user.accessToken,
    pipelineBody({ skip_research: true, existing_research: { competitors: "lots" } }),
  );
  assert.equal(bad.status, 400);
});

platformTest("restart: the sweeper resumes a dead worker's run or fails it cleanly", async (p) => {
  const { anthropic } = standIns(p);
  const user = await createUser(p, "seo-restart");
  await grant(p, user.id, 30);
  const plan = { ...planInput(KW), target_keyword: KW, target_word_count: 400, competitors: [] };
  const research = { target_keyword: KW, source: "dataforseo", competitors: [] };
  const insert = async (
    status: string,
    stage: string,
    progress: number,
    attempts: number,
    withPlan: boolean,
  ) => {
    const r = await p.db.query<{ id: string }>(
      `insert into public.seo_articles (user_id, topic, target_keyword, content_brief, status, current_stage,
         progress_percentage, research, plan, worker_id, attempts, heartbeat_at)
       values ($1, 'Oak floors', $2, '{"targetWordCount": 400}', $3, $4, $5, $6, $7, 'dead-worker', $8,
         now() - interval '10 minutes') returning id`,
      [user.id, KW, status, stage, progress, research, withPlan ? plan : null, attempts],
    );
    return r.rows[0].id;
  };
  const debit = (id: string, action: string, credits: number, stage: string) =>
    p.db.query(`select public.debit_credits($1, $2, $3, $4, $5)`, [
      user.id,
      credits,
      action,
      id,
      { stage, step: action.slice(4) },
    ]);

  // Left in `writing` by a worker that died after research, plan and its write debit.
  const resumed = await insert("writing", "write", 35, 1, true);
  await debit(resumed, "seo_research", 2, "research");
  await debit(resumed, "seo_plan", 1, "plan");
  await debit(resumed, "seo_write", 3, "write");
  // Out of attempts: failed and refunded instead.
  const abandoned = await insert("planning", "plan", 20, 3, false);
  await debit(abandoned, "seo_plan", 1, "plan");
  // A live worker's row (fresh heartbeat) is left alone.
  const live = await p.db.query<{ id: string }>(
    `insert into public.seo_articles (user_id, topic, target_keyword, worker_id, attempts, heartbeat_at)
     values ($1, 'Live', $2, 'live-worker', 1, now()) returning id`,
    [user.id, KW],
  );
  assert.equal(await balance(p, user.id), 30 - 7);

  const asUser = await post(p, "seo-pipeline/sweep", user.accessToken, {});
  assert.equal(asUser.status, 403);
  assert.equal((await post(p, "seo-pipeline/sweep", null, {})).status, 401);

  scriptPipeline(anthropic, KW); // plan is not asked again: write, review
  anthropic.reset();
  anthropic.reply(
    tool("submit_article", articleInput(KW)),
    tool("submit_review", { summary: "ok", tone_matches_brief: true, issues: [] }),
  );
  const sweep = await post(p, "seo-pipeline/sweep?wait=true", p.config.serviceRoleKey, {});
  assert.equal(sweep.status, 200, JSON.stringify(sweep.body));
  assert.deepEqual(sweep.body.resumed, [resumed]);
  assert.deepEqual(sweep.body.failed, [abandoned]);
  assert.equal(sweep.body.outcomes[resumed], "completed");

  const done = await row(p, resumed);
  assert.equal(done.status, "completed");
  assert.equal(done.attempts, 2);
  assert.equal(done.progress_percentage, 100);
  const gone = await row(p, abandoned);
  assert.equal(gone.status, "failed");
  assert.match(gone.error, /worker_lost/);
  assert.equal((await row(p, live.rows[0].id)).status, "researching");

  // The dead worker's write debit was refunded and the stage charged again; research and plan
  // (finished) stay charged; the abandoned run's plan was refunded.
  const ledger = (await seoLedger(p, user.id)).map((l) => `${l.kind}:${l.action}:${l.amount}`);
  assert.equal(ledger.filter((l) => l === "debit:seo_write:-3").length, 2);
  assert.ok(ledger.includes("refund:seo stage interrupted (worker lost):3"), ledger.join(", "));
  assert.equal(await balance(p, user.id), 30 - 2 - 1 - 3 - 1, "research, plan, write again, analyze");

  // Nothing stale is left: a second sweep finds nothing.
  await p.db.query(`delete from public.seo_articles where id = $1`, [live.rows[0].id]);
  const again = await post(p, "seo-pipeline/sweep", p.config.serviceRoleKey, {});
  assert.deepEqual([again.body.resumed, again.body.failed], [[], []]);
});

platformTest("a worker declared dead that wakes up cannot overwrite the run or its credits", async (p) => {
  const { anthropic } = standIns(p);
  const user = await createUser(p, "seo-zombie");
  await grant(p, user.id, 50);
  let articleId = "";
  let froze = false;
  let sweep: Promise<{ status: number; body: Json }> | null = null;
  // The first worker's plan call "freezes" (stale heartbeat) while a sweep takes the run over.
  // The stand-in takes scripted replies in arrival order: the first worker's plan call takes this
  // one and waits in beforeReply; the sweeper then runs the script's stages to the end, and the
  // woken worker's plan (this reply) is refused at its checkpoint.
  anthropic.reply({
    toolUse: [{ name: "submit_plan", input: { ...planInput(KW), title: "The woken worker's plan" } }],
    beforeReply: async () => {
      if (froze) return;
      froze = true;
      await p.db.query(
        `update public.seo_articles set heartbeat_at = now() - interval '10 minutes' where id = $1`,
        [articleId],
      );
      sweep = post(p, "seo-pipeline/sweep?wait=true", p.config.serviceRoleKey, {});
      await sweep;
    },
  });
  scriptPipeline(anthropic, KW);
  const started = await post(p, "seo-pipeline", user.accessToken, pipelineBody({ async: true }));
  articleId = started.body.data.article_id;
  const done = await settled(p, articleId);
  assert.equal(done.status, "completed");
  const swept = await sweep!;
  assert.deepEqual(swept.body.resumed, [articleId]);
  assert.equal(swept.body.outcomes[articleId], "completed");
  // Let the woken worker finish its (refused) checkpoint and leave.
  const until = Date.now() + 5000;
  while (anthropic.pendingReplies > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 300));
  const r = await row(p, articleId);
  assert.equal(r.status, "completed");
  assert.equal(r.plan.title, planInput(KW).title, "the woken worker's plan was refused");
  assert.equal(r.title, `The Complete Guide to ${KW}`);
  assert.equal(r.attempts, 2);
  // research (first worker, finished) + plan + write + analyze (the sweeper); the first
  // worker's plan debit was refunded when its stage was taken over.
  assert.equal(await balance(p, user.id), 50 - 2 - 1 - 3 - 1);
});

platformTest(
  "pg_cron tick: the sweeper job posts to seo-pipeline/sweep and a stale run completes",
  async (p) => {
    const { anthropic } = standIns(p);
    const user = await createUser(p, "seo-cron");
    await grant(p, user.id, 10);
    const plan = { ...planInput(KW), target_keyword: KW, target_word_count: 400, competitors: [] };
    const r = await p.db.query<{ id: string }>(
      `insert into public.seo_articles (user_id, topic, target_keyword, content_brief, status, current_stage,
       progress_percentage, research, plan, draft, worker_id, attempts, heartbeat_at)
     values ($1, 'Oak floors', $2, '{"targetWordCount": 400}', 'analyzing', 'analyze', 55, $3, $4, $5,
       'dead-worker', 1, now() - interval '5 minutes') returning id`,
      [user.id, KW, { target_keyword: KW, competitors: [] }, plan, articleInput(KW)],
    );
    const id = r.rows[0].id;
    anthropic.reply(tool("submit_review", { summary: "ok", tone_matches_brief: true, issues: [] }));
    for (const [name, value] of [["project_url", p.url], ["service_role_key", p.config.serviceRoleKey]]) {
      await p.db.query(
        `select vault.create_secret($1, $2) where not exists (select 1 from vault.secrets where name = $2)`,
        [value, name],
      );
    }
    const job = await p.db.query<{ command: string; schedule: string }>(
      `select command, schedule from cron.job where jobname = 'seo-pipeline-sweeper'`,
    );
    assert.equal(job.rows[0].schedule, "* * * * *");
    await p.db.query(job.rows[0].command); // one tick, as pg_cron runs it
    const done = await settled(p, id);
    assert.equal(done.status, "completed", done.error);
    assert.equal(done.progress_percentage, 100);
    assert.equal(await balance(p, user.id), 9, "only the analyze stage ran again");
  },
);

platformTest("credits running out mid-run: fixing stops, the article still completes", async (p) => {
  const { anthropic } = standIns(p);
  const user = await createUser(p, "seo-short-fix");
  await grant(p, user.id, 9); // the base 7 and one fix of 2
  const weak = articleInput(KW, { weak: true });
  scriptPipeline(anthropic, KW, {
    article: weak,
    fixes: [{ ...weak, title: `A Guide to ${KW}` }, articleInput(KW)],
  });
  const res = await post(p, "seo-pipeline", user.accessToken, pipelineBody());
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const a = await row(p, res.body.data.article_id);
  assert.equal(a.fix_iterations, 1);
  assert.equal(a.analysis.fix_stopped, "insufficient_credits");
  assert.equal(await balance(p, user.id), 0);
});

platformTest(
  "a run failing after Write refunds only the undelivered stages; the draft stays readable; a run failing before any delivery is refunded in full",
  async (p) => {
    const { anthropic, dataforseo } = standIns(p);
    const user = await createUser(p, "seo-delivered");
    await grant(p, user.id, 30);

    // Research, plan and write finish (checkpoints written); the model then fails at Analyze.
    scriptPipeline(anthropic, KW, {
      before: (stage) => {
        if (stage === "write") anthropic.failNext(500, { times: 2 });
      },
    });
    const failed = await post(p, "seo-pipeline", user.accessToken, pipelineBody());
    assert.equal(failed.status, 502, JSON.stringify(failed.body));
    assert.equal(failed.body.code, "model_unavailable");
    const id = failed.body.details.article_id;

    // As the author reads it through /rest/v1: failed at analyze, the draft there to read.
    const { data: seen, error } = await user.client.from("seo_articles")
      .select("status, error_stage, research, plan, draft, analysis, content_markdown").eq("id", id).single();
    assert.equal(error, null);
    assert.equal(seen!.status, "failed");
    assert.equal(seen!.error_stage, "analyze");
    assert.ok(seen!.research && seen!.plan, "research and plan readable");
    assert.equal(seen!.draft.title, articleInput(KW).title, "the delivered draft stays readable");
    assert.equal(seen!.analysis, null);
    assert.equal(seen!.content_markdown, null, "no article fields: Finalize never ran");

    // Research 2 + plan 1 + write 3 stay charged; analyze (1) is refunded, nothing else.
    const ledger = (await seoLedger(p, user.id)).map((l) => `${l.kind}:${l.action}:${l.amount}`);
    assert.deepEqual(ledger, [
      "debit:seo_research:-2",
      "debit:seo_plan:-1",
      "debit:seo_write:-3",
      "debit:seo_analyze:-1",
      "refund:seo pipeline failed: model_unavailable:1",
    ]);
    assert.equal(await balance(p, user.id), 30 - 6);

    // Nothing delivered (research fails): every credit comes back.
    anthropic.reset();
    dataforseo.failTaskNext(40501, "Invalid Field: 'keyword'.");
    const early = await post(p, "seo-pipeline", user.accessToken, pipelineBody());
    assert.equal(early.status, 502, JSON.stringify(early.body));
    const a = await row(p, early.body.details.article_id);
    assert.equal(a.error_stage, "research");
    assert.equal(a.research, null);
    assert.equal(await balance(p, user.id), 30 - 6, "the research debit was refunded");
    const last = (await seoLedger(p, user.id)).slice(-2).map((l) => `${l.kind}:${l.amount}`);
    assert.deepEqual(last, ["debit:-2", "refund:2"]);
  },
);
