/**
 * Async uploads through the gateway: multipart/form-data goes to upload-async, is billed as a
 * document upload, stores the file and a pending job as the caller, and answers 202
 * {job_id, status: pending, message}; job-status reads it back; other users cannot.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { balance, grant, makePdf } from "./helpers.ts";

function upload(url: string, token: string, form: FormData) {
  return fetch(`${url}/functions/v1/ai-gateway`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
}

platformTest("a multipart upload answers 202 with a pending job that job-status returns", async (p) => {
  const u = await createUser(p, "upload");
  const ws = await createWorkspace(p, u.id);
  await grant(p, u.id, 5);
  const form = new FormData();
  form.append(
    "file",
    new File([makePdf([["Catalogue 2026"]])], "catalogue 2026.pdf", { type: "application/pdf" }),
  );
  form.append("workspace_id", ws);
  form.append("title", "Catalogue");
  // Kept pending for this test (the runner would start it at once: upload_async_runs_test.ts).
  form.append("defer_processing", "true");
  const res = await upload(p.url, u.accessToken, form);
  const body = await res.json();
  assert.equal(res.status, 202, JSON.stringify(body));
  assert.equal(body.success, true);
  assert.deepEqual(Object.keys(body.data).sort(), ["job_id", "message", "status"]);
  assert.equal(body.data.status, "pending");
  assert.match(body.data.message, /stored and queued/);
  assert.equal(res.headers.get("x-credits-charged"), "2");
  assert.equal(await balance(p, u.id), 3);

  const job = (await p.db.query<Record<string, unknown>>(`select * from public.ai_jobs where id = $1`, [
    body.data.job_id,
  ])).rows[0];
  assert.equal(job.user_id, u.id);
  assert.equal(job.workspace_id, ws);
  assert.equal(job.status, "pending");
  assert.equal(job.filename, "catalogue 2026.pdf");
  assert.ok(job.credit_transaction_id, "the debit is recorded for a later refund");
  const stored = await p.db.query(
    `select 1 from storage.objects where bucket_id = 'ai-documents' and name = $1`,
    [job.storage_path],
  );
  assert.equal(stored.rows.length, 1);

  const status = await fetch(`${p.url}/functions/v1/ai-gateway/job-status/${body.data.job_id}`, {
    headers: { authorization: `Bearer ${u.accessToken}` },
  });
  const s = await status.json();
  assert.equal(status.status, 200);
  assert.equal(s.data.job_id, body.data.job_id);
  assert.equal(s.data.status, "pending");

  const other = await createUser(p, "upload-other");
  const denied = await fetch(`${p.url}/functions/v1/ai-gateway/job-status/${body.data.job_id}`, {
    headers: { authorization: `Bearer ${other.accessToken}` },
  });
  assert.equal(denied.status, 404);
  await denied.body?.cancel();
});

platformTest(
  "a bad upload is refused and refunded; a short balance is 402 before storing anything",
  async (p) => {
    const u = await createUser(p, "upload-bad");
    await grant(p, u.id, 2);
    const noFile = new FormData();
    noFile.append("title", "nothing");
    const r = await upload(p.url, u.accessToken, noFile);
    const body = await r.json();
    assert.equal(r.status, 400);
    assert.match(body.error, /file/);
    assert.equal(await balance(p, u.id), 2, "refunded");

    const poor = await createUser(p, "upload-poor");
    const form = new FormData();
    form.append("file", new File(["x"], "a.pdf"));
    const refused = await upload(p.url, poor.accessToken, form);
    assert.equal(refused.status, 402);
    await refused.body?.cancel();
    const jobs = await p.db.query(`select 1 from public.ai_jobs where user_id = $1`, [poor.id]);
    assert.equal(jobs.rows.length, 0);
  },
);
