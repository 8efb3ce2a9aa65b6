/**
 * The PDF pipeline and the catalog description writer on the model layer (packages/shared/llm):
 *
 * - with NOTHING scripted, the sandbox's model answers the stages' forced tool calls and a PDF
 *   uploaded through /api/rag/documents/upload completes every stage with chunks and images;
 * - a stage whose model is unreachable (the provider fails twice: the layer's retry too) or
 *   answers malformed twice fails the job with the layer's code (metadata.error_code), is not
 *   retried by the stage loop, leaves no row of that stage behind, and a billed job is refunded
 *   exactly once (also when it is resumed and fails again);
 * - the description writer whose model answers malformed twice fails at `generate` with
 *   model_bad_output, its charge refunded once and no description saved.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { balance, grant } from "../helpers/team.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { sampleCatalogue } from "../helpers/catalogue_pdf.ts";
import { discoveryCall, documentCounts, type Json, llm, post, q } from "../pipeline/helpers.ts";
import { agentTeam, createAgent, runAgent, runRow, seedProduct } from "../agents/helpers.ts";

/** A deferred (not auto-run) upload-async job through the gateway: billed 2 credits, linked. */
async function billedJob(p: Platform, token: string, workspaceId: string): Promise<string> {
  const form = new FormData();
  form.append(
    "file",
    new File([await sampleCatalogue() as Uint8Array<ArrayBuffer>], "c.pdf", { type: "application/pdf" }),
  );
  form.append("workspace_id", workspaceId);
  form.append("defer_processing", "true");
  const res = await fetch(`${p.url}/functions/v1/ai-gateway`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const body = await res.json();
  assert.equal(res.status, 202, JSON.stringify(body));
  return body.data.job_id;
}

const refundsOf = (p: Platform, jobId: string) =>
  q(
    p,
    `select r.amount::float as amount from public.credit_transactions r
       join public.ai_jobs j on r.refund_of = j.credit_transaction_id where j.id = $1`,
    [jobId],
  );

const modelCalls = (p: Platform, jobId: string) =>
  q(
    p,
    `select stage, model, ok, error from public.ai_job_model_calls where job_id = $1 order by created_at`,
    [
      jobId,
    ],
  );

platformTest("unscripted: a PDF upload completes every stage on the sandbox model", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "unscripted");
  await grant(p, u.id, 5);
  const ws = await createWorkspace(p, u.id);
  const res = await post(p, u.accessToken, "/api/rag/documents/upload", {
    pdf_base64: encodeBase64(await sampleCatalogue()),
    filename: "catalogue.pdf",
    workspace_id: ws,
    // Every classified image goes on, whatever category the sandbox gives it.
    focused_extraction: false,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual([res.body.status, res.body.progress], ["completed", 100]);
  assert.equal(s.pendingReplies, 0, "nothing was scripted");
  const counts = await documentCounts(p, res.body.document_id);
  assert.ok(counts.chunks > 0, JSON.stringify(counts));
  assert.equal(counts.images, 3, JSON.stringify(counts));
  // Each call forced the stage's tool and was tracked as the job's model call.
  const forced = s.captures.requests().filter((r) => r.path.endsWith("/messages"))
    .map((r) => (r.body as Json).tool_choice?.name);
  assert.equal(forced[0], "report_products");
  assert.ok(forced.filter((n) => n === "classify_image").length >= 3);
  const calls = await modelCalls(p, res.body.job_id);
  assert.equal(calls.length, forced.length);
  assert.ok(calls.every((c) => c.ok), JSON.stringify(calls));
});

platformTest("an unreachable model fails the stage with model_unavailable, refunded once", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "unreachable");
  await grant(p, u.id, 5);
  const ws = await createWorkspace(p, u.id);
  const jobId = await billedJob(p, u.accessToken, ws);
  assert.equal(await balance(p, u.id), 3);

  // Discovery: the provider answers 500 twice (the SDK's one retry fails too).
  s.failNext(500, { times: 2 });
  const run = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(run.status, 422, JSON.stringify(run.body));
  const job = run.body.details;
  assert.deepEqual([job.status, job.current_stage, job.metadata.error_code], [
    "failed",
    "extract",
    "model_unavailable",
  ]);
  assert.match(
    job.error,
    /^extract failed after 1 attempt: Product discovery: the model provider answered HTTP 500/,
  );
  assert.equal(job.metadata.refund.credits, 2);
  assert.equal(s.pendingFaults, 0);
  assert.equal(s.captures.requests().length, 2, "no stage retry after the layer's");
  // Nothing half-written: no document, no products, no checkpoint.
  assert.deepEqual(
    await q(
      p,
      `select (select count(*)::int from public.pipeline_documents where job_id = $1) as documents,
              (select count(*)::int from public.ai_job_checkpoints where job_id = $1) as checkpoints`,
      [jobId],
    ),
    [{ documents: 0, checkpoints: 0 }],
  );
  const calls = await modelCalls(p, jobId);
  assert.deepEqual(calls.map((c) => [c.stage, c.model, c.ok]), [["extract", "claude-sonnet-4-6", false]]);
  assert.match(calls[0].error, /HTTP 500/);
  assert.equal(await balance(p, u.id), 5);

  // It fails again on resume: still one refund.
  s.failNext(500, { times: 2 });
  const again = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(again.status, 422);
  assert.equal(again.body.details.metadata.error_code, "model_unavailable");
  assert.deepEqual(await refundsOf(p, jobId), [{ amount: 2 }]);
  assert.equal(await balance(p, u.id), 5);

  // And a later run that succeeds clears the failure's code.
  const done = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.status, "completed");
  assert.equal(done.body.metadata.error_code, undefined);
});

