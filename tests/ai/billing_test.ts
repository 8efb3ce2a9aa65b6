/**
 * Gateway billing (done by the AI backend, the one billing point, and passed through by the
 * gateway): debit before the work, 402 with no work on a short balance, the service-role key
 * never billed, refunds on any non-2xx, nothing charged when the backend is unreachable,
 * per-image batch pricing, and 50 concurrent calls that never overdraw. A spy backend (the
 * backend's billing middleware in front of a canned answer) replaces the real one, by pointing
 * the platform's AI_BACKEND_URL at it, to count the calls that do work.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { COST_KEYS, HOW_TO_GET_CREDITS } from "../../packages/shared/credits/ledger.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { sqlAs, sqlState } from "../helpers/sql.ts";
import { balance, billingBackendSpy, gateway, grant } from "./helpers.ts";

/** A stand-in backend that bills as the real one and then answers `status` (helpers.ts). */
function spy(p: Platform, status: number) {
  return billingBackendSpy(p, (c) =>
    c.json(
      status < 300 ? { ok: true } : { error: "model server exploded", code: "boom" },
      status as 200,
    ));
}

async function ledger(p: Platform, userId: string) {
  const r = await p.db.query<{ kind: string; amount: string; refund_of: string | null }>(
    `select kind, amount, refund_of from public.credit_transactions where user_id = $1 order by created_at, kind`,
    [userId],
  );
  return r.rows.map((x) => ({ ...x, amount: Number(x.amount) }));
}

platformTest(
  "a user with 1 credit calling a 2-credit action gets 402 and the backend sees no call",
  async (p) => {
    const u = await createUser(p, "bill-short");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 1);
    const s = spy(p, 200);
    try {
      const r = await gateway(p, u.accessToken, "kb_create_document", {
        workspace_id: ws,
        title: "T",
        content: "text",
      });
      assert.equal(r.status, 402);
      assert.equal(r.body.code, "insufficient_credits");
      // The answer names the price, the balance and the next step (issue 36).
      assert.deepEqual(r.body.details, {
        action: "kb_create_document",
        price: 2,
        balance: 1,
        cost_key: "document_processing",
      });
      assert.equal(
        r.body.error,
        "Insufficient credits for kb_create_document: kb_create_document costs 2 credits and your " +
          `balance is 1. ${HOW_TO_GET_CREDITS}.`,
      );
      assert.deepEqual(s.calls, []);
    } finally {
      await s.stop();
    }
    assert.equal(await balance(p, u.id), 1);
    assert.deepEqual((await ledger(p, u.id)).filter((t) => t.kind === "debit"), []);
  },
);

