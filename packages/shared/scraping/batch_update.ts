/**
 * batch-update-sessions (shapes in templates.ts): one action or one set of updates applied to
 * several sessions, each authorised on its own by the caller's `authorize` (the function checks
 * the caller's role in the session's workspace), so one bad id does not stop the others.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { dbError } from "../supabase/postgrest.ts";
import type { Json } from "../supabase/types.ts";
import type { Payer } from "./billing.ts";
import { runnerDeps } from "./pages.ts";
import { checkOptions, driveSession, sessionForCaller } from "./sessions.ts";
import { type BatchResult, type BatchUpdate, resultError } from "./templates.ts";

export interface BatchUpdateDeps {
  /** The caller's client (RLS: a session it cannot see is "not found"). */
  db: SupabaseClient;
  service: SupabaseClient;
  /** Who pays for the model calls of the sessions started or resumed. */
  payer: Payer | null;
  /** Refuses (throws) when the caller may not update sessions of the workspace. */
  authorize: (workspaceId: string) => Promise<unknown>;
}

export async function batchUpdateSessions(deps: BatchUpdateDeps, body: BatchUpdate) {
  if (body.updates?.options) checkOptions(body.updates.options);
  const runner = runnerDeps(deps.service, undefined, deps.payer);
  const results: BatchResult[] = [];
  for (const sessionId of body.sessionIds) {
    try {
      const session = await sessionForCaller(deps.db, sessionId);
      await deps.authorize(session.workspace_id);
      if (body.action) {
        const after = await driveSession(deps.service, runner, session, body.action);
        results.push({ sessionId, success: true, status: after.status });
      } else {
        const updates = body.updates!;
        // options.schema is a JSON Schema parsed from the request body (z.unknown() values): JSON
        // by construction, though TS cannot see it as `Json`.
        const { data, error } = await deps.db.from("scraping_sessions").update({
          ...updates,
          options: updates.options as NonNullable<Json> | undefined,
        }).eq("id", sessionId).select("status").single();
        if (error) throw dbError(error, "Scraping session");
        results.push({ sessionId, success: true, status: data.status });
      }
    } catch (err) {
      results.push({ sessionId, success: false, error: resultError(err) });
    }
  }
  const failed = results.filter((r) => !r.success).length;
  return { success: failed === 0, results, succeeded: results.length - failed, failed };
}
