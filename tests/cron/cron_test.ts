/**
 * pg_cron on the local platform: jobs scheduled in SQL (as a migration would) run in the
 * background worker, are recorded in cron.job_run_details, and can be rescheduled, altered and
 * unscheduled, or run now (the dashboard), a run linked to the pg_net requests its command queued.
 * Seconds schedules keep the tests short.
 */
import assert from "node:assert/strict";
import { withRequestContext } from "../../stack/db/database.ts";
import { platformTest } from "../helpers/platform.ts";
import { cronWorkerOf, netRequestIds } from "../../stack/cron/worker.ts";
import {
  INVALID_SCHEDULES,
  responseOf,
  runsOf,
  sleep,
  startTarget,
  VALID_SCHEDULES,
  waitFor,
} from "./helpers.ts";

platformTest("a migration's cron.schedule + net.http_post reaches the target and is recorded", async (p) => {
  const target = startTarget();
  try {
    // Exactly what a migration file would run: one transaction as the superuser.
    await p.db.transaction((tx) =>
      tx.exec(
        `select cron.schedule('tick', '5 seconds', $$ select net.http_post(url := '${target.url}/hook', body := '{"a":1}'::jsonb) $$)`,
      )
    );
    const jobid =
      (await p.db.query<{ id: string }>(`select jobid::text as id from cron.job where jobname = 'tick'`))
        .rows[0].id;

    const req = await waitFor("the POST", () => target.to("/hook")[0]);
    assert.equal(req.method, "POST");
    assert.deepEqual(JSON.parse(req.body), { a: 1 });
    assert.equal(req.headers["content-type"], "application/json");

    const run = await waitFor(
      "a succeeded run",
      async () => (await runsOf(p.db, jobid)).find((r) => r.status === "succeeded"),
    );
    assert.equal(run.return_message, "SELECT 1");
    assert.ok(run.start_time && run.end_time && run.start_time <= run.end_time);

    const job =
      (await p.db.query<Record<string, unknown>>(`select * from cron.job where jobid = $1`, [jobid]))
        .rows[0];
    // The scheduling session's user (the platform's superuser connection is supabase_admin, as on hosted).
    assert.equal(job.username, "supabase_admin");
    assert.equal(job.database, "postgres");
    assert.equal(job.active, true);

    const response = await waitFor("the stored response", async () => {
      const r = await p.db.query<{ id: string }>(
        `select id::text from net._http_response where content = '{"ok":true}' order by created desc limit 1`,
      );
      return r.rows[0] && responseOf(p.db, r.rows[0].id);
    });
    assert.equal(response.status_code, 200);
    assert.equal(response.content_type, "application/json");
    assert.equal(response.headers?.["content-type"], "application/json");
    assert.equal(response.timed_out, false);
    assert.equal(response.error_msg, null);

    assert.equal(await p.db.query(`select cron.unschedule('tick')`).then((r) => r.rows.length), 1);
  } finally {
    await target.close();
  }
});

platformTest("cron.unschedule stops a job", async (p) => {
  const target = startTarget();
  try {
    await p.db.query(
      `select cron.schedule('every-second', '1 second', $$ select net.http_get('${target.url}/beat') $$)`,
    );
    await waitFor("two beats", () => target.to("/beat").length >= 2);
    const { rows } = await p.db.query<{ ok: boolean }>(`select cron.unschedule('every-second') as ok`);
    assert.equal(rows[0].ok, true);
    // A run already under way may still land; after that, nothing more.
    await sleep(300);
    const settled = target.to("/beat").length;
    await sleep(2200);
    assert.equal(target.to("/beat").length, settled);
    await assert.rejects(
      p.db.query(`select cron.unschedule('every-second')`),
      /could not find valid entry for job 'every-second'/,
    );
  } finally {
    await target.close();
  }
});

