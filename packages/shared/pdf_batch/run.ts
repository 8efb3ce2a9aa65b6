/**
 * pdf-batch-process after the function authorised the caller: queue a batch and run it in the
 * background (`startBatch`), poll it (`pollBatch`, optionally holding the answer until a batch
 * this instance runs has settled) and cancel it (`cancelBatch`). Each document runs through the
 * AI backend's resume route as the caller (`resumeDocument`), with the batch's options.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { runInBackground } from "../http/background.ts";
import { type BatchRequest, batchView, createBatch, runBatch, sendWebhook } from "./batch.ts";

/** Batches this instance is running, so a waiting poll can answer when one settles. */
const running = new Map<string, Promise<void>>();
export const WAIT_LIMIT_MS = 60_000;

export interface StartDeps {
  /** The caller's client (RLS: only their uploads). */
  db: SupabaseClient;
  service: SupabaseClient;
  userId: string;
  /** The caller's JWT, presented to the AI backend. */
  token: string;
  /** The AI backend's URL (read once the batch is created, as before). */
  backendUrl: () => string;
  webhookSecret: string | undefined;
  checkUrl: (url: string) => Promise<unknown>;
}

/** Creates the batch, starts it in the background and answers it as accepted (queued). */
export async function startBatch(d: StartDeps, req: BatchRequest) {
  const batchId = await createBatch(d.db, d.service, d.userId, req, d.checkUrl);
  const backend = d.backendUrl();
  // The answer is the batch as accepted, before any worker claims a document.
  const accepted = await batchView(d.service, batchId);
  // Kept alive past the response on the Edge Runtime (EdgeRuntime.waitUntil), failures logged.
  const run = runInBackground(
    `pdf-batch-process: batch ${batchId}`,
    runBatch({
      service: d.service,
      process: (item, options) => resumeDocument(d.service, backend, d.token, item, options),
      notify: (url, body) => sendWebhook(url, body, d.webhookSecret),
    }, batchId),
  ).then(() => {});
  running.set(batchId, run);
  run.finally(() => running.delete(batchId));
  return accepted;
}

/** Runs one upload job through the pipeline with the batch's options, as the caller. */
async function resumeDocument(
  service: SupabaseClient,
  backend: string,
  token: string,
  item: { document_id: string; extraction_type: string },
  options: BatchRequest["options"],
): Promise<{ ok: boolean; error?: string }> {
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
}

/** The batch as the caller sees it; with `wait`, after a batch this instance runs settled (at most WAIT_LIMIT_MS). */
export async function pollBatch(userDb: SupabaseClient, batchId: string, wait: boolean) {
  // Visible to the caller (RLS) before anything else.
  await batchView(userDb, batchId);
  const run = running.get(batchId);
  if (wait && run) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([run, new Promise((r) => timer = setTimeout(r, WAIT_LIMIT_MS))]);
    clearTimeout(timer);
  }
  return await batchView(userDb, batchId);
}

/** Cancels a queued or processing batch (queued documents are cancelled, running ones finish). */
export async function cancelBatch(userDb: SupabaseClient, service: SupabaseClient, batchId: string) {
  const before = await batchView(userDb, batchId);
  if (before.status !== "queued" && before.status !== "processing") {
    throw DomainError.conflict(`The batch is already ${before.status}`, undefined, "batch_finished");
  }
  const { data, error } = await service.rpc("pdf_batch_cancel", { p_batch: batchId });
  if (error) throw new DomainError("internal", "db_error", error.message);
  if (data !== "cancelled") {
    throw DomainError.conflict(`The batch is already ${data}`, undefined, "batch_finished");
  }
  return await batchView(userDb, batchId);
}
