/**
 * The pg_cron background worker: keeps the active rows of cron.job in memory with each one's
 * next due time, sleeps until the soonest, and runs what is due. Each run is recorded in
 * cron.job_run_details (starting -> running -> succeeded | failed) and executes the job's command
 * in its own transaction as the job's user, like pg_cron's fresh connection. A job never runs
 * twice at once: a run that comes due while the previous one is busy waits for it (pg_cron
 * queues overlaps). cron.job's trigger NOTIFYs on every change, and the worker reloads then, so
 * it never polls the database. Until `create extension pg_cron` (stack/db/extensions) there is no
 * cron.job and nothing to run. A failed run is recorded as pg_cron records it and logged.
 *
 * For the dashboard, which pg_cron itself cannot tell: the pg_net request ids a run's command
 * returned (`select net.http_post(...)`, or `call_edge_function`, which returns http_post's id)
 * are kept per run id in memory (`netRequestsOf`, the last MAX_LINKED runs), so a run links to
 * its net._http_response row; and `runNow` runs a job at once, recorded like a scheduled run.
 */
import { DEFAULT_SEARCH_PATH, type PGlite, type Transaction } from "../db/database.ts";
import type { PlatformPart } from "../part.ts";
import { parseSchedule, type Schedule } from "./schedule.ts";

export const CRON_CHANNEL = "cron_job_changed";

/** Long sleeps are cut into pieces so that a clock change is noticed within this time. */
const MAX_SLEEP_MS = 60_000;

interface JobRow {
  jobid: string;
  schedule: string;
  command: string;
  username: string;
  database: string;
  jobname: string | null;
}

interface JobState {
  row: JobRow;
  schedule: Schedule;
  /** Next due time, ms since the epoch. */
  due: number;
  running: Promise<void> | null;
  /** A run came due while one was running. */
  queued: boolean;
}

type Log = (message: string) => void;

/** Runs whose pg_net request ids are kept (netRequestsOf). */
const MAX_LINKED = 1000;
/** Result columns that carry a pg_net request id. */
const NET_ID_COLUMNS = new Set(["http_post", "http_get", "http_delete", "call_edge_function"]);

/** The pg_net request ids in a command's results: columns named after the functions returning one. */
export function netRequestIds(results: { rows?: unknown[]; fields?: { name: string }[] }[]): string[] {
  const ids: string[] = [];
  for (const r of results) {
    for (const f of r.fields ?? []) {
      if (!NET_ID_COLUMNS.has(f.name)) continue;
      for (const row of r.rows ?? []) {
        const v = (row as Record<string, unknown>)[f.name];
        if (v !== null && v !== undefined) ids.push(String(v));
      }
    }
  }
  return ids;
}

/** pg_cron's return_message is the command tag (PQcmdStatus) of the command's last result. */
export function commandTag(results: { command?: string; rowCount?: number }[]): string {
  const last = results.at(-1);
  if (!last?.command) return "";
  const cmd = last.command;
  if (cmd === "INSERT") return `INSERT 0 ${last.rowCount ?? 0}`;
  if (["SELECT", "UPDATE", "DELETE", "MERGE", "MOVE", "FETCH", "COPY"].includes(cmd)) {
    return `${cmd} ${last.rowCount ?? 0}`;
  }
  return cmd;
}

export class CronWorker {
  readonly #db: PGlite;
  readonly #log: Log;
  readonly #jobs = new Map<string, JobState>();
  readonly #runs = new Set<Promise<void>>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unlisten: (() => Promise<void>) | null = null;
  #reloading: Promise<void> | null = null;
  #reloadAgain = false;
  #stopped = false;
  /** Schedules already reported as unusable, so the log says it once per schedule. */
  readonly #reported = new Set<string>();
  /** runid -> the pg_net request ids its command returned (the last MAX_LINKED runs). */
  readonly #netRequests = new Map<string, string[]>();

