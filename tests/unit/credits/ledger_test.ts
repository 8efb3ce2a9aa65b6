// The credit ledger against a fake service client: each debit request picks its SQL function
// family, a short balance is the domain's insufficient_credits (402) with the caller's message
// and details, and refund/settle/runBilled close a charge through the family's own function.
import assert from "node:assert/strict";
import type { SupabaseClient } from "@supabase/supabase-js";
import { DOMAIN_ERROR_STATUS, DomainError } from "@shared/errors.ts";
import { debit, type DebitRequest, refund, runBilled, settle } from "@shared/credits/ledger.ts";

type Answer = { data?: unknown; error?: { message: string; code?: string } | null; status?: number };

/** rpc answers by function; `from("user_credits")` reads a balance of 0.5 (the 402's figure). */
function fakeDb(answers: Record<string, Answer>) {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const db = {
    rpc(fn: string, args: Record<string, unknown>) {
      calls.push([fn, args]);
      const a = answers[fn];
      if (!a) throw new Error(`unexpected rpc ${fn}`);
      return Promise.resolve({ data: a.data ?? null, error: a.error ?? null, status: a.status ?? 200 });
    },
    from(table: string) {
      assert.equal(table, "user_credits");
      const query = {
        select: () => query,
        eq: (column: string, value: string) => {
          assert.deepEqual([column, value], ["user_id", USER]);
          return query;
        },
        maybeSingle: () => Promise.resolve({ data: { balance: "0.5000" }, error: null }),
      };
      return query;
    },
  } as unknown as SupabaseClient;
  return { db, calls };
}

const USER = "11111111-2222-4333-8444-555555555555";
const WS = "aaaaaaaa-2222-4333-8444-555555555555";
const NEXT = "Buy credits with crm-billing-api POST /credits/purchase {package_id} (the packages: " +
  "GET /rest/v1/credit_packages) or upgrade the subscription with crm-billing-api POST " +
  "/subscriptions/create-checkout {plan_id}.";
const DEBITED = { transaction_id: "tx-1", balance: "9.5", credits: "0.5", usage_log_id: "log-1" };

const families: Array<{
  name: string;
  request: DebitRequest;
  fn: string;
  args: Record<string, unknown>;
  message: string;
  details: unknown;
  failed: string;
  action: string;
}> = [
  {
    name: "cost key",
    request: { userId: USER, action: "kb_search", costKey: "rag_text_search", workspaceId: "not-a-uuid" },
    fn: "bill_gateway_action",
    args: {
      p_user_id: USER,
      p_action: "kb_search",
      p_cost_key: "rag_text_search",
      p_quantity: 1,
      p_workspace_id: null,
      p_reference_id: null,
      p_metadata: {},
    },
    message: `Insufficient credits for kb_search: kb_search costs 2 credits and your balance is 0.5. ${NEXT}`,
    details: { action: "kb_search", cost_key: "rag_text_search", price: 2, balance: 0.5 },
    failed: "Could not bill kb_search: boom",
    action: "kb_search",
  },
  {
    name: "agent chat",
    request: { userId: USER, agentId: "demo", model: "m", workspaceId: WS, referenceId: "conv-1" },
    fn: "bill_agent_chat",
    args: { p_user_id: USER, p_agent_id: "demo", p_model: "m", p_workspace_id: WS, p_reference_id: "conv-1" },
    message:
      `Insufficient credits for the demo agent: the demo agent costs 2 credits and your balance is 0.5. ${NEXT}`,
    details: { agent_id: "demo", cost_key: null, price: 2, balance: 0.5 },
    failed: "Could not bill the request: boom",
    action: "agent_chat",
  },
  {
    name: "explicit amount",
    request: { userId: USER, action: "vr_world_render", credits: 0.5, referenceId: "world-1" },
    fn: "debit_credits",
    args: {
      p_user_id: USER,
      p_amount: 0.5,
      p_action: "vr_world_render",
      p_reference_id: "world-1",
      p_metadata: {},
    },
    message:
      `Insufficient credits for vr_world_render: vr_world_render costs 2 credits and your balance is 0.5. ${NEXT}`,
    details: { action: "vr_world_render", credits: 0.5, cost_key: null, price: 2, balance: 0.5 },
    failed: "Could not bill vr_world_render: boom",
    action: "vr_world_render",
  },
];

for (const f of families) {
  Deno.test(`ledger (${f.name}): debit calls ${f.fn} and returns the charge`, async () => {
    const { db, calls } = fakeDb({ [f.fn]: { data: DEBITED } });
    const charge = await debit(db, f.request);
    assert.deepEqual(calls, [[f.fn, f.args]]);
    assert.equal(charge.transactionId, "tx-1");
    assert.equal(charge.credits, 0.5);
    assert.equal(charge.balance, 9.5);
    assert.equal(charge.action, f.action);
  });

  Deno.test(`ledger (${f.name}): PT402 is insufficient_credits (402) naming price, balance, next step`, async () => {
    for (
      const answer of [
        { error: { message: "insufficient credits: 2.0000 required", code: "PT402" } },
        { error: { message: "insufficient credits: 2.0000 required" }, status: 402 },
      ]
    ) {
      const { db } = fakeDb({ [f.fn]: answer });
      const err = await debit(db, f.request).catch((e) => e);
      assert.ok(err instanceof DomainError);
      assert.equal(err.kind, "insufficient_credits");
      assert.equal(DOMAIN_ERROR_STATUS[err.kind], 402);
      assert.equal(err.code, "insufficient_credits");
      assert.equal(err.message, f.message);
      assert.deepEqual(err.details, f.details);
    }
  });

  Deno.test(`ledger (${f.name}): any other failure is billing_failed (500)`, async () => {
    const { db } = fakeDb({ [f.fn]: { error: { message: "boom", code: "XX000" }, status: 500 } });
    const err = await debit(db, f.request).catch((e) => e);
    assert.ok(err instanceof DomainError);
    assert.deepEqual([DOMAIN_ERROR_STATUS[err.kind], err.code, err.message], [
      500,
      "billing_failed",
      f.failed,
    ]);
  });
}

