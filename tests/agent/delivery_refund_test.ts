/**
 * agent-chat refunds only what was not delivered (issue 14, "Money"): when saving the answer
 * fails after it has streamed (the user deleted the conversation mid-stream), the charge stands
 * and the failure is logged and reported as a status; a failure before the answer is delivered
 * still ends with an error chunk and a full refund.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";
import { askIn, balance, chat, createTeam, kinds, llm, only, textOf } from "./helpers.ts";

async function agentLedger(p: Platform, userId: string) {
  const r = await p.db.query<{ kind: string; amount: number }>(
    `select kind, amount::float8 as amount from public.credit_transactions
      where user_id = $1 and kind in ('debit', 'refund') order by created_at, kind`,
    [userId],
  );
  return r.rows;
}

platformTest(
  "a delivered answer whose save fails (conversation deleted mid-stream) is not refunded",
  async (p) => {
    const t = await createTeam(p);
    const model = llm(p);
    model.reply({
      text: "Use a flexible C2 adhesive for porcelain tiles.",
      // The user deletes the conversation while the model is answering.
      beforeReply: async () => {
        const gone = await p.db.query(
          `delete from public.agent_chat_conversations where user_id = $1 returning id`,
          [t.member.id],
        );
        assert.equal(gone.rows.length, 1, "the turn's conversation existed and is deleted");
      },
    });
    const r = await chat(p, t.member.accessToken, askIn(t.ws, "Which adhesive for porcelain?"));
    assert.equal(r.status, 200);
    assert.equal(model.pendingReplies, 0, "the scripted reply (and its deletion) ran");
    assert.equal(
      textOf(r.chunks),
      "Use a flexible C2 adhesive for porcelain tiles.",
      "the whole answer arrived",
    );
    assert.deepEqual(only(r.chunks, "error"), [], "a delivered turn is not reported as failed");
    assert.ok(
      only(r.chunks, "status").some((s) => /delivered but could not be saved/.test(s.message)),
      JSON.stringify(r.chunks),
    );
    assert.equal(r.chunks[r.chunks.length - 1].type, "done");

    assert.deepEqual(await agentLedger(p, t.member.id), [{ kind: "debit", amount: -1 }], "no refund row");
    assert.equal(await balance(p, t.member.id), 99, "the charge stands");
    const log = await p.db.query<{ metadata: Record<string, unknown>; output_tokens: number }>(
      `select metadata, output_tokens from public.ai_usage_logs where user_id = $1 and action = 'agent_chat'`,
      [t.member.id],
    );
    assert.equal(log.rows.length, 1);
    assert.notEqual(log.rows[0].metadata.refunded, true);
    assert.ok(log.rows[0].output_tokens > 0, "the delivered turn's usage is recorded");
  },
);

platformTest("a failure before the answer is delivered still refunds in full", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  model.failNext(529).failNext(529); // the SDK retries once
  const r = await chat(p, t.member.accessToken, askIn(t.ws, "hi"));
  assert.equal(r.status, 200);
  assert.deepEqual(kinds(r.chunks), ["status", "error", "done"]);
  assert.equal(textOf(r.chunks), "", "nothing was delivered");
  assert.deepEqual(
    (await agentLedger(p, t.member.id)).map((x) => x.kind),
    ["debit", "refund"],
  );
  assert.equal(await balance(p, t.member.id), 100, "refunded in full");
});
