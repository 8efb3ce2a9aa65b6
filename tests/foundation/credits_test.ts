/** Atomic credit debits, refunds and grants (SQL functions), including under concurrency. */
import assert from "node:assert/strict";
import { createUser, platformTest } from "../helpers/platform.ts";
import { sqlAs, sqlState } from "../helpers/sql.ts";

const service = { role: "service_role" as const };

async function balance(p: Parameters<typeof sqlAs>[0], userId: string): Promise<number> {
  const r = await p.db.query<{ balance: string }>(
    `select balance from public.user_credits where user_id = $1`,
    [userId],
  );
  return Number(r.rows[0].balance);
}

platformTest("50 concurrent debits never overdraw, and the ledger sums to the balance", async (p) => {
  const u = await createUser(p, "conc");
  await sqlAs(p, service, `select public.grant_credits($1, 10, 'grant', 'test-grant')`, [u.id]);
  const results = await Promise.allSettled(
    Array.from(
      { length: 50 },
      (_, i) =>
        sqlAs(p, service, `select public.debit_credits($1, 0.5, 'rag_search', $2) as r`, [u.id, `req-${i}`]),
    ),
  );
  const ok = results.filter((r) => r.status === "fulfilled").length;
  const refused = results.filter((r) => r.status === "rejected");
  assert.equal(ok, 20, "10 credits pay for exactly 20 debits of 0.5");
  assert.equal(refused.length, 30);
  for (const r of refused) {
    assert.equal(((r as PromiseRejectedResult).reason as { code: string }).code, "PT402");
  }
  assert.equal(await balance(p, u.id), 0);
  const ledger = await p.db.query<{ sum: string; n: number }>(
    `select sum(amount) as sum, count(*)::int as n from public.credit_transactions where user_id = $1`,
    [u.id],
  );
  assert.equal(Number(ledger.rows[0].sum), await balance(p, u.id));
  assert.equal(ledger.rows[0].n, 21);
});

platformTest("a debit larger than the balance writes nothing", async (p) => {
  const u = await createUser(p, "short");
  await sqlAs(p, service, `select public.grant_credits($1, 1)`, [u.id]);
  assert.equal(
    await sqlState(() =>
      sqlAs(p, service, `select public.debit_credits($1, 2, 'kb_create_document')`, [u.id])
    ),
    "PT402",
  );
  assert.equal(await balance(p, u.id), 1);
  const n = await p.db.query(
    `select 1 from public.credit_transactions where user_id = $1 and kind = 'debit'`,
    [u.id],
  );
  assert.equal(n.rows.length, 0);
});

platformTest("a refund returns a debit once; bad amounts are refused", async (p) => {
  const u = await createUser(p, "refund");
  await sqlAs(p, service, `select public.grant_credits($1, 5)`, [u.id]);
  const [{ r }] = await sqlAs<{ r: { transaction_id: string; balance: number } }>(
    p,
    service,
    `select public.debit_credits($1, 2, 'kb_create_from_pdf', 'job-1') as r`,
    [u.id],
  );
  assert.equal(Number(r.balance), 3);
  const [{ r: refund }] = await sqlAs<{ r: { balance: number } }>(
    p,
    service,
    `select public.refund_credits($1, 'backend failed') as r`,
    [r.transaction_id],
  );
  assert.equal(Number(refund.balance), 5);
  assert.equal(
    await sqlState(() => sqlAs(p, service, `select public.refund_credits($1)`, [r.transaction_id])),
    "PT409",
  );
  assert.equal(await balance(p, u.id), 5);
  assert.equal(
    await sqlState(() => sqlAs(p, service, `select public.debit_credits($1, -3, 'x')`, [u.id])),
    "22023",
  );
  assert.equal(
    await sqlState(() => sqlAs(p, service, `select public.debit_credits($1, 0, 'x')`, [u.id])),
    "22023",
  );
  assert.equal(
    await sqlState(() => sqlAs(p, service, `select public.grant_credits($1, 1, 'free-money')`, [u.id])),
    "22023",
  );
  assert.equal(
    await sqlState(() => sqlAs(p, service, `select public.debit_credits(gen_random_uuid(), 1, 'x')`)),
    "PT404",
  );
});

platformTest("the balance column itself refuses to go negative", async (p) => {
  const u = await createUser(p, "neg");
  assert.equal(
    await sqlState(() =>
      p.db.query(`update public.user_credits set balance = -1 where user_id = $1`, [u.id])
    ),
    "23514",
  );
});
