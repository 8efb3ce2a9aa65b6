/**
 * The gateway's web-scraping actions (spec Gateway "Web scraping"), on the same session machinery
 * as scrape-session-manager (packages/shared/scraping; these actions: actions.ts):
 *
 * - POST /api/scraping/sessions/{session_id}/process (process_scraping_session): runs the session:
 *   pending or failed -> start, paused -> resume, running -> makes sure a runner holds it (a dead
 *   one is replaced). 202 {session_id, status, message}.
 * - POST /api/scraping/sessions/{session_id}/retry (retry_scraping_session): a completed or failed
 *   session's failed pages (and materials whose product failed) go back to pending and it runs
 *   again. 202 {session_id, status, message}; other states 409.
 * - GET /api/scraping/sessions/{session_id}/status (get_scraping_session_status): {session_id,
 *   status, total_pages, processed_pages, failed_pages, materials_found, products_created,
 *   progress, pages: {pending, processing, completed, failed, skipped}, started_at, completed_at,
 *   error}.
 *
 * The caller must be an owner, admin or member of the session's workspace to process or retry,
 * any member to read the status (a session the caller cannot see is 404). Scraper settings and the
 * model key come from the backend's settings (SCRAPER_*, ANTHROPIC_*: config.ts settingsOf). The
 * actions themselves cost nothing (the gateway lists them without a price); the runner's model
 * calls are billed per page to the user who processes or retries the session
 * (packages/shared/scraping/billing.ts: 1 credit per page that needs the model, refunded when the
 * model fails).
 */
import { createRoute } from "@hono/zod-openapi";
import { db, WRITER_ROLES } from "@shared/auth/context.ts";
import { workspaceScope } from "@shared/auth/scope.ts";
import { errorResponse, errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { sessionForCaller, SessionStatus, sessionStatus } from "@shared/scraping/sessions.ts";
import { processSession, retrySession } from "@shared/scraping/actions.ts";
import { router } from "../env.ts";
import { settings } from "../deps.ts";

const tags = ["Web scraping"];
const Params = idParam("session_id");

export function scrapingRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/scraping/sessions/{session_id}/process",
      tags,
      summary: "Run a scraping session (start, resume, or take over a dead runner)",
      request: { params: Params },
      responses: {
        ...okJson("{session_id, status, message}", 202),
        ...errorResponses,
        409: errorResponse("The session is completed or stopped"),
      },
    }),
    async (c) => {
      const { session_id } = c.req.valid("param");
      const session = await sessionForCaller(db(c), session_id);
      const scope = await workspaceScope(
        c,
        session.workspace_id,
        WRITER_ROLES,
        "Processing a scraping session",
      );
      return c.json({ session_id, ...await processSession(scope, settings(c), session) }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/scraping/sessions/{session_id}/retry",
      tags,
      summary: "Retry a finished session's failed pages and products",
      request: { params: Params },
      responses: {
        ...okJson("{session_id, status, message}", 202),
        ...errorResponses,
        409: errorResponse("Only completed or failed sessions can be retried"),
      },
    }),
    async (c) => {
      const { session_id } = c.req.valid("param");
      const session = await sessionForCaller(db(c), session_id);
      const scope = await workspaceScope(
        c,
        session.workspace_id,
        WRITER_ROLES,
        "Retrying a scraping session",
      );
      return c.json({ session_id, ...await retrySession(scope, settings(c), session) }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/scraping/sessions/{session_id}/status",
      tags,
      summary: "A scraping session's progress",
      request: { params: Params },
      responses: { ...okJson("The session's progress", 200, SessionStatus), ...errorResponses },
    }),
    async (c) => {
      const { session_id } = c.req.valid("param");
      return c.json(await sessionStatus(db(c), session_id), 200);
    },
  );

  return app;
}
