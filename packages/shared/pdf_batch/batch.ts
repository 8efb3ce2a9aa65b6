/**
 * Batch PDF processing, the domain part: the request and answer shapes of the spec, creating a
 * batch of the caller's upload jobs, running it (maxConcurrent workers that claim items through
 * the database, so the limit holds), cancelling it, and the signed completion webhook (only to
 * public addresses, through safeFetch).
 *
 * Each document is an upload job (ai_jobs id, from upload-async, uploaded with
 * defer_processing=true so that the batch decides its options; an upload not deferred is run by
 * the backend at once) that the pipeline runs through the AI backend's resume route, as the
 * caller. extractionType `all` and `images` keep every
 * image (extract categories `all`); `markdown` and `tables` keep the default focused extraction.
 * chunkSize / overlapSize become the pipeline's chunk_size / chunk_overlap.
 */
import { z } from "@hono/zod-openapi";
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { safeFetch, UnsafeUrlError } from "../net/safe_fetch.ts";
import { signatureHeader } from "../webhook_signature.ts";

export const BatchRequest = z.object({
  documents: z.array(
    z.object({
      documentId: z.uuid(),
      extractionType: z.enum(["markdown", "tables", "images", "all"]).default("all"),
      priority: z.enum(["low", "normal", "high"]).default("normal"),
    }).strict(),
  ).min(1).max(100),
  /** Checked by the route: the caller must be an owner, admin or member of it (outsiders 404). */
  workspaceId: z.uuid().optional(),
  options: z.object({
    includeImages: z.boolean().default(true),
    includeMetadata: z.boolean().default(true),
    chunkSize: z.number().int().min(100).max(10_000).default(512),
    overlapSize: z.number().int().min(0).max(1000).default(50),
    outputFormat: z.literal("json").default("json"),
    maxConcurrent: z.number().int().min(1).max(10).default(3),
    notifyOnComplete: z.boolean().default(false),
    webhookUrl: z.url({ protocol: /^https?$/ }).optional(),
  }).strict().default({
    includeImages: true,
    includeMetadata: true,
    chunkSize: 512,
    overlapSize: 50,
    outputFormat: "json",
    maxConcurrent: 3,
    notifyOnComplete: false,
  }),
}).strict();
export type BatchRequest = z.infer<typeof BatchRequest>;

/** The planning figure behind estimatedCompletionTime: one document per worker per minute. */
const SECONDS_PER_DOCUMENT = 60;

interface BatchRow {
  id: string;
  status: string;
  total_documents: number;
  processed_documents: number;
  failed_documents: number;
  max_concurrent: number;
  max_in_flight: number;
  estimated_completion_time: string | null;
  webhook_url: string | null;
  webhook_status: string | null;
  /** The request's validated options, as stored at creation. */
  options: BatchRequest["options"];
}
interface ItemRow {
  id: string;
  document_id: string;
  status: string;
  error: string | null;
  extraction_type: string;
}

function ok<T>(res: { data: T; error: { message: string } | null }, what: string): T {
  if (res.error) throw new DomainError("internal", "db_error", `${what}: ${res.error.message}`);
  return res.data;
}

/** The spec's batch body: {batchId, status, totals, estimatedCompletionTime, results}. */
export async function batchView(db: SupabaseClient, batchId: string) {
  const batch = ok(
    await db.from("pdf_batches").select("*").eq("id", batchId).maybeSingle(),
    "Reading the batch",
  ) as
    | BatchRow
    | null;
  if (!batch) throw new DomainError("not_found", "not_found", "Batch not found");
  const items = ok(
    await db.from("pdf_batch_items").select("id, document_id, status, error, extraction_type").eq(
      "batch_id",
      batchId,
    )
      .order("position"),
    "Reading the batch items",
  ) as ItemRow[];
  return {
    batchId: batch.id,
    status: batch.status,
    totalDocuments: batch.total_documents,
    processedDocuments: batch.processed_documents,
    failedDocuments: batch.failed_documents,
    estimatedCompletionTime: batch.estimated_completion_time,
    maxConcurrent: batch.max_concurrent,
    maxInFlight: batch.max_in_flight,
    webhookStatus: batch.webhook_status,
    results: items.map((i) => ({
      documentId: i.document_id,
      status: i.status,
      ...(i.error ? { error: i.error } : {}),
    })),
  };
}

/**
 * Creates the batch after checking every document is an upload job of the caller (read as the
 * caller, so RLS applies) and the webhook address is public. Returns the batch id.
 */
