/**
 * One billing point (issue 14, "Money"): the AI backend bills every built billable action for a
 * user caller, whichever way it is reached - directly with the user's JWT (the bypass this
 * closes: it used to do the work for free, even at zero balance) or through ai-gateway, which
 * forwards the JWT and its request id and no longer debits itself (so never twice). The service
 * role stays free both ways; a failing call is refunded.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { billableRoutes, EXTRA_BILLED_ROUTES } from "../../services/ai-backend/mod.ts";
import { GATEWAY_ACTIONS, isBillable } from "../../packages/shared/gateway/actions.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { balance, gateway, grant } from "./helpers.ts";

interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** The AI backend directly, as a client with a token would call it. */
async function direct(
  p: Platform,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${p.env.AI_BACKEND_URL}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function moves(p: Platform, userId: string) {
  const r = await p.db.query<{ kind: string; amount: string; reference_id: string | null }>(
    `select kind, amount, reference_id from public.credit_transactions
      where user_id = $1 and kind in ('debit', 'refund') order by created_at, kind`,
    [userId],
  );
  return r.rows.map((x) => ({ ...x, amount: Number(x.amount) }));
}

async function usageLogs(p: Platform, userId: string) {
  const r = await p.db.query<{ action: string; credits_debited: string; metadata: Record<string, unknown> }>(
    `select action, credits_debited, metadata from public.ai_usage_logs where user_id = $1 order by created_at`,
    [userId],
  );
  return r.rows;
}

async function docsTitled(p: Platform, title: string): Promise<number> {
  const r = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_docs where title = $1`,
    [
      title,
    ],
  );
  return r.rows[0].n;
}

platformTest("a direct kb_search with a user JWT is debited exactly once, with a usage log", async (p) => {
  const u = await createUser(p, "direct-search");
  const ws = await createWorkspace(p, u.id);
  await grant(p, u.id, 10);
  const r = await direct(p, u.accessToken, "POST", "/api/kb/search", { workspace_id: ws, query: "tiles" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers.get("x-credits-charged"), "0.5");
  assert.equal(r.headers.get("x-credits-balance"), "9.5");
  assert.equal(await balance(p, u.id), 9.5);
  const requestId = r.headers.get("x-request-id");
  assert.ok(requestId);
  assert.deepEqual(await moves(p, u.id), [{ kind: "debit", amount: -0.5, reference_id: requestId }]);
  const logs = await usageLogs(p, u.id);
  assert.equal(logs.length, 1);
  assert.equal(logs[0].action, "kb_search");
  assert.equal(Number(logs[0].credits_debited), 0.5);
  assert.equal(logs[0].metadata.reference_id, requestId);
});

platformTest("through the gateway the same kb_search is debited once, not twice", async (p) => {
  const u = await createUser(p, "gw-once");
  const ws = await createWorkspace(p, u.id);
  await grant(p, u.id, 10);
  const r = await gateway(p, u.accessToken, "kb_search", { workspace_id: ws, query: "tiles" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true);
  assert.equal(r.headers.get("x-credits-charged"), "0.5");
  assert.equal(r.headers.get("x-credits-balance"), "9.5");
  assert.equal(await balance(p, u.id), 9.5);
  // The usage log's reference is the request id the gateway's client sees.
  const requestId = r.headers.get("x-request-id");
  assert.ok(requestId);
  assert.deepEqual(await moves(p, u.id), [{ kind: "debit", amount: -0.5, reference_id: requestId }]);
  const logs = await usageLogs(p, u.id);
  assert.equal(logs.length, 1);
  assert.equal(logs[0].metadata.reference_id, requestId);
});

platformTest("at zero balance both ways answer 402 and no document is written", async (p) => {
  const u = await createUser(p, "broke");
  const ws = await createWorkspace(p, u.id);
  const doc = { workspace_id: ws, title: "Free lunch", content: "Oak flooring, 20 mm" };

  const viaBackend = await direct(p, u.accessToken, "POST", "/api/kb/documents", doc);
  assert.equal(viaBackend.status, 402, JSON.stringify(viaBackend.body));
  assert.equal(viaBackend.body.code, "insufficient_credits");
  const viaGateway = await gateway(p, u.accessToken, "kb_create_document", doc);
  assert.equal(viaGateway.status, 402);
  assert.equal(viaGateway.body.success, false);
  assert.equal(viaGateway.body.code, "insufficient_credits");

  const search = await direct(p, u.accessToken, "POST", "/api/kb/search", { workspace_id: ws, query: "oak" });
  assert.equal(search.status, 402);

  assert.equal(await docsTitled(p, "Free lunch"), 0, "no work was done");
  assert.deepEqual(await moves(p, u.id), []);
  assert.equal(await balance(p, u.id), 0);
});

platformTest("every billable route refuses a broke user directly (402 before any work)", async (p) => {
  const u = await createUser(p, "broke-all");
  const ws = await createWorkspace(p, u.id);
  const ID = crypto.randomUUID();
  const routes = billableRoutes();
  const actions = routes.map(([action]) => action).sort();
  // The set this closes: every billable action of the map, and upload-async.
  const billable = Object.entries(GATEWAY_ACTIONS).filter(([, spec]) => isBillable(spec)).map(([a]) => a);
  assert.deepEqual(actions, [...billable, "rag_upload_async"].sort());
  assert.ok(actions.length >= 29, `only ${actions.length} billable routes`);
  for (const [action, method, path] of routes) {
    const url = path.replace(/:[a-z_]+/g, ID);
    const r = action === "rag_upload_async"
      ? await (async () => {
        const form = new FormData();
        form.append("file", new File(["%PDF-1.4 x"], "a.pdf", { type: "application/pdf" }));
        form.append("workspace_id", ws);
        form.append("defer_processing", "true"); // billing only: the pipeline's refund is not this test's
        const res = await fetch(`${p.env.AI_BACKEND_URL}${url}`, {
          method,
          headers: { authorization: `Bearer ${u.accessToken}` },
          body: form,
        });
        return { status: res.status, body: await res.json() };
      })()
      : await direct(p, u.accessToken, method, url, {
        workspace_id: ws,
        query: "q",
        title: "t",
        content: "c",
      });
    assert.equal(r.status, 402, `${action}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, "insufficient_credits", action);
  }
  // Backend-only routes billed as an action (POST /api/kb/documents/batch).
  assert.ok(EXTRA_BILLED_ROUTES.some((r) => r.path === "/api/kb/documents/batch"));
  for (const { method, path } of EXTRA_BILLED_ROUTES) {
    const r = await direct(p, u.accessToken, method, path, {
      workspace_id: ws,
      documents: [{ title: "Broke import", content: "c" }],
    });
    assert.equal(r.status, 402, `${path}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, "insufficient_credits", path);
  }
  assert.equal(await docsTitled(p, "Broke import"), 0);
  const jobs = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.ai_jobs where user_id = $1`,
    [
      u.id,
    ],
  );
  assert.equal(jobs.rows[0].n, 0, "no upload job was created");
  assert.deepEqual(await moves(p, u.id), []);
});