Deno.test("ledger: refund goes through each family's own function", async () => {
  const cases: Array<[DebitRequest, string, Record<string, unknown>, unknown]> = [
    [
      families[0].request,
      "refund_gateway_action",
      { p_transaction_id: "tx-1", p_reason: "r" },
      { transaction_id: "tx-2", balance: "10" },
    ],
    [
      families[1].request,
      "settle_agent_chat",
      { p_usage_log_id: "log-1", p_input_tokens: 0, p_output_tokens: 0, p_refund_reason: "r" },
      { usage_log_id: "log-1", refunded: true, balance: 10 },
    ],
    [
      families[2].request,
      "refund_credits",
      { p_debit_id: "tx-1", p_reason: "r" },
      { transaction_id: "tx-2", balance: 10 },
    ],
  ];
  for (const [request, fn, args, data] of cases) {
    const bill = families.find((f) => f.request === request)!.fn;
    const { db, calls } = fakeDb({ [bill]: { data: DEBITED }, [fn]: { data } });
    const charge = await debit(db, request);
    assert.deepEqual(await refund(db, charge, "r"), { refunded: true, balance: 10 }, fn);
    assert.deepEqual(calls[1], [fn, args]);
  }
});

Deno.test("ledger: settle records agent-chat usage without refunding; a failure is reported, not thrown", async () => {
  const { db, calls } = fakeDb({
    bill_agent_chat: { data: DEBITED },
    settle_agent_chat: { data: { usage_log_id: "log-1", refunded: false, balance: null } },
  });
  const charge = await debit(db, families[1].request);
  const usage = { input_tokens: 12, output_tokens: 34 };
  assert.deepEqual(await settle(db, charge, { usage, refundReason: null }), { refunded: false });
  assert.deepEqual(calls[1][1], {
    p_usage_log_id: "log-1",
    p_input_tokens: 12,
    p_output_tokens: 34,
    p_refund_reason: null,
  });

  const failing = fakeDb({
    bill_gateway_action: { data: DEBITED },
    refund_gateway_action: { error: { message: "gone" } },
  });
  const gw = await debit(failing.db, families[0].request);
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...a: unknown[]) => void errors.push(a);
  try {
    assert.deepEqual(await refund(failing.db, gw, "r"), { refunded: false, error: "gone" });
  } finally {
    console.error = original;
  }
  assert.equal(errors.length, 1);
  // A charge without usage tracking and nothing to refund needs no call.
  assert.deepEqual(await settle(failing.db, gw, { usage: null }), { refunded: false });
  assert.equal(failing.calls.length, 2);
});

Deno.test("ledger: runBilled refunds a non-2xx answer or a thrown call, never a success", async () => {
  const answers = {
    bill_gateway_action: { data: DEBITED },
    refund_gateway_action: { data: { balance: 10 } },
  };
  const req = families[0].request;

  const ok = fakeDb(answers);
  const r1 = await runBilled(() => ok.db, req, () => Promise.resolve({ status: 200 }));
  assert.equal(r1.refund, null);
  assert.equal(ok.calls.length, 1);

  const bad = fakeDb(answers);
  const r2 = await runBilled(() => bad.db, req, () => Promise.resolve({ status: 404 }));
  assert.deepEqual(r2.refund, { refunded: true, balance: 10 });
  assert.equal(bad.calls[1][1].p_reason, "backend answered 404");

  const thrown = fakeDb(answers);
  await assert.rejects(runBilled(() => thrown.db, req, () => Promise.reject(new Error("down"))), /down/);
  assert.equal(thrown.calls[1][1].p_reason, "backend call failed: down");

  // Any result type, with the caller's own failure rule.
  const custom = fakeDb(answers);
  const r3 = await runBilled(() => custom.db, req, () => Promise.resolve("no world"), (s) => s);
  assert.deepEqual(r3.refund, { refunded: true, balance: 10 });

  // No request: nothing is billed.
  const free = fakeDb({});
  const r4 = await runBilled(() => free.db, null, () => Promise.resolve({ status: 500 }));
  assert.deepEqual([r4.charge, r4.refund, free.calls.length], [null, null, 0]);
});

Deno.test("ledger: an insufficient balance stops runBilled before the call", async () => {
  const { db } = fakeDb({ bill_gateway_action: { error: { message: "x", code: "PT402" } } });
  let called = false;
  await assert.rejects(
    runBilled(() => db, families[0].request, () => {
      called = true;
      return Promise.resolve({ status: 200 });
    }),
    DomainError,
  );
  assert.equal(called, false);
});
