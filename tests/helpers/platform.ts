/**
 * Test harness: one in-process local platform per test module (fixtures/platform.ts's ephemeral
 * platform: free port, in-memory database copied from the migrated template, the migrations'
 * pg_cron jobs paused unless the module calls runProjectCronJobsInModule). Tests talk to it
 * over HTTP with supabase-js and fetch, as a client would, and may read the rows left behind
 * through `platform.db`. The clients, users and workspaces tests and benches share live in
 * fixtures/platform.ts and are re-exported here.
 */
import type { Platform } from "../../stack/platform.ts";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import { currentTestFile } from "./file_scope.ts";

export {
  anonClient,
  createUser,
  createWorkspace,
  personalWorkspace,
  serviceClient,
  type TestUser,
  uniqueEmail,
} from "../../fixtures/platform.ts";

/**
 * Per test file (file_scope.ts: one file is one module, unless tests/helpers/shards.ts runs many
 * in one): its platform, the cron jobs it keeps paused, whether it runs the project's jobs.
 */
interface FileState {
  current: Promise<Platform> | null;
  pausedInModule: string[];
  projectCronJobs: boolean;
}
const files = new Map<string, FileState>();

function fileState(file = currentTestFile()): FileState {
  let s = files.get(file);
  if (!s) files.set(file, s = { current: null, pausedInModule: [], projectCronJobs: false });
  return s;
}

/** The module's platform, started on first use and stopped when the module's tests end. */
export function getPlatform(): Promise<Platform> {
  const s = fileState();
  if (!s.current) {
    s.current = startEphemeralPlatform({ projectCronJobs: s.projectCronJobs }).then(async (p) => {
      if (s.pausedInModule.length) await pauseCronJobs(p, ...s.pausedInModule);
      return p;
    });
  }
  return s.current;
}

/**
 * Opts the module's platform into the migrations' pg_cron jobs (paused by default, see
 * docs/testing.md): for the tests about the real clock calling the real functions. Call at the
 * module's top level, before any test starts the platform.
 */
export function runProjectCronJobsInModule(): void {
  const s = fileState();
  if (s.current) throw new Error("runProjectCronJobsInModule: the module's platform has started already");
  s.projectCronJobs = true;
}

/**
 * For a module whose tests drive a scheduled function by hand: its pg_cron jobs stay paused even
 * if the module opts into the project's jobs (see pauseCronJobs); the names must exist. Call at
 * the module's top level.
 */
export function pauseCronJobsInModule(...names: string[]): void {
  fileState().pausedInModule.push(...names);
}

export async function stopPlatform(): Promise<void> {
  await stopFilePlatform(currentTestFile());
}

/** Stops a file's platform, if it has one (tests/helpers/shards.ts, after the file's last test). */
export async function stopFilePlatform(file: string): Promise<void> {
  const s = files.get(file);
  if (s?.current) {
    const p = await s.current;
    s.current = null;
    await p.stop();
  }
}

/** Gives a user a platform role (admin, manager, factory, user) directly in the database. */
export async function setPlatformRole(p: Platform, userId: string, role: string): Promise<void> {
  const r = await p.db.query(
    `update public.user_profiles set role_id = (select id from public.roles where name = $2) where user_id = $1`,
    [userId, role],
  );
  if (r.affectedRows !== 1) throw new Error(`no profile for ${userId}`);
}

/** Deno.test for platform tests: the shared server outlives single tests, so no sanitizers. */
export function platformTest(name: string, fn: (p: Platform) => Promise<void>): void {
  Deno.test({
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => fn(await getPlatform()),
  });
}

/**
 * Pauses pg_cron jobs by name (cron.alter_job(active := false)) for a test that drives their
 * function by hand on a platform that runs the real per-minute jobs (Vault has its URL): a real
 * tick between a test's setup and its own call would claim the work the test asserts on.
 */
export async function pauseCronJobs(p: Platform, ...names: string[]): Promise<void> {
  const r = await p.db.query<{ n: number }>(
    `select count(cron.alter_job(jobid, active := false))::int as n from cron.job where jobname = any($1)`,
    [names],
  );
  if (r.rows[0].n !== names.length) throw new Error(`cron jobs not found: ${names.join(", ")}`);
}
