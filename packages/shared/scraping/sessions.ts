/**
 * Session control shared by the edge functions (scrape-session-manager, batch-update-sessions,
 * scrape-single-page) and the AI backend's scraping routes: reading a session as the caller (RLS:
 * what the caller cannot see is a 404), moving it through its states (scraping_session_action:
 * illegal moves are a 409), launching its runner in the background, and its status summary.
 *
 * Request and response shapes the spec leaves open are declared here (zod), one place for the
 * function route tables and the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { runInBackground } from "../http/background.ts";
import { type RunEnd, type RunnerDeps, runSession, STALE_AFTER_MS } from "./runner.ts";
import { schemaValidator } from "./extract.ts";
import { setSessionPayer } from "./billing.ts";
import { runTick, staleBefore } from "../scheduling/tick.ts";

export const SessionAction = z.enum(["start", "pause", "resume", "stop"]);
export type SessionAction = z.infer<typeof SessionAction>;

export const ExtractOptionsSchema = z.object({
  prompt: z.string().max(10_000).optional(),
  systemPrompt: z.string().max(10_000).optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  timeout: z.number().int().min(1000).max(120_000).optional(),
}).strict();

export interface SessionRow {
  id: string;
  workspace_id: string;
  status: string;
  name: string;
  options: Record<string, unknown>;
  total_pages: number;
  processed_pages: number;
  failed_pages: number;
  materials_found: number;
  products_created: number;
  started_at: string | null;
  completed_at: string | null;
  paused_at: string | null;
  heartbeat_at: string | null;
  worker_id: string | null;
  error: string | null;
}

/** The session as the caller sees it through RLS; 404 when it does not exist for them. */
export async function sessionForCaller(userDb: SupabaseClient, sessionId: string): Promise<SessionRow> {
  const { data, error } = await userDb.from("scraping_sessions").select("*").eq("id", sessionId)
    .maybeSingle();
  if (error) throw new DomainError("internal", "db_error", `Reading the session: ${error.message}`);
  if (!data) throw new DomainError("not_found", "not_found", "Scraping session not found");
  return data as SessionRow;
}

/** Runs one state move; a refused move is 409 naming the state. */
export async function applyAction(
  service: SupabaseClient,
  sessionId: string,
  action: SessionAction | "retry",
): Promise<SessionRow> {
  const { data, error } = await service.rpc("scraping_session_action", {
    p_session: sessionId,
    p_action: action,
    p_now: new Date().toISOString(),
  });
  if (error) {
    if (error.code === "23514") throw new DomainError("conflict", "invalid_transition", error.message);
    if (error.code === "P0002") throw new DomainError("not_found", "not_found", "Scraping session not found");
    throw new DomainError("internal", "db_error", `Moving the session: ${error.message}`);
  }
  return data as SessionRow;
}

/** A session's options are checked before it starts (a schema zod cannot use is a 400 now, not per page). */
export function checkOptions(options: unknown): void {
  const parsed = ExtractOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw DomainError.invalid(`options${i.path.length ? "." + i.path.join(".") : ""}: ${i.message}`);
  }
  schemaValidator(parsed.data.schema);
}

/** Runs held by this process (tests wait on them; a platform restart loses them, the database does not). */
export const activeRuns = new Map<string, Promise<RunEnd>>();

/** Starts the session's runner in the background unless this process already runs it. */
export function launch(deps: RunnerDeps, sessionId: string): Promise<RunEnd> {
  const existing = activeRuns.get(sessionId);
  if (existing) return existing;
  const run = runSession(deps, sessionId).catch((err) => {
    console.error(`scraping: runner for ${sessionId} stopped`, err);
    return "failed" as RunEnd;
  });
  activeRuns.set(sessionId, run);
  // Kept alive past the response up to the wall clock (EdgeRuntime.waitUntil); the session lease
  // lets the cron tick resume whatever the wall clock cuts off.
  runInBackground(`scraping: runner for ${sessionId}`, run);
  run.finally(() => {
    if (activeRuns.get(sessionId) === run) activeRuns.delete(sessionId);
  });
  return run;
}

