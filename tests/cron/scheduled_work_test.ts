/**
 * Scheduled work on the local platform as on a hosted project (issue 34): every start writes the
 * Vault secrets the scheduled jobs read (`project_url`, `service_role_key`), so a cron flow runs
 * on a fresh start with nothing created by hand, and still runs after a restart on another port;
 * a scheduled call that cannot be made or fails is visible in cron.job_run_details (no secret),
 * net._http_response (refused, non-2xx) and the platform's log.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import { platformTest, runProjectCronJobsInModule } from "../helpers/platform.ts";
import { createTeam } from "../helpers/team.ts";
import { graph, saveFlow } from "../flows/helpers.ts";
import { closedPort, waitFor } from "./helpers.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

// The first test is about the project's real per-minute jobs (paused on test platforms otherwise).
runProjectCronJobsInModule();

async function secrets(p: Platform): Promise<Record<string, string>> {
  const r = await p.db.query<{ name: string; value: string }>(
    `select name, decrypted_secret as value from vault.decrypted_secrets
      where name in ('project_url', 'service_role_key') order by name`,
  );
  return Object.fromEntries(r.rows.map((x) => [x.name, x.value]));
}

/**
 * Runs the project's flow-scheduler-cron job every second from now on (pg_cron's own API), also
 * on a platform that started with the project's jobs paused.
 */
async function everySecond(p: Platform): Promise<string> {
  const r = await p.db.query<{ jobid: string }>(
    `select jobid::text, cron.alter_job(jobid, schedule := '1 second', active := true) from cron.job
      where jobname = 'flow-scheduler-cron'`,
  );
  assert.equal(r.rows.length, 1, "the project schedules flow-scheduler-cron");
  return r.rows[0].jobid;
}

platformTest(
  "a fresh start: Vault has the platform's URL and key, and a cron flow due every minute runs within 90 s",
  async (p) => {
    assert.deepEqual(await secrets(p), { project_url: p.url, service_role_key: p.config.serviceRoleKey });
    const t = await createTeam(p, { prefix: "scheduled-work" });
    const started = Date.now();
    const flow = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "cron", config: { cron: "* * * * *" } }, [{
        id: "note",
        type: "create_notification",
        config: { user_id: t.member.id, title: "minute {{trigger.data.scheduled_for}}" },
      }], [["start", "note"]]),
    });
    // The real path: pg_cron's per-minute job -> call_edge_function -> pg_net -> the scheduler.
    const run = await waitFor(
      "the flow's first scheduled run",
      async () =>
        (await p.db.query<{ status: string; trigger_type: string }>(
          `select status, trigger_type from public.flow_runs where flow_id = $1 and status <> 'running'`,
          [flow.id],
        )).rows[0],
      88_000,
    );
    assert.deepEqual(run, { status: "completed", trigger_type: "cron" });
    assert.ok(Date.now() - started < 90_000);
    const notes = await p.db.query(`select 1 from public.notifications where user_id = $1`, [t.member.id]);
    assert.equal(notes.rows.length, 1);
    // Every per-minute job ran in that minute, and each function it called answered 2xx
    // (price-monitoring-scheduler runs every 5 minutes and is left out).
    const perMinute = await p.db.query<{ jobname: string }>(
      `select jobname from cron.job where schedule = '* * * * *' order by 1`,
    );
    assert.deepEqual(perMinute.rows.map((r) => r.jobname), [
      "agent-run-worker",
      "background-agents-cron",
      "flow-run-worker",
      "flow-scheduler-cron",
      "messaging-bulk-worker",
      "scrape-session-manager-tick",
      "seo-pipeline-sweeper",
      "social-publish-cron",
    ]);
    const runs = await p.db.query<{ jobname: string; succeeded: boolean; failed: boolean }>(
      `select j.jobname, bool_or(d.status = 'succeeded') as succeeded, bool_or(d.status = 'failed') as failed
         from cron.job_run_details d join cron.job j using (jobid)
        where j.schedule = '* * * * *' group by 1 order by 1`,
    );
    assert.deepEqual(
      runs.rows,
      perMinute.rows.map((r) => ({ jobname: r.jobname, succeeded: true, failed: false })),
    );
    const answers = await waitFor("the eight functions' answers", async () => {
      const r = await p.db.query<{ status_code: number | null; error_msg: string | null }>(
        `select status_code, error_msg from net._http_response order by id`,
      );
      return r.rows.length >= 8 ? r.rows : null;
    }, 30_000);
    for (const a of answers) assert.ok(a.status_code !== null && a.status_code < 300, JSON.stringify(a));
  },
);

