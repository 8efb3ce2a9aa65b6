/**
 * Queue throughput (Supabase Queues, pgmq as the local platform emulates it):
 * `deno run -A bench/queue.ts [--messages 5000] [--batch 100]`.
 *
 * Opens a fresh migrated database (no HTTP: the SQL surface itself), creates a queue as postgres
 * and times, in messages per second: pgmq.send one message per statement, pgmq.send_batch of
 * --batch, pgmq.read of --batch with a visibility timeout, and pgmq.delete of the ids read (an
 * array per statement). PGlite runs one statement at a time, so the figures are one
 * connection's; the core count is printed for comparison with other machines.
 */
import { parseArgs } from "node:util";
import { openFromTemplate } from "../stack/db/template.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { messages: { type: "string", default: "5000" }, batch: { type: "string", default: "100" } },
});
const total = Number(values.messages);
const batch = Number(values.batch);
const root = new URL("..", import.meta.url).pathname;

const db = await openFromTemplate(root);
try {
  await db.transaction(async (tx) => {
    await tx.exec(`set local role postgres`);
    await tx.query(`select pgmq.create('bench')`);
  });
  const rate = (n: number, ms: number) => `${(n / (ms / 1000)).toFixed(0)} msg/s`;
  const time = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };

  const single = await time(async () => {
    for (let i = 0; i < total; i++) await db.query(`select pgmq.send('bench', $1)`, [{ i }]);
  });
  const batched = await time(async () => {
    for (let i = 0; i < total; i += batch) {
      const msgs = Array.from({ length: Math.min(batch, total - i) }, (_, k) => JSON.stringify({ i: i + k }));
      await db.query(`select pgmq.send_batch('bench', $1::jsonb[])`, [msgs]);
    }
  });
  let read = 0;
  let deleted = 0;
  let readMs = 0;
  let deleteMs = 0;
  for (;;) {
    let ids: string[] = [];
    readMs += await time(async () => {
      ids = (await db.query<{ msg_id: string }>(`select msg_id from pgmq.read('bench', 60, $1)`, [batch]))
        .rows
        .map((r) => r.msg_id);
    });
    if (ids.length === 0) break;
    read += ids.length;
    deleteMs += await time(async () => {
      deleted += (await db.query(`select pgmq.delete('bench', $1::bigint[])`, [ids])).rows.length;
    });
  }
  const cores = navigator.hardwareConcurrency;
  console.log(`pgmq (emulated, PGlite, one connection) on ${cores} cores:`);
  console.log(`  send       ${total} one at a time:   ${rate(total, single)}`);
  console.log(`  send_batch ${total} in ${batch}s:        ${rate(total, batched)}`);
  console.log(`  read       ${read} in ${batch}s (vt 60): ${rate(read, readMs)}`);
  console.log(`  delete     ${deleted} in ${batch}s:        ${rate(deleted, deleteMs)}`);
} finally {
  await db.close();
}
