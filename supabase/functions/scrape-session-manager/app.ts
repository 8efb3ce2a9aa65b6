/**
 * /functions/v1/scrape-session-manager (spec "Scraping"):
 * - POST / {sessionId, action: start|pause|resume|stop} -> 200 {success, action, sessionId, status}.
 *   The caller must be an owner, admin or member of the session's workspace (from the JWT and the
 *   database; a session the caller cannot see is 404). `start` and `resume` launch the background
 *   runner (pages in batches of 3, packages/shared/scraping/runner.ts); `pause` lets the current
 *   batch finish and keeps the position; `stop` skips the pages left. A move the state machine
 *   refuses is 409 invalid_transition (states: supabase/migrations/20260209000100_scraping.sql).
 *   The user who starts or resumes a session pays for its model calls from then on: 1 credit per
 *   page that needs the model (structured pages are free; packages/shared/scraping/billing.ts);
 *   when the balance runs out such pages fail with the 402 message, and `retry` (gateway
 *   retry_scraping_session) runs them again after a top-up. Unknown body keys are 400 naming them.
 * - POST /tick (service role: the pg_cron job every minute) -> {success, resumed: uuid[]}: hands
 *   running sessions whose runner died (platform restart) to a new runner.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  caller,
  db,
  requireWorkspaceRole,
  serviceDb,
  serviceRoleOnly,
  signedIn,
  WRITER_ROLES,
} from "@shared/auth/context.ts";
import { driveSession, resumeOrphans, SessionAction, sessionForCaller } from "@shared/scraping/sessions.ts";
import { runnerDeps } from "@shared/scraping/pages.ts";
import { payerOf } from "@shared/scraping/billing.ts";

const tags = ["Scraping"];
const app = createFunctionApp("scrape-session-manager");
app.use("*", signedIn);

const Body = z.object({ sessionId: z.uuid(), action: SessionAction }).strict();
const Answer = z.object({
  success: z.boolean(),
  action: SessionAction,
  sessionId: z.uuid(),
  status: z.string(),
});

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "Start, pause, resume or stop a scraping session",
    request: jsonBody(Body),
    responses: {
      ...okJson("{success, action, sessionId, status}", 200, Answer),
      ...errorResponses,
      409: errorResponse("The session's state does not allow the action: {error, code: invalid_transition}"),
    },
  }),
  async (c) => {
    const { sessionId, action } = c.req.valid("json");
    const session = await sessionForCaller(db(c), sessionId);
    await requireWorkspaceRole(c, session.workspace_id, WRITER_ROLES, "Driving a scraping session");
    const service = serviceDb(c);
    const deps = runnerDeps(service, undefined, payerOf(caller(c), session.workspace_id));
    const after = await driveSession(service, deps, session, action);
    return c.json({ success: true, action, sessionId, status: after.status }, 200);
  },
);

app.openapi(
  createRoute({
    method: "post",
    path: "/tick",
    tags,
    summary: "Resume running sessions whose runner died (pg_cron, service role)",
    middleware: serviceRoleOnly,
    responses: { ...okJson("{success, resumed: uuid[]}"), ...errorResponses },
  }),
  async (c) => {
    const service = serviceDb(c);
    const resumed = await resumeOrphans(service, runnerDeps(service));
    return c.json({ success: true, resumed }, 200);
  },
);

export default app;