export async function createBatch(
  callerDb: SupabaseClient,
  service: SupabaseClient,
  userId: string,
  req: BatchRequest,
  checkUrl: (url: string) => Promise<unknown>,
): Promise<string> {
  const ids = req.documents.map((d) => d.documentId);
  if (new Set(ids).size !== ids.length) throw DomainError.invalid("documents: a document is listed twice");
  const jobs = ok(
    await callerDb.from("ai_jobs").select("id, user_id").in("id", ids),
    "Reading the documents",
  ) as { id: string; user_id: string }[];
  const mine = new Set(jobs.filter((j) => j.user_id === userId).map((j) => j.id));
  const missing = ids.filter((id) => !mine.has(id));
  if (missing.length) {
    throw new DomainError(
      "not_found",
      "not_found",
      `documents not found among your uploads: ${missing.join(", ")}`,
    );
  }
  const o = req.options;
  if (o.notifyOnComplete && !o.webhookUrl) {
    throw DomainError.invalid("options.webhookUrl: required with notifyOnComplete");
  }
  if (o.webhookUrl) {
    try {
      await checkUrl(o.webhookUrl);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw DomainError.invalid(`options.webhookUrl: ${err.message}`);
      throw err;
    }
  }
  const waves = Math.ceil(ids.length / o.maxConcurrent);
  const batch = ok(
    await service.from("pdf_batches").insert({
      user_id: userId,
      workspace_id: req.workspaceId ?? null,
      total_documents: ids.length,
      max_concurrent: o.maxConcurrent,
      options: o,
      webhook_url: o.notifyOnComplete ? o.webhookUrl : null,
      estimated_completion_time: new Date(Date.now() + waves * SECONDS_PER_DOCUMENT * 1000).toISOString(),
    }).select("id").single(),
    "Creating the batch",
  ) as { id: string };
  ok(
    await service.from("pdf_batch_items").insert(req.documents.map((d, position) => ({
      batch_id: batch.id,
      position,
      document_id: d.documentId,
      extraction_type: d.extractionType,
      priority: d.priority,
    }))),
    "Creating the batch items",
  );
  return batch.id;
}

export interface RunDeps {
  service: SupabaseClient;
  /** Runs one document through the pipeline; resolves with its outcome. */
  process: (
    item: { document_id: string; extraction_type: string },
    options: BatchRequest["options"],
  ) => Promise<
    { ok: boolean; error?: string }
  >;
  /** Sends the completion webhook when the batch asked for one. */
  notify: (url: string, body: string) => Promise<string>;
}

/** Runs a batch to the end with max_concurrent workers; resolves when no item is left. */
export async function runBatch(deps: RunDeps, batchId: string): Promise<void> {
  const batch = ok(
    await deps.service.from("pdf_batches").select("*").eq("id", batchId).single(),
    "Reading the batch",
  ) as BatchRow;
  let settled: string | null = null;
  const worker = async () => {
    for (;;) {
      const claimed = ok(
        await deps.service.rpc("pdf_batch_claim_next", { p_batch: batchId }),
        "Claiming an item",
      ) as ItemRow[];
      const item = claimed[0];
      if (!item) return;
      let outcome: { ok: boolean; error?: string };
      try {
        outcome = await deps.process(item, batch.options);
      } catch (err) {
        outcome = { ok: false, error: (err as Error).message };
      }
      const status = ok(
        await deps.service.rpc("pdf_batch_finish_item", {
          p_item: item.id,
          p_ok: outcome.ok,
          p_error: outcome.error ?? null,
        }),
        "Recording an item",
      ) as string | null;
      if (status && ["completed", "failed", "cancelled"].includes(status)) settled = status;
    }
  };
  await Promise.all(Array.from({ length: batch.max_concurrent }, worker));
  if (settled && batch.webhook_url) {
    const view = await batchView(deps.service, batchId);
    const outcome = await deps.notify(
      batch.webhook_url,
      JSON.stringify({ event: "batch.completed", data: view }),
    );
    ok(
      await deps.service.from("pdf_batches").update({ webhook_status: outcome }).eq("id", batchId),
      "Webhook status",
    );
  }
}

/** Sends the signed webhook to a public address; answers what happened, for webhook_status. */
export async function sendWebhook(url: string, body: string, secret: string | undefined): Promise<string> {
  if (!secret) return "not_sent: PDF_BATCH_WEBHOOK_SECRET is not configured";
  try {
    const res = await safeFetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-batch-signature": await signatureHeader(secret, body),
      },
      body,
    });
    return `delivered: HTTP ${res.status}`;
  } catch (err) {
    return `failed: ${(err as Error).message}`;
  }
}