Deno.test({
  ...opts,
  name:
    "after a restart on another port (the old one taken) Vault has the new URL and scheduled calls reach it",
  fn: async () => {
    // A new data folder: the platform starts it as a copy of the migrated template.
    const dataDir = await Deno.makeTempDir();
    let held: Deno.Listener | null = null;
    try {
      const first = await startEphemeralPlatform({ ephemeral: false, dataDir });
      const oldPort = new URL(first.url).port;
      assert.equal((await secrets(first)).project_url, first.url);
      await first.stop();
      // Something else takes the old port; the platform starts on a new one.
      held = Deno.listen({ hostname: "127.0.0.1", port: Number(oldPort) });
      const second = await startEphemeralPlatform({ ephemeral: false, dataDir });
      try {
        assert.notEqual(new URL(second.url).port, oldPort);
        assert.deepEqual(await secrets(second), {
          project_url: second.url,
          service_role_key: second.config.serviceRoleKey,
        });
        const count = await second.db.query<{ n: number }>(
          `select count(*)::int as n from vault.secrets where name in ('project_url', 'service_role_key')`,
        );
        assert.equal(count.rows[0].n, 2, "updated, not added again");
        const since = new Date();
        await everySecond(second);
        const answer = await waitFor(
          "the scheduler's answer",
          async () =>
            (await second.db.query<{ status_code: number; content: string }>(
              `select status_code, content from net._http_response
              where created >= $1 and (status_code is not null or error_msg is not null) limit 1`,
              [since],
            )).rows[0],
          20_000,
        );
        assert.equal(answer.status_code, 200, answer.content);
        assert.equal(typeof JSON.parse(answer.content).claimed, "number");
      } finally {
        await second.stop();
      }
    } finally {
      held?.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name:
    "a scheduled call that cannot be made or fails shows in job_run_details, net._http_response and the log",
  fn: async () => {
    const log: string[] = [];
    const p = await startEphemeralPlatform({ log: (line) => log.push(line) });
    try {
      const jobid = await everySecond(p);
      // No secret: call_edge_function raises, the run is `failed` with the reason.
      await p.db.query(`delete from vault.secrets where name = 'project_url'`);
      const failed = await waitFor("a failed run", async () =>
        (await p.db.query<{ return_message: string }>(
          `select return_message from cron.job_run_details where jobid = $1 and status = 'failed' limit 1`,
          [jobid],
        )).rows[0]);
      assert.match(
        failed.return_message,
        /^ERROR: {2}call_edge_function: \/functions\/v1\/flow-scheduler-cron not sent: the Vault secret project_url is missing$/,
      );
      await waitFor(
        "the log line",
        () =>
          log.find((l) =>
            new RegExp(`^cron: job ${jobid} \\(flow-scheduler-cron\\) failed: .*project_url is missing`).test(
              l,
            )
          ),
      );

      // A refused connection.
      const port = closedPort();
      let since = new Date();
      await p.db.query(`select vault.create_secret($1, 'project_url')`, [`http://127.0.0.1:${port}`]);
      const refused = await waitFor(
        "the refused call",
        async () =>
          (await p.db.query<{ id: string; status_code: number | null; error_msg: string | null }>(
            `select id::text, status_code, error_msg from net._http_response
            where created >= $1 and error_msg is not null limit 1`,
            [since],
          )).rows[0],
      );
      assert.equal(refused.status_code, null);
      assert.match(refused.error_msg!, /refused/i);
      await waitFor("the log line", () =>
        log.find((l) =>
          l.startsWith(
            `net: request ${refused.id} POST http://127.0.0.1:${port}/functions/v1/flow-scheduler-cron failed: `,
          )
        ));

      // An answer that is not 2xx: the platform refuses a wrong key.
      since = new Date();
      await p.db.query(
        `select vault.update_secret(id, $1) from vault.secrets where name = 'project_url'`,
        [p.url],
      );
      await p.db.query(
        `select vault.update_secret(id, 'not-the-key') from vault.secrets where name = 'service_role_key'`,
      );
      const rejected = await waitFor(
        "the rejected call",
        async () =>
          (await p.db.query<{ id: string; status_code: number }>(
            `select id::text, status_code from net._http_response where created >= $1 and status_code = 401 limit 1`,
            [since],
          )).rows[0],
      );
      await waitFor(
        "the log line",
        () =>
          log.find((l) =>
            l.startsWith(
              `net: request ${rejected.id} POST ${p.url}/functions/v1/flow-scheduler-cron answered 401`,
            )
          ),
      );
      assert.ok(!log.some((l) => l.includes(p.config.serviceRoleKey)), "the log never shows the key");
    } finally {
      await p.stop();
    }
  },
});
