/**
 * pdf-batch-process: 202 with the spec's body; a batch of 20 uploaded documents with
 * maxConcurrent 3 never has more than 3 in flight and finishes every one; cancelling stops the
 * queued documents while the running one finishes; limits and ownership are enforced and the
 * completion webhook is never sent to a private address.
 */
import assert from "node:assert/strict";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import type { Platform } from "../../stack/platform.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { grant } from "../ai/helpers.ts";
import { makePdf } from "../helpers/pdf.ts";
import { discoveryCall, type Json, llm, q } from "./helpers.ts";

/** A text-only catalogue page: discovery finds nothing, so one model call per document. */
const NOTHING_FOUND = discoveryCall({ products: [], index_pages: [] });

async function uploadDocs(p: Platform, token: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const form = new FormData();
    form.append("file", new File([makePdf([[`Price sheet ${i}`, "Grout 5 kg bag"]])], `sheet-${i}.pdf`));
    form.append("defer_processing", "true"); // the batch runs them, with its options
    const res = await fetch(`${aiBackendOf(p).url}/api/rag/documents/upload-async`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    assert.equal(res.status, 202);
    ids.push((await res.json()).job_id);
  }
  return ids;
}

async function batch(p: Platform, token: string, method: string, query = "", body?: unknown) {
  const res = await fetch(`${p.url}/functions/v1/pdf-batch-process${query}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as Json };
}

platformTest("a batch of 20 with maxConcurrent 3 never runs more than 3 at once", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "batch-20");
  await grant(p, u.id, 60);
  const docs = await uploadDocs(p, u.accessToken, 20);
  s.reply(...Array(20).fill(NOTHING_FOUND));
  const res = await batch(p, u.accessToken, "POST", "", {
    documents: docs.map((documentId, i) => ({
      documentId,
      extractionType: "markdown",
      priority: i === 19 ? "high" : "normal",
    })),
    options: { maxConcurrent: 3, chunkSize: 400, overlapSize: 40 },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.equal(res.body.success, true);
  const d = res.body.data;
  assert.equal(d.status, "queued");
  assert.equal(d.totalDocuments, 20);
  assert.equal(d.processedDocuments, 0);
  assert.equal(d.failedDocuments, 0);
  assert.ok(Date.parse(d.estimatedCompletionTime) > Date.now());
  assert.deepEqual(d.results[0], { documentId: docs[0], status: "queued" });

  const done = await batch(p, u.accessToken, "GET", `?batchId=${d.batchId}&wait=true`);
  assert.equal(done.status, 200);
  assert.equal(
    done.body.data.status,
    "completed",
    JSON.stringify(done.body.data.results.filter((r: Json) => r.error)),
  );
  assert.equal(done.body.data.processedDocuments, 20);
  assert.ok(done.body.data.results.every((r: Json) => r.status === "completed"));
  assert.ok(done.body.data.maxInFlight <= 3 && done.body.data.maxInFlight >= 1);
  assert.equal(s.pendingReplies, 0);
  // Independently of the counter: the items' own start/finish times never overlap more than 3.
  const [overlap] = await q(
    p,
    `select max((select count(*) from public.pdf_batch_items o
                  where o.batch_id = i.batch_id and o.started_at <= i.started_at and o.completed_at > i.started_at))::int
            as most
       from public.pdf_batch_items i where i.batch_id = $1`,
    [d.batchId],
  );
  assert.ok(overlap.most <= 3, `${overlap.most} in flight`);
  // The high-priority document was among the first three claimed.
  const order = await q(
    p,
    `select document_id from public.pdf_batch_items where batch_id = $1 order by started_at`,
    [
      d.batchId,
    ],
  );
  assert.ok(order.slice(0, 3).some((r) => r.document_id === docs[19]));
  const jobs = await q(p, `select status, metadata from public.ai_jobs where id = any($1::uuid[])`, [docs]);
  assert.ok(jobs.every((j) => j.status === "completed"));
  assert.equal(jobs[0].metadata.pipeline_options.chunk_size, 400);
});

platformTest("cancelling a batch stops its queued documents; the running one finishes", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "batch-cancel");
  await grant(p, u.id, 20);
  const docs = await uploadDocs(p, u.accessToken, 5);
  let cancelled: Json = null;
  s.reply({
    ...NOTHING_FOUND,
    beforeReply: async () => {
      const [b] = await q(p, `select id from public.pdf_batches where user_id = $1`, [u.id]);
      cancelled = await batch(p, u.accessToken, "DELETE", `?batchId=${b.id}`);
    },
  });
  const res = await batch(p, u.accessToken, "POST", "", {
    documents: docs.map((documentId) => ({ documentId })),
    options: { maxConcurrent: 1 },
  });
  assert.equal(res.status, 202);
  const done = await batch(p, u.accessToken, "GET", `?batchId=${res.body.data.batchId}&wait=true`);
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.data.status, "cancelled");
  assert.equal(done.body.data.status, "cancelled");
  assert.deepEqual(done.body.data.results.map((r: Json) => r.status), [
    "completed",
    "cancelled",
    "cancelled",
    "cancelled",
    "cancelled",
  ]);
  assert.equal(done.body.data.processedDocuments, 1);
  assert.equal(s.pendingReplies, 0);
  const pending = await q(
    p,
    `select count(*)::int as n from public.ai_jobs where id = any($1::uuid[]) and status = 'pending'`,
    [
      docs,
    ],
  );
  assert.equal(pending[0].n, 4, "cancelled documents were never processed");
  const again = await batch(p, u.accessToken, "DELETE", `?batchId=${res.body.data.batchId}`);
  assert.equal(again.status, 409);
});

platformTest("batch limits, ownership and private webhook addresses are refused", async (p) => {
  const u = await createUser(p, "batch-limits");
  await grant(p, u.id, 10);
  const [doc] = await uploadDocs(p, u.accessToken, 1);
  const post = (body: unknown) => batch(p, u.accessToken, "POST", "", body);
  const many = Array.from({ length: 101 }, () => ({ documentId: crypto.randomUUID() }));
  assert.equal((await post({ documents: many })).status, 400);
  assert.equal(
    (await post({ documents: [{ documentId: doc }], options: { maxConcurrent: 11 } })).status,
    400,
  );
  assert.equal((await post({ documents: [{ documentId: doc }], options: { chunkSize: 99 } })).status, 400);
  assert.equal((await post({ documents: [{ documentId: doc }], options: { chunkSize: 10001 } })).status, 400);
  const hook = await post({
    documents: [{ documentId: doc }],
    options: { notifyOnComplete: true, webhookUrl: "http://127.0.0.1:9/hook" },
  });
  assert.equal(hook.status, 400);
  assert.match(hook.body.error, /webhookUrl/);
  const other = await createUser(p, "batch-limits-other");
  const notYours = await batch(p, other.accessToken, "POST", "", { documents: [{ documentId: doc }] });
  assert.equal(notYours.status, 404);
  assert.equal(
    (await q(p, `select 1 from public.pdf_batches where user_id = any($1::uuid[])`, [[u.id, other.id]]))
      .length,
    0,
  );
});

platformTest("a workspaceId the caller is not a member of is refused and nothing is written", async (p) => {
  const u = await createUser(p, "batch-ws");
  await grant(p, u.id, 10);
  const [doc] = await uploadDocs(p, u.accessToken, 1);
  const outsider = await createUser(p, "batch-ws-outsider");
  const viewer = await createUser(p, "batch-ws-viewer");
  await grant(p, viewer.id, 10);
  const theirs = await createWorkspace(p, outsider.id, { [viewer.id]: "viewer" }, "Not yours");
  const mine = await createWorkspace(p, u.id, {}, "Mine");
  const post = (body: unknown) => batch(p, u.accessToken, "POST", "", body);

  // Someone else's workspace: 404 like every other function, no batch stored.
  const refused = await post({ documents: [{ documentId: doc }], workspaceId: theirs });
  assert.equal(refused.status, 404, JSON.stringify(refused.body));
  assert.equal(refused.body.error, "Workspace not found");
  const nowhere = await post({ documents: [{ documentId: doc }], workspaceId: crypto.randomUUID() });
  assert.equal(nowhere.status, 404);
  assert.equal((await q(p, `select 1 from public.pdf_batches where user_id = $1`, [u.id])).length, 0);
  assert.equal((await q(p, `select 1 from public.pdf_batches where workspace_id = $1`, [theirs])).length, 0);

  // A viewer may read the workspace but not process documents for it.
  const [viewerDoc] = await uploadDocs(p, viewer.accessToken, 1);
  const asViewer = await batch(p, viewer.accessToken, "POST", "", {
    documents: [{ documentId: viewerDoc }],
    workspaceId: theirs,
  });
  assert.equal(asViewer.status, 403, JSON.stringify(asViewer.body));
  assert.equal((await q(p, `select 1 from public.pdf_batches where workspace_id = $1`, [theirs])).length, 0);

  // The caller's own workspace is stored.
  llm(p).reset();
  llm(p).reply(NOTHING_FOUND);
  const ok = await post({ documents: [{ documentId: doc }], workspaceId: mine });
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  const rows = await q(p, `select workspace_id from public.pdf_batches where id = $1`, [
    ok.body.data.batchId,
  ]);
  assert.equal(rows[0].workspace_id, mine);
  await batch(p, u.accessToken, "GET", `?batchId=${ok.body.data.batchId}&wait=true`);
});

platformTest("pdf-batch-process refuses unknown body keys, naming them", async (p) => {
  const u = await createUser(p, "batch-keys");
  const doc = crypto.randomUUID();
  const cases: [unknown, string][] = [
    [{ documents: [{ documentId: doc }], workspace_id: crypto.randomUUID() }, 'unknown field "workspace_id"'],
    [{ documents: [{ documentId: doc, extraction: "all" }] }, 'unknown field "documents.0.extraction"'],
    [
      { documents: [{ documentId: doc }], options: { chunk_size: 512 } },
      'unknown field "options.chunk_size"',
    ],
  ];
  for (const [body, message] of cases) {
    const res = await batch(p, u.accessToken, "POST", "", body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, "validation_failed");
    assert.equal(res.body.error, `Invalid request body: ${message}`);
  }
  assert.equal((await q(p, `select 1 from public.pdf_batches where user_id = $1`, [u.id])).length, 0);
});
