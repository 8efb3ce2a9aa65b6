/**
 * The SEO pipeline end to end with the stand-ins (DataForSEO and the model answer at once, or
 * after --latency ms): wall time of each stage (Research, Plan, Write, Analyze, Finalize, seen
 * from the row's current_stage changes, polled every 10 ms from the database) and of the whole
 * POST (sync mode, the spec's 200 body), over --runs sequential runs, plus one run with
 * auto_fix making 2 fix iterations.
 *
 *   deno run -A bench/seo.ts [--runs 20] [--latency 0]
 */
import { parseArgs } from "node:util";
import { createUser, startEphemeralPlatform } from "../fixtures/platform.ts";
import { articleInput, scriptPipeline } from "../fixtures/seo.ts";
import { percentile } from "./lib.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "20" }, latency: { type: "string", default: "0" } },
});
const runs = Number(values.runs);
const latency = Number(values.latency);
const KW = "porcelain tiles";
const STAGES = ["research", "plan", "write", "analyze", "finalize"];

const p = await startEphemeralPlatform();
try {
  const anthropic = p.sandbox!.get("anthropic");
  const dataforseo = p.sandbox!.get("dataforseo");
  anthropic.setLatency(latency);
  dataforseo.setLatency(latency);
  const user = await createUser(p, "bench-seo");
  await p.db.query(`select public.grant_credits($1, 100000)`, [user.id]);

  const body = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      topic: "Porcelain tiles for kitchens",
      target_keyword: KW,
      content_brief: { targetWordCount: 400 },
      ...extra,
    });
  const postRun = async (extra: Record<string, unknown> = {}) => {
    const res = await fetch(`${p.url}/functions/v1/seo-pipeline`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${user.accessToken}`,
        "content-type": "application/json",
      },
      body: body(extra),
    });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`seo-pipeline ${res.status}: ${JSON.stringify(json)}`);
    return json.data.article_id as string;
  };

  /** Stage -> ms, from the newest row's current_stage transitions. */
  const watch = (since: string) => {
    const marks: { stage: string; at: number }[] = [];
    let stop = false;
    const done = (async () => {
      while (!stop) {
        const r = await p.db.query<{ current_stage: string; status: string }>(
          `select current_stage, status from public.seo_articles where user_id = $1 and created_at >= $2
            order by created_at desc limit 1`,
          [user.id, since],
        );
        const row = r.rows[0];
        if (row) {
          const stage = row.status === "completed" ? "done" : row.current_stage;
          if (marks.at(-1)?.stage !== stage) marks.push({ stage, at: performance.now() });
          if (stage === "done") break;
        }
        await new Promise((res) => setTimeout(res, 10));
      }
    })();
    return {
      async finish(t0: number) {
        stop = true;
        await done;
        const out: Record<string, number> = {};
        marks.forEach((m, i) => {
          if (m.stage === "done") return;
          const start = i === 0 ? t0 : m.at;
          out[m.stage] = (marks[i + 1]?.at ?? performance.now()) - start;
        });
        return out;
      },
    };
  };

  const perStage: Record<string, number[]> = Object.fromEntries(STAGES.map((s) => [s, []]));
  const totals: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    scriptPipeline(anthropic, KW);
    const since = (await p.db.query<{ now: string }>(`select now()::text as now`)).rows[0].now;
    const w = watch(since);
    const t0 = performance.now();
    await postRun();
    const total = performance.now() - t0;
    const stages = await w.finish(t0);
    if (i < 2) continue; // warm-up
    totals.push(total);
    for (const s of STAGES) if (stages[s] !== undefined) perStage[s].push(stages[s]);
  }
  const fmt = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `n=${s.length} p50=${percentile(s, 50).toFixed(1)}ms p90=${percentile(s, 90).toFixed(1)}ms max=${
      s.at(-1)!.toFixed(1)
    }ms`;
  };
  console.log(
    `SEO pipeline with stand-ins (latency ${latency} ms per provider call), ${runs} runs, sync POST`,
  );
  for (const s of STAGES) console.log(`  stage ${s.padEnd(9)} ${fmt(perStage[s])}`);
  console.log(`  whole POST      ${fmt(totals)}`);

  // The same runs with nobody polling the database (the poller shares PGlite with the run).
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    scriptPipeline(anthropic, KW);
    const t0 = performance.now();
    await postRun();
    bare.push(performance.now() - t0);
  }
  console.log(`  whole POST, no poller ${fmt(bare)}`);

  // One run with two fix iterations (a weak draft, then two improving rewrites).
  const weak = articleInput(KW, { weak: true });
  scriptPipeline(anthropic, KW, {
    article: weak,
    fixes: [{ ...weak, title: `A Guide to ${KW}` }, articleInput(KW)],
  });
  const t0 = performance.now();
  const id = await postRun({ max_fix_iterations: 2 });
  const fixTotal = performance.now() - t0;
  const r = await p.db.query<{ fix_iterations: number; content_score: string }>(
    `select fix_iterations, content_score from public.seo_articles where id = $1`,
    [id],
  );
  console.log(
    `  with auto_fix:  ${r.rows[0].fix_iterations} fix iterations, score ${r.rows[0].content_score}, ` +
      `whole POST ${fixTotal.toFixed(1)}ms`,
  );
} finally {
  await p.stop();
}
