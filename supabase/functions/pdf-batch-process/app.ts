/**
 * /functions/v1/pdf-batch-process (spec "Batch PDF processing"), signed-in users:
 * - POST: a batch of up to 100 of the caller's uploaded documents, optionally for a workspace the
 *   caller is an owner, admin or member of (an outsider's workspaceId is 404, a viewer's 403, and
 *   nothing is written); unknown body keys are a 400 naming them; 202 {success, data: {batchId,
 *   status: queued, totalDocuments, processedDocuments, failedDocuments, estimatedCompletionTime,
 *   results}}; the batch then runs in the background, maxConcurrent documents at a time;
 * - GET ?batchId= polls it (`&wait=true` holds the answer until a batch this instance runs has
 *   settled, at most 60 s);
 * - DELETE ?batchId= cancels it: queued documents are cancelled, running ones finish.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  caller,
  db,
  requireUser,
  requireWorkspaceRole,
  serviceDb,
  signedIn,
  WRITER_ROLES,
} from "@shared/auth/context.ts";
import { env, requireEnv } from "@shared/env.ts";
import { checkUrl } from "@shared/net/safe_fetch.ts";
import { BatchRequest, cancelBatch, pollBatch, startBatch } from "@shared/pdf_batch/mod.ts";

const tags = ["Batch PDF processing"];
const app = createFunctionApp("pdf-batch-process");
app.use("*", signedIn);

const BatchQuery = z.object({ batchId: z.uuid(), wait: z.enum(["true", "false"]).default("false") });

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "Queue a batch of uploaded documents for the processing pipeline",
    request: jsonBody(BatchRequest),
    responses: { ...okJson("{success, data: {batchId, status: queued, ...}}", 202), ...errorResponses },
  }),
  async (c) => {
    const who = requireUser(c);
    const req = c.req.valid("json");
    if (req.workspaceId) {
      await requireWorkspaceRole(c, req.workspaceId, WRITER_ROLES, "Processing documents for a workspace");
    }
    const accepted = await startBatch({
      db: db(c),
      service: serviceDb(c),
      userId: who.userId,
      token: caller(c).token!,
      backendUrl: () => requireEnv("AI_BACKEND_URL"),
      webhookSecret: env("PDF_BATCH_WEBHOOK_SECRET"),
      checkUrl: (u) => checkUrl(u),
    }, req);
    return c.json({ success: true, data: accepted }, 202);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/",
    tags,
    summary: "A batch's status and per-document results",
    request: { query: BatchQuery },
    responses: { ...okJson("{success, data: {batchId, status, ...}}"), ...errorResponses },
  }),
  async (c) => {
    const { batchId, wait } = c.req.valid("query");
    return c.json({ success: true, data: await pollBatch(db(c), batchId, wait === "true") }, 200);
  },
);

app.openapi(
  createRoute({
    method: "delete",
    path: "/",
    tags,
    summary: "Cancel a queued or processing batch (queued documents are cancelled)",
    request: { query: BatchQuery.pick({ batchId: true }) },
    responses: {
      ...okJson("{success, data: {batchId, status: cancelled, ...}}"),
      ...errorResponses,
      409: errorResponse("The batch has finished"),
    },
  }),
  async (c) => {
    const { batchId } = c.req.valid("query");
    return c.json({ success: true, data: await cancelBatch(db(c), serviceDb(c), batchId) }, 200);
  },
);

export default app;
