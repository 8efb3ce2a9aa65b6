/**
 * /functions/v1/batch-update-sessions (spec "Scraping"; shapes chosen in
 * packages/shared/scraping/templates.ts): POST {sessionIds[], action?: start|pause|resume|stop,
 * updates?: {name?, category?, options?}} (exactly one of action / updates) -> 200 {success,
 * results: [{sessionId, success, status?, error?}], succeeded, failed}. Each session is authorised
 * on its own: owner, admin or member of its workspace; invisible sessions report "not found".
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { caller, db, requireWorkspaceRole, serviceDb, userOnly, WRITER_ROLES } from "@shared/auth/context.ts";
import { payerOf } from "@shared/scraping/billing.ts";
import { driveSession, sessionForCaller } from "@shared/scraping/sessions.ts";
import { runnerDeps } from "@shared/scraping/pages.ts";
import { type BatchResult, BatchUpdate, resultError } from "@shared/scraping/templates.ts";
import { checkOptions } from "@shared/scraping/sessions.ts";
import { dbError } from "@shared/supabase/postgrest.ts";
import type { Json } from "@shared/supabase/types.ts";

const app = createFunctionApp("batch-update-sessions");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Scraping"],
    summary: "Apply one action or one set of updates to several sessions",
    request: jsonBody(BatchUpdate),
    responses: { ...okJson("{success, results, succeeded, failed}"), ...errorResponses },
  }),
  async (c) => {
    const body = c.req.valid("json");
    if (body.updates?.options) checkOptions(body.updates.options);
    const service = serviceDb(c);
    // The caller pays for the model calls of the sessions it starts or resumes.
    const deps = runnerDeps(service, undefined, payerOf(caller(c), null));
    const results: BatchResult[] = [];
    for (const sessionId of body.sessionIds) {
      try {
        const session = await sessionForCaller(db(c), sessionId);
        await requireWorkspaceRole(c, session.workspace_id, WRITER_ROLES, "Updating a scraping session");
        if (body.action) {
          const after = await driveSession(service, deps, session, body.action);
          results.push({ sessionId, success: true, status: after.status });
        } else {
          const updates = body.updates!;
          // options.schema is a JSON Schema parsed from the request body (z.unknown() values): JSON
          // by construction, though TS cannot see it as `Json`.
          const { data, error } = await db(c).from("scraping_sessions").update({
            ...updates,
            options: updates.options as NonNullable<Json> | undefined,
          }).eq(
            "id",
            sessionId,
          )
            .select("status").single();
          if (error) throw dbError(error, "Scraping session");
          results.push({ sessionId, success: true, status: data.status });
        }
      } catch (err) {
        results.push({ sessionId, success: false, error: resultError(err) });
      }
    }
    const failed = results.filter((r) => !r.success).length;
    return c.json({ success: failed === 0, results, succeeded: results.length - failed, failed }, 200);
  },
);

export default app;