platformTest("a successful billable call debits its price with a ledger row and a usage log", async (p) => {
  const u = await createUser(p, "bill-ok");
  const ws = await createWorkspace(p, u.id);
  await grant(p, u.id, 10);
  const r = await gateway(p, u.accessToken, "kb_search", { workspace_id: ws, query: "anything" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers.get("x-credits-charged"), "0.5");
  assert.equal(r.headers.get("x-credits-balance"), "9.5");
  assert.equal(await balance(p, u.id), 9.5);
  const logs = await p.db.query<
    { action: string; credits_debited: string; workspace_id: string; metadata: { cost_key: string } }
  >(
    `select l.action, l.credits_debited, l.workspace_id, l.metadata from public.ai_usage_logs l
       join public.credit_transactions t on t.id = l.credit_transaction_id where l.user_id = $1`,
    [u.id],
  );
  assert.equal(logs.rows.length, 1);
  assert.equal(logs.rows[0].action, "kb_search");
  assert.equal(Number(logs.rows[0].credits_debited), 0.5);
  assert.equal(logs.rows[0].workspace_id, ws);
  assert.equal(logs.rows[0].metadata.cost_key, "rag_text_search");
});

platformTest("the service-role key is never debited", async (p) => {
  const u = await createUser(p, "bill-svc");
  const ws = await createWorkspace(p, u.id);
  const before = await p.db.query<{ n: number }>(`select count(*)::int as n from public.credit_transactions`);
  const r = await gateway(p, p.config.serviceRoleKey, "kb_search", { workspace_id: ws, query: "tiles" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers.get("x-credits-charged"), null);
  const after = await p.db.query<{ n: number }>(`select count(*)::int as n from public.credit_transactions`);
  assert.equal(after.rows[0].n, before.rows[0].n);
});

platformTest(
  "a backend failure (5xx, unreachable, 4xx) is refunded and keeps its status and message",
  async (p) => {
    const u = await createUser(p, "bill-fail");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 5);

    const s = spy(p, 500);
    let r;
    try {
      r = await gateway(p, u.accessToken, "kb_search", { workspace_id: ws, query: "x" });
    } finally {
      await s.stop();
    }
    assert.equal(r.status, 500);
    assert.equal(r.body.error, "model server exploded");
    assert.equal(r.body.code, "boom");
    assert.deepEqual(r.body.billing, { refunded: 0.5 });
    assert.equal(r.headers.get("x-credits-refunded"), "0.5");
    assert.equal(await balance(p, u.id), 5);

    const dead = Deno.listen({ port: 0, hostname: "127.0.0.1" });
    const deadUrl = `http://127.0.0.1:${(dead.addr as Deno.NetAddr).port}`;
    dead.close();
    const real = p.env.AI_BACKEND_URL;
    p.env.AI_BACKEND_URL = deadUrl;
    try {
      r = await gateway(p, u.accessToken, "kb_search", { workspace_id: ws, query: "x" });
    } finally {
      p.env.AI_BACKEND_URL = real;
    }
    assert.equal(r.status, 502);
    assert.equal(r.body.code, "backend_unreachable");
    assert.equal(r.headers.get("x-credits-charged"), null, "an unreachable backend charges nothing");
    assert.equal(await balance(p, u.id), 5);

    // A 4xx from the real backend (a workspace the user does not belong to) is refunded too.
    r = await gateway(p, u.accessToken, "kb_search", { workspace_id: crypto.randomUUID(), query: "x" });
    assert.equal(r.status, 404);
    assert.equal(await balance(p, u.id), 5);

    const rows = await ledger(p, u.id);
    const debits = rows.filter((t) => t.kind === "debit");
    const refunds = rows.filter((t) => t.kind === "refund");
    // The backend bills, so the unreachable call was never debited: 2 debits, both refunded.
    assert.equal(debits.length, 2);
    assert.equal(refunds.length, 2);
    assert.equal(rows.reduce((s, t) => s + t.amount, 0), 5);
    const marked = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.ai_usage_logs where user_id = $1 and (metadata->>'refunded')::boolean`,
      [u.id],
    );
    assert.equal(marked.rows[0].n, 2);
  },
);

platformTest("a batch of images is billed per image; the visual rag_search costs 1", async (p) => {
  const u = await createUser(p, "bill-batch");
  await grant(p, u.id, 10);
  const s = spy(p, 200);
  try {
    const batch = await gateway(p, u.accessToken, "images_analyze_batch", { images: ["a", "b", "c"] });
    assert.equal(batch.status, 200);
    assert.equal(batch.headers.get("x-credits-charged"), "3");
    const visual = await gateway(p, u.accessToken, "rag_search", { query: "oak", strategy: "visual" });
    assert.equal(visual.headers.get("x-credits-charged"), "1");
    const clip = await gateway(p, u.accessToken, "embeddings_clip_text", { text: "oak" });
    assert.equal(clip.headers.get("x-credits-charged"), "0.25");
  } finally {
    await s.stop();
  }
  assert.equal(await balance(p, u.id), 5.75);
});

platformTest("50 concurrent billable calls never overdraw and the ledger matches the balance", async (p) => {
  const u = await createUser(p, "bill-conc");
  await grant(p, u.id, 10);
  const s = spy(p, 200);
  let statuses: number[];
  try {
    statuses = (await Promise.all(
      Array.from({ length: 50 }, () => gateway(p, u.accessToken, "rag_search", { query: "tiles" })),
    )).map((r) => r.status);
  } finally {
    await s.stop();
  }
  assert.equal(statuses.filter((x) => x === 200).length, 20, "10 credits pay for exactly 20 calls of 0.5");
  assert.equal(statuses.filter((x) => x === 402).length, 30);
  assert.equal(s.calls.length, 20, "refused calls never reach the backend");
  assert.equal(await balance(p, u.id), 0);
  const rows = await ledger(p, u.id);
  assert.equal(rows.reduce((sum, t) => sum + t.amount, 0), await balance(p, u.id));
  const logs = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.ai_usage_logs where user_id = $1`,
    [u.id],
  );
  assert.equal(logs.rows[0].n, 20);
});

platformTest("prices live in one table, readable by users, billed only by the service role", async (p) => {
  const u = await createUser(p, "bill-sql");
  const prices = await sqlAs<{ cost_key: string; credits: string }>(
    p,
    { role: "authenticated", userId: u.id },
    `select cost_key, credits from public.gateway_action_costs order by cost_key`,
  );
  assert.deepEqual(Object.fromEntries(prices.map((r) => [r.cost_key, Number(r.credits)])), {
    clip_embedding: 0.25,
    default: 1,
    document_processing: 2,
    image_analysis: 1,
    rag_text_search: 0.5,
    scraping_llm: 1,
    visual_search: 1,
  });
  assert.deepEqual(prices.map((r) => r.cost_key).sort(), [...COST_KEYS].sort());
  for (
    const sql of [
      `select public.bill_gateway_action($1, 'kb_search', 'rag_text_search')`,
      `select public.refund_gateway_action($1, 'x')`,
    ]
  ) {
    assert.equal(
      await sqlState(() => sqlAs(p, { role: "authenticated", userId: u.id }, sql, [u.id])),
      "42501",
    );
  }
  // Only platform admins may change a price: for anyone else the update matches no row.
  const changed = await sqlAs(
    p,
    { role: "authenticated", userId: u.id },
    `update public.gateway_action_costs set credits = 0.01 returning cost_key`,
  );
  assert.deepEqual(changed, []);
  assert.equal(
    await sqlState(() =>
      sqlAs(p, { role: "service_role" }, `select public.bill_gateway_action($1, 'x', 'nope')`, [u.id])
    ),
    "22023",
  );
});
