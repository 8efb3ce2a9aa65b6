/**
 * An accepted async upload is processed without another call (issue 33): a frontend uploads
 * through ai-gateway's multipart route (202 {job_id, status: pending, message}) and only polls
 * GET job-status/{job_id}; the backend's job runner takes the job to `completed` (or `failed`
 * with the stage's error, refunded). A job accepted while no runner ran (a crash, a restart) or
 * whose runner died is taken up by the next runner's sweep, never by two runners at once; a job
 * whose runner died three times is failed and refunded. `defer_processing=true` keeps the job for
 * resume or a batch, and a job a user writes through /rest/v1 is never run for free.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import type { Platform } from "../../stack/platform.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { JobRunner, jobRunnerOf } from "../../services/ai-backend/mod.ts";
import { LocalHashEmbeddings } from "../../packages/shared/embeddings/mod.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { sampleCatalogue } from "../helpers/catalogue_pdf.ts";
import { type Json, llm, q, scriptFullRun } from "../pipeline/helpers.ts";
import { balance, grant } from "./helpers.ts";

const TERMINAL = ["completed", "failed", "cancelled"];

/** The gateway's multipart upload, as a frontend sends it. */
async function upload(
  p: Platform,
  token: string,
  file: File,
  fields: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  const form = new FormData();
  form.append("file", file);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${p.url}/functions/v1/ai-gateway`, {
    method: "POST",
    headers: { apikey: p.config.anonKey, authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

async function jobStatus(p: Platform, token: string, jobId: string): Promise<Json> {
  const res = await fetch(`${p.url}/functions/v1/ai-gateway/job-status/${jobId}`, {
    headers: { apikey: p.config.anonKey, authorization: `Bearer ${token}` },
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.success, true);
  return body.data;
}

/** Polls job-status every 100 ms, as a frontend would, until the job is finished (60 s at most). */
async function pollUntilFinished(p: Platform, token: string, jobId: string): Promise<Json> {
  const seen = new Set<string>();
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    const job = await jobStatus(p, token, jobId);
    seen.add(job.status);
    if (TERMINAL.includes(job.status)) return { ...job, seen: [...seen] };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not finish in 60 s; statuses seen: ${[...seen].join(", ")}`);
}

const catalogue = async () =>
  new File([await sampleCatalogue() as Uint8Array<ArrayBuffer>], "catalogue.pdf", {
    type: "application/pdf",
  });

/** A runner like the one a (re)started backend runs, on the platform's database. */
function backendRunner(p: Platform): JobRunner {
  return new JobRunner({
    db: createClient(p.url, p.config.serviceRoleKey, { auth: { persistSession: false } }),
    textEmbeddings: new LocalHashEmbeddings(),
    secrets: (n) => p.env[n],
  });
}

platformTest(
  "an upload through the gateway runs to completed by itself while job-status is polled",
  async (p) => {
    const s = llm(p);
    scriptFullRun(s);
    const u = await createUser(p, "auto-run");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 5);
    const up = await upload(p, u.accessToken, await catalogue(), { workspace_id: ws, title: "Catalogue" });
    assert.equal(up.status, 202, JSON.stringify(up.body));
    assert.equal(up.body.success, true);
    assert.deepEqual(Object.keys(up.body.data).sort(), ["job_id", "message", "status"]);
    assert.equal(up.body.data.status, "pending");
    assert.match(up.body.data.message, /stored and queued/);

    const job = await pollUntilFinished(p, u.accessToken, up.body.data.job_id);
    assert.equal(job.status, "completed", JSON.stringify(job));
    assert.equal(job.job_id, up.body.data.job_id);
    assert.equal(job.progress, 100);
    assert.equal(job.workspace_id, ws);
    assert.equal(job.attempts, 1, "run once");
    assert.equal(s.pendingReplies, 0, "every scripted model reply was used");
    assert.equal(await balance(p, u.id), 3, "charged 2 for the upload, not refunded");

    const content = await fetch(`${p.url}/functions/v1/ai-gateway`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${u.accessToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ action: "rag_get_document_content", payload: { document_id: job.document_id } }),
    });
    const doc = (await content.json()).data;
    assert.equal(content.status, 200);
    assert.deepEqual(doc.products.map((x: Json) => x.name).sort(), [
      "Oak Floor Natur",
      "Slate Tile Anthracite",
    ]);
    assert.equal(doc.images.length, 2, "the two material swatches");
    assert.ok(doc.chunks.length >= 4, `${doc.chunks.length} chunks`);
  },
);

platformTest(
  "an upload the pipeline cannot read ends failed with the stage error and is refunded",
  async (p) => {
    const u = await createUser(p, "auto-fail");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 5);
    const up = await upload(p, u.accessToken, new File(["not a pdf at all"], "notes.pdf"), {
      workspace_id: ws,
    });
    assert.equal(up.status, 202, JSON.stringify(up.body));
    const job = await pollUntilFinished(p, u.accessToken, up.body.data.job_id);
    assert.equal(job.status, "failed");
    assert.equal(job.current_stage, "extract");
    assert.match(job.error, /^extract failed after 1 attempt: /);
    assert.equal(job.metadata.refund.credits, 2);
    assert.equal(await balance(p, u.id), 5, "refunded");
  },
);