  constructor(db: PGlite, log: Log = (m) => console.error(m)) {
    this.#db = db;
    this.#log = log;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#db.listen(CRON_CHANNEL, () => this.reload());
    await this.reload();
  }

  /** Re-reads cron.job; concurrent calls coalesce into one more pass. */
  reload(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#reloading) {
      this.#reloadAgain = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      try {
        do {
          this.#reloadAgain = false;
          await this.#load();
        } while (this.#reloadAgain && !this.#stopped);
      } catch (err) {
        if (!this.#stopped) this.#log(`cron: could not load cron.job: ${errorText(err)}`);
      } finally {
        this.#reloading = null;
      }
      this.#arm();
    })();
    return this.#reloading;
  }

  async #load(): Promise<void> {
    // Until a migration runs `create extension pg_cron` there is no cron.job, and no job.
    const { rows } = await this.#db.query<JobRow>(
      (await this.#enabled())
        ? `select jobid::text, schedule, command, username, database, jobname from cron.job where active`
        : `select null where false`,
    );
    const now = Date.now();
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.jobid);
      const old = this.#jobs.get(row.jobid);
      if (old && old.schedule.source === row.schedule) {
        old.row = row;
        continue;
      }
      let schedule: Schedule;
      try {
        schedule = parseSchedule(row.schedule);
      } catch (err) {
        const key = `${row.jobid}:${row.schedule}`;
        if (!this.#reported.has(key)) {
          this.#reported.add(key);
          this.#log(`cron: job ${row.jobid} is not scheduled: ${errorText(err)}`);
        }
        this.#jobs.delete(row.jobid);
        continue;
      }
      // pg_cron starts an interval job at once and then every N seconds after.
      const due = schedule.intervalSeconds !== null ? now : schedule.next(now);
      if (old) {
        // Same object, so that a run in progress still clears its own `running` when it ends.
        Object.assign(old, { row, schedule, due });
      } else {
        this.#jobs.set(row.jobid, { row, schedule, due, running: null, queued: false });
      }
    }
    for (const id of this.#jobs.keys()) if (!seen.has(id)) this.#jobs.delete(id);
  }

  async #enabled(): Promise<boolean> {
    const r = await this.#db.query<{ ok: boolean }>(`select to_regclass('cron.job') is not null as ok`);
    return r.rows[0].ok;
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#stopped || this.#jobs.size === 0) return;
    let soonest = Infinity;
    for (const job of this.#jobs.values()) soonest = Math.min(soonest, job.due);
    const delay = Math.max(0, Math.min(soonest - Date.now(), MAX_SLEEP_MS));
    this.#timer = setTimeout(() => this.#tick(), delay);
  }

  #tick(): void {
    this.#timer = undefined;
    const now = Date.now();
    for (const job of this.#jobs.values()) {
      if (job.due > now) continue;
      if (job.running) job.queued = true;
      else this.#launch(job);
      const next = job.schedule.next(job.schedule.intervalSeconds !== null ? job.due : now);
      // After a long pause (a suspended laptop), skip the missed runs instead of bursting.
      job.due = next > now ? next : job.schedule.next(now);
    }
    this.#arm();
  }

  /** The pg_net request ids run `runid` queued, when this worker ran it and they were returned. */
  netRequestsOf(runid: string): string[] {
    return this.#netRequests.get(runid) ?? [];
  }

  /**
   * Runs job `jobid` now (paused or not), recorded in cron.job_run_details like a scheduled run;
   * its run id, or null when there is no such job. Refused while the job is running.
   */
  async runNow(jobid: string): Promise<string | null> {
    if (!(await this.#enabled())) return null;
    const { rows } = await this.#db.query<JobRow>(
      `select jobid::text, schedule, command, username, database, jobname from cron.job where jobid = $1::bigint`,
      [jobid],
    );
    if (!rows.length) return null;
    const job = this.#jobs.get(rows[0].jobid);
    if (job?.running) throw new Error(`job ${jobid} is running; try again when it has finished`);
    const run = this.#run(rows[0]);
    const tracked: Promise<void> = run.then(() => {}, () => {}).finally(() => {
      this.#runs.delete(tracked);
      if (!job) return;
      job.running = null;
      if (job.queued && !this.#stopped && this.#jobs.get(job.row.jobid) === job) {
        job.queued = false;
        this.#launch(job);
      }
    });
    if (job) job.running = tracked;
    this.#runs.add(tracked);
    return await run;
  }

  #launch(job: JobState): void {
    const run: Promise<void> = this.#run(job.row)
      .then(
        () => {},
        (err) => this.#log(`cron: job ${job.row.jobid} could not be recorded: ${errorText(err)}`),
      )
      .finally(() => {
        this.#runs.delete(run);
        job.running = null;
        if (job.queued && !this.#stopped && this.#jobs.get(job.row.jobid) === job) {
          job.queued = false;
          this.#launch(job);
        }
      });
    job.running = run;
    this.#runs.add(run);
  }

  async #run(row: JobRow): Promise<string> {
    const db = this.#db;
    const { rows } = await db.query<{ runid: string }>(
      `insert into cron.job_run_details (jobid, job_pid, database, username, command, status)
       values ($1, pg_backend_pid(), $2, $3, $4, 'starting') returning runid::text`,
      [row.jobid, row.database, row.username, row.command],
    );
    const runid = rows[0].runid;
    await db.query(
      `update cron.job_run_details set status = 'running', start_time = clock_timestamp() where runid = $1`,
      [runid],
    );
    let status = "succeeded";
    let message: string;
    try {
      const results = await db.transaction(async (tx: Transaction) => {
        await tx.query(`select set_config('role', $1, true), set_config('search_path', $2, true)`, [
          row.username,
          DEFAULT_SEARCH_PATH,
        ]);
        return await tx.exec(row.command);
      });
      message = commandTag(results);
      const ids = netRequestIds(results);
      if (ids.length) {
        this.#netRequests.set(runid, ids);
        if (this.#netRequests.size > MAX_LINKED) {
          this.#netRequests.delete(this.#netRequests.keys().next().value!);
        }
      }
    } catch (err) {
      status = "failed";
      // pg_cron stores libpq's error message, which starts with the severity.
      message = `ERROR:  ${errorText(err)}`;
      // Hosted shows it in cron.job_run_details only; the local platform says it in its log too.
      this.#log(`cron: job ${row.jobid}${row.jobname ? ` (${row.jobname})` : ""} failed: ${errorText(err)}`);
    }
    await db.query(
      `update cron.job_run_details set status = $2, return_message = $3, end_time = clock_timestamp()
       where runid = $1`,
      [runid, status, message],
    );
    return runid;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#unlisten) await this.#unlisten();
    this.#unlisten = null;
    if (this.#reloading) await this.#reloading;
    await Promise.all([...this.#runs]);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Pauses every active job (cron.alter_job(active := false), as a user would), for
 * StartOptions.projectCronJobs = false; the number paused. Without pg_cron there is none.
 */
export async function pauseAllCronJobs(db: PGlite): Promise<number> {
  const cron = await db.query<{ ok: boolean }>(`select to_regclass('cron.job') is not null as ok`);
  if (!cron.rows[0].ok) return 0;
  const r = await db.query<{ n: number }>(
    `select count(cron.alter_job(jobid, active := false))::int as n from cron.job where active`,
  );
  return r.rows[0].n;
}

const workers = new WeakMap<object, CronWorker>();

/** The cron worker a platform started (the dashboard's run history and "run now"). */
export function cronWorkerOf(p: object): CronWorker {
  const w = workers.get(p);
  if (!w) throw new Error("the cron part has not started on this platform");
  return w;
}

/** The platform part: the worker runs for as long as the platform does. */
export const cronPart: PlatformPart = {
  name: "cron",
  async start(p) {
    const worker = new CronWorker(p.db, (line) => p.log(line));
    await worker.start();
    workers.set(p, worker);
    return worker;
  },
};