/**
 * Launches the session's runner on behalf of `deps.payer` (the signed-in caller), who from now on
 * pays for its model calls (billing.ts); the service role (no payer) leaves the recorded payer.
 */
export async function launchAs(deps: RunnerDeps, sessionId: string): Promise<void> {
  if (deps.payer) await setSessionPayer(deps.service, sessionId, deps.payer.userId);
  void launch(deps, sessionId); // in the background: awaiting it here would wait for the whole run
}

/**
 * Start, pause, resume or stop a session the caller may drive; start/resume/retry launch the
 * runner, billed to the caller (launchAs).
 */
export async function driveSession(
  service: SupabaseClient,
  deps: RunnerDeps,
  session: SessionRow,
  action: SessionAction | "retry",
): Promise<SessionRow> {
  if (action === "start" || action === "retry") checkOptions(session.options);
  const after = await applyAction(service, session.id, action);
  if (after.status === "running") await launchAs(deps, session.id);
  return after;
}

/**
 * Resumes running sessions nobody works on (the cron tick after a platform restart; the shared
 * tick, scheduling/tick.ts): claims the sessions whose runner's heartbeat is older than
 * STALE_AFTER_MS and launches a new runner for each in the background.
 */
export async function resumeOrphans(
  service: SupabaseClient,
  deps: RunnerDeps,
  limit = 20,
): Promise<string[]> {
  const t = await runTick({
    name: "scrape-session-manager",
    now: new Date(),
    claim: async (now) => {
      const { data, error } = await service.rpc("scraping_orphaned_sessions", {
        p_stale_before: staleBefore(now, STALE_AFTER_MS),
        p_limit: limit,
      });
      if (error) throw new DomainError("internal", "db_error", `Finding orphaned sessions: ${error.message}`);
      return ((data ?? []) as (string | { scraping_orphaned_sessions: string })[]).map((r) =>
        typeof r === "string" ? r : r.scraping_orphaned_sessions
      );
    },
    run: (id) => {
      launch(deps, id);
      return Promise.resolve();
    },
  });
  return t.claimed;
}

export const SessionStatus = z.object({
  session_id: z.uuid(),
  status: z.string(),
  total_pages: z.number(),
  processed_pages: z.number(),
  failed_pages: z.number(),
  materials_found: z.number(),
  products_created: z.number(),
  progress: z.number().describe("processed / total pages, 0-100"),
  pages: z.record(z.string(), z.number()).describe("page count per status"),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  error: z.string().nullable(),
});

/** Every scraping_pages.status value (the table's check constraint). */
const PAGE_STATUSES = ["pending", "processing", "completed", "failed", "skipped"] as const;

/** The status summary (get_scraping_session_status), read as the caller. */
export async function sessionStatus(
  userDb: SupabaseClient,
  sessionId: string,
): Promise<z.infer<typeof SessionStatus>> {
  const s = await sessionForCaller(userDb, sessionId);
  // One head count per status (the table's check constraint lists them all): counting rows read
  // in JS would stop at PostgREST's max rows (1,000) and undercount large sessions silently.
  const counts = await Promise.all(
    PAGE_STATUSES.map((status) =>
      userDb.from("scraping_pages").select("id", { count: "exact", head: true })
        .eq("session_id", sessionId).eq("status", status)
    ),
  );
  const pages: Record<string, number> = {};
  counts.forEach(({ count, error }, i) => {
    if (error) throw new DomainError("internal", "db_error", `Counting pages: ${error.message}`);
    pages[PAGE_STATUSES[i]] = count ?? 0;
  });
  return {
    session_id: s.id,
    status: s.status,
    total_pages: s.total_pages,
    processed_pages: s.processed_pages,
    failed_pages: s.failed_pages,
    materials_found: s.materials_found,
    products_created: s.products_created,
    progress: s.total_pages ? Math.round((s.processed_pages / s.total_pages) * 100) : 0,
    pages,
    started_at: s.started_at,
    completed_at: s.completed_at,
    error: s.error,
  };
}