platformTest(
  "defer_processing keeps the job for resume; a job written through /rest/v1 is never run",
  async (p) => {
    const u = await createUser(p, "auto-defer");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 5);
    const bad = await upload(p, u.accessToken, await catalogue(), {
      workspace_id: ws,
      defer_processing: "yes",
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /defer_processing/);
    const up = await upload(p, u.accessToken, await catalogue(), {
      workspace_id: ws,
      defer_processing: "true",
    });
    assert.equal(up.status, 202, JSON.stringify(up.body));
    assert.match(up.body.data.message, /resume/);
    const jobId = up.body.data.job_id;

    // A user may not queue a job for the runner (it would run unbilled): the column is the system's.
    const rest = (body: unknown, method = "POST", query = "") =>
      fetch(`${p.url}/rest/v1/ai_jobs${query}`, {
        method,
        headers: {
          apikey: p.config.anonKey,
          authorization: `Bearer ${u.accessToken}`,
          "content-type": "application/json",
          prefer: "return=minimal",
        },
        body: JSON.stringify(body),
      });
    const forged = await rest({ job_type: "document_upload", queued_at: new Date().toISOString() });
    assert.equal(forged.status, 403, await forged.text());
    const requeue = await rest({ queued_at: new Date().toISOString() }, "PATCH", `?id=eq.${jobId}`);
    assert.equal(requeue.status, 403, await requeue.text());

    const runner = jobRunnerOf(aiBackendOf(p).app);
    runner.kick();
    await runner.idle();
    const job = await jobStatus(p, u.accessToken, jobId);
    assert.equal(job.status, "pending", "a deferred job waits for resume");
    assert.equal(job.attempts, 0);
    const [row] = await q(p, `select queued_at from public.ai_jobs where id = $1`, [jobId]);
    assert.equal(row.queued_at, null);
  },
);

platformTest(
  "a job accepted while no runner ran is taken up at the next start, by one runner only",
  async (p) => {
    const s = llm(p);
    const u = await createUser(p, "auto-restart");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 5);
    const platformRunner = jobRunnerOf(aiBackendOf(p).app);
    await platformRunner.stop(); // the backend is down: the upload is accepted, nothing runs it
    let jobId: string;
    try {
      const up = await upload(p, u.accessToken, await catalogue(), { workspace_id: ws });
      assert.equal(up.status, 202, JSON.stringify(up.body));
      jobId = up.body.data.job_id;
      await new Promise((r) => setTimeout(r, 300));
      const waiting = await jobStatus(p, u.accessToken, jobId);
      assert.equal(waiting.status, "pending");
      assert.equal(waiting.attempts, 0);

      // Two replicas start at once: each sweeps, one claims the job, it runs once.
      scriptFullRun(s);
      const a = backendRunner(p).start();
      const b = backendRunner(p).start();
      try {
        const job = await pollUntilFinished(p, u.accessToken, jobId);
        assert.equal(job.status, "completed", JSON.stringify(job));
        assert.equal(job.attempts, 1, "one claim");
        assert.equal(s.pendingReplies, 0);
        assert.equal(
          s.captures.requests().filter((r) => r.path.endsWith("/messages")).length,
          7,
          "no second run",
        );
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    } finally {
      platformRunner.start();
    }
  },
);

platformTest(
  "a queued job whose runner died is resumed by the sweep; after three deaths it fails, refunded",
  async (p) => {
    const s = llm(p);
    const u = await createUser(p, "auto-dead");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 10);
    const platformRunner = jobRunnerOf(aiBackendOf(p).app);
    await platformRunner.stop();
    try {
      const first = await upload(p, u.accessToken, await catalogue(), { workspace_id: ws });
      const second = await upload(p, u.accessToken, await catalogue(), { workspace_id: ws });
      assert.equal(first.status, 202);
      assert.equal(second.status, 202);
      assert.equal(await balance(p, u.id), 6);
      // What a runner that died mid-run leaves: processing, its heartbeat 10 minutes old.
      const dead = new Date(Date.now() - 10 * 60_000).toISOString();
      await q(
        p,
        `update public.ai_jobs set status = 'processing', attempts = 1, heartbeat_at = $2 where id = $1`,
        [
          first.body.data.job_id,
          dead,
        ],
      );
      await q(
        p,
        `update public.ai_jobs set status = 'processing', attempts = 3, heartbeat_at = $2 where id = $1`,
        [
          second.body.data.job_id,
          dead,
        ],
      );

      scriptFullRun(s);
      const runner = backendRunner(p).start();
      try {
        const resumed = await pollUntilFinished(p, u.accessToken, first.body.data.job_id);
        assert.equal(resumed.status, "completed", JSON.stringify(resumed));
        assert.equal(resumed.attempts, 2);
        const abandoned = await pollUntilFinished(p, u.accessToken, second.body.data.job_id);
        assert.equal(abandoned.status, "failed");
        assert.equal(
          abandoned.error,
          "The pipeline runner stopped 3 times while running this job; it is not retried again",
        );
        assert.equal(abandoned.metadata.refund.credits, 2);
        assert.equal(s.pendingReplies, 0);
      } finally {
        await runner.stop();
      }
      assert.equal(await balance(p, u.id), 8, "the abandoned job is refunded, the finished one is not");
    } finally {
      platformRunner.start();
    }
  },
);