platformTest("a malformed answer twice fails the stage with model_bad_output, refunded once", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "malformed");
  await grant(p, u.id, 5);
  const ws = await createWorkspace(p, u.id);
  const jobId = await billedJob(p, u.accessToken, ws);

  // Discovery answers; the first image's classification breaks the tool's schema twice.
  s.reply(discoveryCall(), { malformed: true }, { malformed: true });
  const run = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(run.status, 422, JSON.stringify(run.body));
  const job = run.body.details;
  assert.deepEqual([job.status, job.current_stage, job.metadata.error_code], [
    "failed",
    "classify-images",
    "model_bad_output",
  ]);
  assert.match(
    job.error,
    /^classify-images failed after 1 attempt: Image classification of page-2-image-1\.png/,
  );
  assert.equal(s.pendingReplies, 0);
  const sent = s.captures.requests().filter((r) => r.path.endsWith("/messages")).map((r) => r.body as Json);
  assert.equal(sent.length, 3, "discovery, then the classification and its one retry");
  // The retry quotes the problem back as the tool call's error.
  const retry = sent[2].messages.at(-1).content[0];
  assert.deepEqual([retry.type, retry.is_error], ["tool_result", true]);
  const calls = await modelCalls(p, jobId);
  assert.deepEqual(calls.map((c) => [c.stage, c.ok]), [
    ["extract", true],
    ["classify-images", false],
    ["classify-images", false],
  ]);
  // Nothing of classify-images or later: only extract's checkpoint, no images stored.
  const cps = await q(p, `select stage from public.ai_job_checkpoints where job_id = $1`, [jobId]);
  assert.deepEqual(cps.map((c) => c.stage), ["extract"]);
  assert.deepEqual(await documentCounts(p, job.document_id), {
    products: 2,
    images: 0,
    chunks: 0,
    relationships: 0,
  });
  assert.deepEqual(await refundsOf(p, jobId), [{ amount: 2 }]);
  assert.equal(await balance(p, u.id), 5);
});

platformTest("description writer: a malformed answer twice fails at generate, refunded once", async (p) => {
  const t = await agentTeam(p, "writer-bad", 0);
  await grant(p, t.member.id, 10);
  const s = llm(p);
  const a = await seedProduct(p, t.ws, { name: "Oak plank", sku: "OAK-1" });
  const b = await seedProduct(p, t.ws, { name: "Slate tile" });
  const agent = await createAgent(t.admin, {
    workspace_id: t.ws,
    agent_type: "catalog_description_writer",
    name: "Writer",
  });
  // The first product is described; the second product's answer breaks the schema twice.
  s.reply(
    { toolUse: [{ name: "write_description", input: { description: "A warm oak plank." } }] },
    { malformed: true },
    { malformed: true },
  );
  const failed = await runAgent(p, t.member.accessToken, { agent_id: agent.id });
  assert.equal(failed.status, 200, JSON.stringify(failed.body));
  assert.deepEqual(
    [failed.body.success, failed.body.status, failed.body.failed_step, failed.body.error_code],
    [false, "failed", "generate", "model_bad_output"],
  );
  assert.match(
    failed.body.error as string,
    /Description of Slate tile: the model's answer was unusable 2 times/,
  );
  assert.equal(s.pendingReplies, 0);
  const run = await runRow(p, failed.body.run_id as string);
  assert.deepEqual([Number(run.credits_charged), run.credits_refunded], [4, true]);
  const ledger = await q(
    p,
    `select kind, amount::float as amount from public.credit_transactions where reference_id = $1
      order by created_at, kind`,
    [run.id],
  );
  assert.deepEqual(ledger.map((x) => [x.kind, x.amount]), [["debit", -4], ["refund", 4]]);
  assert.equal(await balance(p, t.member.id), 10);
  const still = await q(
    p,
    `select id from public.products where id = any($1) and coalesce(description, '') = ''`,
    [[a, b]],
  );
  assert.equal(still.length, 2, "no description saved");
});