platformTest("scheduling an existing name updates that job", async (p) => {
  const target = startTarget();
  try {
    const schedule = async (path: string) =>
      (await p.db.query<{ id: string }>(
        `select cron.schedule('resched', '1 second', $$ select net.http_get('${target.url}${path}') $$)::text as id`,
      )).rows[0].id;
    const first = await schedule("/a");
    await waitFor("the first command", () => target.to("/a").length >= 1);
    const second = await schedule("/b");
    assert.equal(second, first);
    const jobs = await p.db.query<{ command: string }>(
      `select command from cron.job where jobname = 'resched'`,
    );
    assert.equal(jobs.rows.length, 1);
    assert.match(jobs.rows[0].command, /\/b'/);
    await waitFor("the new command", () => target.to("/b").length >= 2);
    const aAfter = target.to("/a").length;
    await sleep(1500);
    assert.equal(target.to("/a").length, aAfter, "the old command no longer runs");
    await p.db.query(`select cron.unschedule($1::bigint)`, [first]);
    await assert.rejects(
      p.db.query(`select cron.unschedule($1::bigint)`, [first]),
      new RegExp(`could not find valid entry for job ${first}`),
    );
  } finally {
    await target.close();
  }
});

platformTest("cron.alter_job changes the schedule and active stops it", async (p) => {
  const target = startTarget();
  try {
    const { rows } = await p.db.query<{ id: string }>(
      `select cron.schedule('alter-me', '0 0 1 1 *', $$ select net.http_get('${target.url}/alter') $$)::text as id`,
    );
    const id = rows[0].id;
    await sleep(1200);
    assert.equal(target.to("/alter").length, 0, "a yearly job does not run now");
    await p.db.query(`select cron.alter_job($1, schedule := '1 second')`, [id]);
    await waitFor("runs on the new schedule", () => target.to("/alter").length >= 2);
    await p.db.query(`select cron.alter_job($1, active := false)`, [id]);
    await sleep(300);
    const settled = target.to("/alter").length;
    await sleep(1500);
    assert.equal(target.to("/alter").length, settled);
    const job = await p.db.query<{ schedule: string; active: boolean }>(
      `select schedule, active from cron.job where jobid = $1`,
      [id],
    );
    assert.deepEqual(job.rows[0], { schedule: "1 second", active: false });
    await assert.rejects(
      p.db.query(`select cron.alter_job(999999, active := false)`),
      /could not find valid entry/,
    );
    await p.db.query(`select cron.unschedule($1::bigint)`, [id]);
  } finally {
    await target.close();
  }
});

platformTest("a failing command is recorded as failed with the error text", async (p) => {
  const { rows } = await p.db.query<{ id: string }>(
    `select cron.schedule('broken', '1 second', 'select 1/0')::text as id`,
  );
  const run = await waitFor(
    "a failed run",
    async () => (await runsOf(p.db, rows[0].id)).find((r) => r.end_time),
  );
  assert.equal(run.status, "failed");
  assert.match(run.return_message ?? "", /^ERROR: {2}division by zero/);
  await p.db.query(`select cron.unschedule('broken')`);
});

platformTest("a job runs in its own transaction as its user and reports the last command tag", async (p) => {
  await p.db.exec(`create table public.cron_probe (who text, n int)`);
  try {
    const { rows } = await p.db.query<{ id: string }>(
      `select cron.schedule('probe', '1 second', $$
         insert into public.cron_probe values (current_user, 1);
         insert into public.cron_probe select current_user, g from generate_series(2, 3) g $$)::text as id`,
    );
    const run = await waitFor("a run", async () => (await runsOf(p.db, rows[0].id)).find((r) => r.end_time));
    await p.db.query(`select cron.unschedule('probe')`);
    assert.equal(run.status, "succeeded");
    assert.equal(run.return_message, "INSERT 0 2");
    const probe = await p.db.query<{ who: string }>(`select distinct who from public.cron_probe`);
    // A job runs as the user who scheduled it: here the platform's connection, supabase_admin.
    assert.deepEqual(probe.rows, [{ who: "supabase_admin" }]);
  } finally {
    await p.db.exec(`drop table public.cron_probe`);
  }
});

platformTest("a job never runs twice at once: a run due while one is busy waits for it", async (p) => {
  // pg_sleep holds the single connection, so runs would overlap only if the worker let them.
  const { rows } = await p.db.query<{ id: string }>(
    `select cron.schedule('slow', '1 second', 'select pg_sleep(1.3)')::text as id`,
  );
  await waitFor(
    "three finished runs",
    async () => (await runsOf(p.db, rows[0].id)).filter((r) => r.end_time).length >= 3,
    15000,
  );
  await p.db.query(`select cron.unschedule('slow')`);
  await sleep(1500);
  const runs = (await runsOf(p.db, rows[0].id)).filter((r) => r.end_time);
  for (let i = 1; i < runs.length; i++) {
    assert.ok(runs[i].start_time! >= runs[i - 1].end_time!, `run ${i} started after run ${i - 1} ended`);
  }
  assert.ok(runs.every((r) => r.status === "succeeded"));
});

platformTest("cron.schedule refuses the schedules pg_cron refuses, like the worker", async (p) => {
  for (const source of INVALID_SCHEDULES) {
    await assert.rejects(
      p.db.query(`select cron.schedule('bad', $1, 'select 1')`, [source]),
      (err: Error) => err.message === `invalid schedule: ${source}`,
      JSON.stringify(source),
    );
  }
  for (const source of VALID_SCHEDULES) {
    await p.db.query(`select cron._validate_schedule($1)`, [source]);
  }
  assert.equal((await p.db.query(`select 1 from cron.job where jobname = 'bad'`)).rows.length, 0);
});

platformTest("the API roles cannot see or schedule cron jobs", async (p) => {
  for (const role of ["anon", "authenticated", "service_role"]) {
    await assert.rejects(
      withRequestContext(p.db, { role, claims: {} }, (tx) => tx.query(`select * from cron.job`)),
      /permission denied for schema cron/,
      role,
    );
    await assert.rejects(
      withRequestContext(
        p.db,
        { role, claims: {} },
        (tx) => tx.query(`select cron.schedule('x', '1 second', 'select 1')`),
      ),
      /permission denied for schema cron/,
      role,
    );
  }
});

platformTest(
  "a test platform starts with the migrations' jobs paused (projectCronJobs: false); jobs scheduled later run",
  async (p) => {
    const project = await p.db.query<{ jobname: string; active: boolean }>(
      `select jobname, active from cron.job
        where jobname in ('flow-scheduler-cron', 'scrape-session-manager-tick', 'price-monitoring-scheduler',
                          'seo-pipeline-sweeper', 'background-agents-cron', 'social-publish-cron')
        order by 1`,
    );
    assert.deepEqual(project.rows, [
      { jobname: "background-agents-cron", active: false },
      { jobname: "flow-scheduler-cron", active: false },
      { jobname: "price-monitoring-scheduler", active: false },
      { jobname: "scrape-session-manager-tick", active: false },
      { jobname: "seo-pipeline-sweeper", active: false },
      { jobname: "social-publish-cron", active: false },
    ]);
    const id = (await p.db.query<{ id: string }>(
      `select cron.schedule('after-start', '1 second', 'select 1')::text as id`,
    )).rows[0].id;
    try {
      await waitFor(
        "a run of the job scheduled after the start",
        async () => (await runsOf(p.db, id)).find((r) => r.status === "succeeded"),
      );
      const ran = await p.db.query(
        `select 1 from cron.job_run_details d join cron.job j using (jobid) where j.jobname = any($1)`,
        [project.rows.map((r) => r.jobname)],
      );
      assert.deepEqual(ran.rows, [], "no run of a paused job");
    } finally {
      await p.db.query(`select cron.unschedule('after-start')`);
    }
  },
);

platformTest(
  "run now: a paused job runs at once, recorded, its pg_net request linked to the response",
  async (p) => {
    const target = startTarget();
    try {
      await p.db.query(
        `select cron.schedule('run-now', '0 3 1 1 *', $$ select net.http_post(url := '${target.url}/now', body := '{"b":2}'::jsonb) $$)`,
      );
      const jobid = (await p.db.query<{ id: string }>(
        `select jobid::text as id from cron.job where jobname = 'run-now'`,
      )).rows[0].id;
      await p.db.query(`select cron.alter_job($1::bigint, active := false)`, [jobid]);
      const worker = cronWorkerOf(p);
      const runid = await worker.runNow(jobid);
      assert.ok(runid);
      const [run] = (await runsOf(p.db, jobid)).filter((r) => String(r.runid) === runid);
      assert.equal(run.status, "succeeded");
      assert.equal(run.return_message, "SELECT 1");
      const ids = worker.netRequestsOf(runid);
      assert.equal(ids.length, 1);
      await waitFor("the POST", () => target.to("/now")[0]);
      const response = await waitFor("the linked response", () => responseOf(p.db, ids[0]));
      assert.equal(response.status_code, 200);
      assert.equal(await worker.runNow("999999"), null, "an unknown job");
      // A run that queued nothing links to nothing.
      await p.db.query(`select cron.schedule('run-now-plain', '0 3 1 1 *', 'select 1')`);
      const plain = (await p.db.query<{ id: string }>(
        `select jobid::text as id from cron.job where jobname = 'run-now-plain'`,
      )).rows[0].id;
      assert.deepEqual(worker.netRequestsOf((await worker.runNow(plain))!), []);
      await p.db.query(`select cron.unschedule('run-now'), cron.unschedule('run-now-plain')`);
    } finally {
      await target.close();
    }
  },
);

Deno.test("netRequestIds: the ids http_post, http_get, http_delete and call_edge_function return", () => {
  assert.deepEqual(
    netRequestIds([
      {
        fields: [{ name: "call_edge_function" }],
        rows: [{ call_edge_function: 7 }, { call_edge_function: null }],
      },
      { fields: [{ name: "http_post" }, { name: "x" }], rows: [{ http_post: "8", x: 9 }] },
      { fields: [{ name: "count" }], rows: [{ count: 1 }] },
    ]),
    ["7", "8"],
  );
});