platformTest("the service role is free both ways", async (p) => {
  const u = await createUser(p, "svc-free");
  const ws = await createWorkspace(p, u.id);
  const count = async () =>
    (await p.db.query<{ n: number }>(`select count(*)::int as n from public.credit_transactions`)).rows[0].n;
  const before = await count();
  const key = p.config.serviceRoleKey;
  const d = await direct(p, key, "POST", "/api/kb/search", { workspace_id: ws, query: "tiles" });
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.headers.get("x-credits-charged"), null);
  const doc = await direct(p, key, "POST", "/api/kb/documents", {
    workspace_id: ws,
    title: "Svc",
    content: "x",
  });
  assert.equal(doc.status, 200, JSON.stringify(doc.body));
  const g = await gateway(p, key, "kb_search", { workspace_id: ws, query: "tiles" });
  assert.equal(g.status, 200, JSON.stringify(g.body));
  assert.equal(g.headers.get("x-credits-charged"), null);
  assert.equal(await count(), before);
});

platformTest("a failing call is refunded both ways, with the billing result in the error", async (p) => {
  const u = await createUser(p, "refund");
  await createWorkspace(p, u.id);
  await grant(p, u.id, 5);
  const foreign = { workspace_id: crypto.randomUUID(), query: "x" };

  const d = await direct(p, u.accessToken, "POST", "/api/kb/search", foreign);
  assert.equal(d.status, 404);
  assert.deepEqual(d.body.billing, { refunded: 0.5 });
  assert.equal(d.headers.get("x-credits-charged"), "0.5");
  assert.equal(d.headers.get("x-credits-refunded"), "0.5");
  assert.equal(d.headers.get("x-credits-balance"), "5");

  const g = await gateway(p, u.accessToken, "kb_search", foreign);
  assert.equal(g.status, 404);
  assert.deepEqual(g.body.billing, { refunded: 0.5 });
  assert.equal(g.headers.get("x-credits-refunded"), "0.5");

  // A body the route refuses (400) is refunded too.
  const bad = await direct(p, u.accessToken, "POST", "/api/kb/documents", { title: "no workspace" });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.billing, { refunded: 2 });

  const rows = await moves(p, u.id);
  assert.deepEqual(rows.map((r) => r.kind), ["debit", "refund", "debit", "refund", "debit", "refund"]);
  assert.equal(rows.reduce((s, r) => s + r.amount, 0), 0);
  assert.equal(await balance(p, u.id), 5);
});

platformTest("a direct upload-async is debited once and its job linked to the debit", async (p) => {
  const u = await createUser(p, "direct-upload");
  const ws = await createWorkspace(p, u.id);
  await grant(p, u.id, 5);
  const form = new FormData();
  form.append("file", new File(["%PDF-1.4 catalogue"], "c.pdf", { type: "application/pdf" }));
  form.append("workspace_id", ws);
  form.append("defer_processing", "true"); // billing only: the pipeline's refund is not this test's
  const res = await fetch(`${p.env.AI_BACKEND_URL}/api/rag/documents/upload-async`, {
    method: "POST",
    headers: { authorization: `Bearer ${u.accessToken}` },
    body: form,
  });
  const body = await res.json();
  assert.equal(res.status, 202, JSON.stringify(body));
  assert.equal(res.headers.get("x-credits-charged"), "2");
  assert.equal(await balance(p, u.id), 3);
  const job = await p.db.query<{ credit_transaction_id: string | null }>(
    `select credit_transaction_id from public.ai_jobs where id = $1`,
    [body.job_id],
  );
  const debit = await p.db.query<{ id: string }>(
    `select id from public.credit_transactions where user_id = $1 and kind = 'debit'`,
    [u.id],
  );
  assert.equal(debit.rows.length, 1);
  assert.equal(job.rows[0].credit_transaction_id, debit.rows[0].id);
});
