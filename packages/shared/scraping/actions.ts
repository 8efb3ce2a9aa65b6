/**
 * The AI backend's scraping actions (spec Gateway "Web scraping": process_scraping_session,
 * retry_scraping_session; routes/scraping.ts), on the session machinery of sessions.ts. The HTTP
 * layer reads the session as the caller and authorises the caller as a writer of its workspace
 * (`scope`); the runner's model calls are billed to that caller (billing.ts; the service role
 * leaves the recorded payer).
 */
import type { WorkspaceScope } from "../auth/scope.ts";
import { payerOf } from "./billing.ts";
import { runnerDeps } from "./pages.ts";
import { STALE_AFTER_MS } from "./runner.ts";
import { driveSession, launchAs, type SessionRow } from "./sessions.ts";

/** Reads a backend setting or secret (SCRAPER_*, the model's key). */
type Settings = (name: string) => string | undefined;

function depsOf(scope: WorkspaceScope, settings: Settings) {
  const who = { kind: scope.role === "service" ? "service" : "user", userId: scope.userId };
  return runnerDeps(scope.service, settings, payerOf(who, scope.workspaceId));
}

/**
 * Runs a session: pending or failed -> start, paused -> resume, running -> makes sure a runner
 * holds it (a runner whose heartbeat is older than STALE_AFTER_MS, or none, is replaced).
 */
export async function processSession(scope: WorkspaceScope, settings: Settings, session: SessionRow) {
  const deps = depsOf(scope, settings);
  let status = session.status;
  if (session.status === "running") {
    const stale = !session.heartbeat_at ||
      Date.parse(session.heartbeat_at) < Date.now() - STALE_AFTER_MS || !session.worker_id;
    if (stale) await launchAs(deps, session.id);
  } else {
    const action = session.status === "paused" ? "resume" : "start";
    status = (await driveSession(scope.service, deps, session, action)).status;
  }
  return { status, message: "The session is processing in the background" };
}

/** A completed or failed session's failed pages (and materials whose product failed) run again. */
export async function retrySession(scope: WorkspaceScope, settings: Settings, session: SessionRow) {
  const after = await driveSession(scope.service, depsOf(scope, settings), session, "retry");
  return { status: after.status, message: "Failed pages are being processed again" };
}
