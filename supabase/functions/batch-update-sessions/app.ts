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
import { batchUpdateSessions } from "@shared/scraping/batch_update.ts";
import { BatchUpdate } from "@shared/scraping/templates.ts";

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
    const out = await batchUpdateSessions({
      db: db(c),
      service: serviceDb(c),
      // The caller pays for the model calls of the sessions it starts or resumes.
      payer: payerOf(caller(c), null),
      authorize: (ws) => requireWorkspaceRole(c, ws, WRITER_ROLES, "Updating a scraping session"),
    }, c.req.valid("json"));
    return c.json(out, 200);
  },
);

export default app;
