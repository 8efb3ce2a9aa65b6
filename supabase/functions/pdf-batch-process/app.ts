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
import { HttpError } from "@shared/http/errors.ts";
import { runInBackground } from "@shared/http/background.ts";
import { BatchRequest, batchView, createBatch, runBatch, sendWebhook } from "./batch.ts";

const tags = ["Batch PDF processing"];
const app = createFunctionApp("pdf-batch-process");
app.use("*", signedIn);

/** Batches this instance is running, so a waiting poll can answer when one settles. */
const running = new Map<string, Promise<void>>();
const WAIT_LIMIT_MS = 60_000;

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
    const service = serviceDb(c);
    const batchId = await createBatch(db(c), service, who.userId, req, (u) => checkUrl(u));
    const backend = requireEnv("AI_BACKEND_URL");
    const token = caller(c).token!;
    const secret = env("PDF_BATCH_WEBHOOK_SECRET");
    // The answer is the batch as accepted, before any worker claims a document.
    const accepted = await batchView(service, batchId);
    // Kept alive past the response on the Edge Runtime (EdgeRuntime.waitUntil), failures logged.
    const run = runInBackground(
      `pdf-batch-process: batch ${batchId}`,
      runBatch({
        service,
        process: async (item, options) => {
          const all = item.extraction_type === "all" || item.extraction_type === "images";
          // The batch takes the job with its options: off the backend runner's queue (queued_at,
          // an upload not deferred) if the runner has not claimed it yet.
          const { error } = await service.from("ai_jobs").update({
            queued_at: null,
            metadata: {
              pipeline_options: {
                chunk_size: options.chunkSize,
                chunk_overlap: options.overlapSize,
                extract_categories: all ? ["all"] : ["products"],
              },
            },
          }).eq("id", item.document_id).in("status", ["pending", "failed"]);
          if (error) return { ok: false, error: error.message };
          const res = await fetch(`${backend}/api/rag/jobs/${item.document_id}/resume`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}` },
          });
          const body = await res.json().catch(() => ({}));
          if (res.ok && body.status === "completed") return { ok: true };
          return { ok: false, error: body.error ?? `the pipeline answered HTTP ${res.status}` };
        },
        notify: (url, body) => sendWebhook(url, body, secret),
      }, batchId),
    );
    running.set(batchId, run);
    run.finally(() => running.delete(batchId));
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
    // Visible to the caller (RLS) before anything else.
    await batchView(db(c), batchId);
    const run = running.get(batchId);
    if (wait === "true" && run) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([run, new Promise((r) => timer = setTimeout(r, WAIT_LIMIT_MS))]);
      clearTimeout(timer);
    }
    return c.json({ success: true, data: await batchView(db(c), batchId) }, 200);
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
    const before = await batchView(db(c), batchId);
    if (before.status !== "queued" && before.status !== "processing") {
      throw new HttpError(409, "batch_finished", `The batch is already ${before.status}`);
    }
    const { data, error } = await serviceDb(c).rpc("pdf_batch_cancel", { p_batch: batchId });
    if (error) throw new HttpError(500, "db_error", error.message);
    if (data !== "cancelled") throw new HttpError(409, "batch_finished", `The batch is already ${data}`);
    return c.json({ success: true, data: await batchView(db(c), batchId) }, 200);
  },
);

export default app;
