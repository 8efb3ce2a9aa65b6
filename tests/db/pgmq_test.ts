/**
 * Supabase Queues (pgmq) on the local platform, at hosted's SQL surface: enabled by migration
 * (20260221011100_enable_pgmq.sql), send / send_batch / read with a visibility timeout / pop /
 * delete / archive / metrics on pgmq.q_<name> and pgmq.a_<name>, and the privileges: postgres
 * and service_role use queues, anon and authenticated are refused.
 */
import assert from "node:assert/strict";
import { type RequestContext, withRequestContext } from "../../stack/db/database.ts";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";

const as = (role: string): RequestContext => ({
  role,
  claims: role === "anon" ? {} : { sub: crypto.randomUUID() },
});

interface Msg {
  msg_id: string;
  read_ct: number;
  enqueued_at: Date;
  vt: Date;
  message: Record<string, unknown>;
}

let n = 0;
const queueName = () => `t_${Date.now() % 100_000}_${n++}`;

/** Creates a queue as postgres, as the SQL editor or a migration does on hosted. */
async function createQueue(p: Platform, q: string): Promise<void> {
  await p.db.transaction(async (tx) => {
    await tx.exec(`set local role postgres`);
    await tx.query(`select pgmq.create($1)`, [q]);
  });
}

platformTest("pgmq is an extension enabled by migration, its tables shaped as hosted's", async (p) => {
  const ext = await p.db.query<{ extname: string; extversion: string; owner: string }>(
    `select extname, extversion, pg_get_userbyid(extowner) as owner from pg_extension where extname = 'pgmq'`,
  );
  assert.deepEqual(ext.rows, [{ extname: "pgmq", extversion: "1.4.4", owner: "postgres" }]);
  const q = queueName();
  await createQueue(p, q);
  const cols = await p.db.query<{ table_name: string; cols: string }>(
    `select table_name, string_agg(column_name || ' ' || data_type, ', ' order by ordinal_position) as cols
       from information_schema.columns where table_schema = 'pgmq' and table_name in ($1, $2)
      group by table_name order by table_name`,
    [`a_${q}`, `q_${q}`],
  );
  assert.deepEqual(cols.rows, [
    {
      table_name: `a_${q}`,
      cols: "msg_id bigint, read_ct integer, enqueued_at timestamp with time zone, " +
        "archived_at timestamp with time zone, vt timestamp with time zone, message jsonb",
    },
    {
      table_name: `q_${q}`,
      cols: "msg_id bigint, read_ct integer, enqueued_at timestamp with time zone, " +
        "vt timestamp with time zone, message jsonb",
    },
  ]);
  const listed = await p.db.query<{ queue_name: string; is_unlogged: boolean }>(
    `select queue_name, is_unlogged from pgmq.list_queues() where queue_name = $1`,
    [q],
  );
  assert.deepEqual(listed.rows, [{ queue_name: q, is_unlogged: false }]);
  // The function signatures hosted has (argument names and types as pgmq 1.4).
  const sigs = await p.db.query<{ sig: string }>(
    `select p.proname || '(' || pg_get_function_arguments(p.oid) || ')' as sig from pg_proc p
      where p.pronamespace = 'pgmq'::regnamespace and p.proname in ('send', 'send_batch', 'read', 'pop')
      order by 1`,
  );
  assert.deepEqual(sigs.rows.map((r) => r.sig), [
    "pop(queue_name text)",
    "read(queue_name text, vt integer, qty integer)",
    "read(queue_name text, vt integer, qty integer, conditions jsonb)",
    "send(queue_name text, msg jsonb, delay integer DEFAULT 0)",
    "send_batch(queue_name text, msgs jsonb[], delay integer DEFAULT 0)",
  ]);
  await assert.rejects(p.db.query(`select pgmq.create('bad;name')`), /invalid characters/);
});

platformTest("read hides a message for vt seconds; it comes back when vt expires", async (p) => {
  const q = queueName();
  await createQueue(p, q);
  const sent = await p.db.query<{ id: string }>(`select pgmq.send($1, '{"n": 1}') as id`, [q]);
  const id = Number(sent.rows[0].id);
  const first = await p.db.query<Msg>(`select * from pgmq.read($1, 30, 5)`, [q]);
  assert.equal(first.rows.length, 1);
  assert.equal(Number(first.rows[0].msg_id), id);
  assert.equal(first.rows[0].read_ct, 1);
  assert.deepEqual(first.rows[0].message, { n: 1 });
  assert.ok(first.rows[0].vt.getTime() - Date.now() > 25_000, "visible again in about 30 s");
  assert.equal((await p.db.query(`select * from pgmq.read($1, 30, 5)`, [q])).rows.length, 0, "hidden");
  // A 1-second vt expires without anyone deleting the message: it is read again, read_ct 2.
  await p.db.query(`select pgmq.set_vt($1, $2, 1)`, [q, id]);
  assert.equal((await p.db.query(`select * from pgmq.read($1, 1, 5)`, [q])).rows.length, 0);
  await new Promise((r) => setTimeout(r, 1_100));
  const again = await p.db.query<Msg>(`select * from pgmq.read($1, 30, 5)`, [q]);
  assert.deepEqual(again.rows.map((r) => [Number(r.msg_id), r.read_ct]), [[id, 2]]);
  // A delayed send is invisible until its delay has passed.
  await p.db.query(`select pgmq.send($1, '{"n": 2}', 60)`, [q]);
  assert.equal((await p.db.query(`select * from pgmq.read($1, 30, 5)`, [q])).rows.length, 0);
});

platformTest("send_batch, delete, archive, pop and metrics", async (p) => {
  const q = queueName();
  await createQueue(p, q);
  const ids = (await p.db.query<{ id: string }>(
    `select * from pgmq.send_batch($1, array['{"i": 1}', '{"i": 2}', '{"i": 3}', '{"i": 4}']::jsonb[]) as id`,
    [q],
  )).rows.map((r) => Number(r.id));
  assert.equal(ids.length, 4);
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b), "ids in the batch's order");
  const m0 = (await p.db.query<{ queue_length: string; total_messages: string; queue_name: string }>(
    `select * from pgmq.metrics($1)`,
    [q],
  )).rows[0];
  assert.deepEqual([m0.queue_name, Number(m0.queue_length), Number(m0.total_messages)], [q, 4, 4]);

  const read = await p.db.query<Msg>(`select * from pgmq.read($1, 30, 2)`, [q]);
  assert.deepEqual(read.rows.map((r) => r.message), [{ i: 1 }, { i: 2 }], "oldest first, qty honoured");
  const del = await p.db.query<{ ok: boolean }>(`select pgmq.delete($1, $2::bigint) as ok`, [q, ids[0]]);
  assert.equal(del.rows[0].ok, true);
  assert.equal(
    (await p.db.query<{ ok: boolean }>(`select pgmq.delete($1, $2::bigint) as ok`, [q, ids[0]])).rows[0].ok,
    false,
    "deleting twice finds nothing",
  );
  const arch = await p.db.query<{ ok: boolean }>(`select pgmq.archive($1, $2::bigint) as ok`, [q, ids[1]]);
  assert.equal(arch.rows[0].ok, true);
  const archived = await p.db.query<{ msg_id: string; message: unknown; archived_at: Date }>(
    `select msg_id, message, archived_at from pgmq.${"a_" + q}`,
  );
  assert.deepEqual(archived.rows.map((r) => [Number(r.msg_id), r.message]), [[ids[1], { i: 2 }]]);
  assert.ok(archived.rows[0].archived_at instanceof Date);

  const popped = await p.db.query<Msg>(`select * from pgmq.pop($1)`, [q]);
  assert.deepEqual(popped.rows.map((r) => r.message), [{ i: 3 }]);
  const m1 = (await p.db.query<{ queue_length: string; total_messages: string }>(
    `select * from pgmq.metrics($1)`,
    [q],
  )).rows[0];
  assert.deepEqual([Number(m1.queue_length), Number(m1.total_messages)], [1, 4]);
  const all = await p.db.query<{ queue_name: string }>(`select queue_name from pgmq.metrics_all()`);
  assert.ok(all.rows.some((r) => r.queue_name === q));
  assert.equal(
    Number((await p.db.query<{ n: string }>(`select pgmq.purge_queue($1) as n`, [q])).rows[0].n),
    1,
  );
  assert.equal((await p.db.query<{ ok: boolean }>(`select pgmq.drop_queue($1) as ok`, [q])).rows[0].ok, true);
  assert.equal(
    (await p.db.query<{ t: string | null }>(`select to_regclass($1) as t`, [`pgmq.q_${q}`])).rows[0].t,
    null,
  );
});

platformTest("service_role uses queues; anon and authenticated are refused", async (p) => {
  const q = queueName();
  await createQueue(p, q);
  const got = await withRequestContext(p.db, as("service_role"), async (tx) => {
    await tx.query(`select pgmq.send($1, '{"from": "service"}')`, [q]);
    return (await tx.query<Msg>(`select * from pgmq.read($1, 30, 1)`, [q])).rows;
  });
  assert.deepEqual(got.map((r) => r.message), [{ from: "service" }]);
  for (const role of ["anon", "authenticated"]) {
    for (
      const sql of [
        `select pgmq.send('${q}', '{}')`,
        `select * from pgmq.read('${q}', 30, 1)`,
        `select * from pgmq.metrics('${q}')`,
        `select * from pgmq.q_${q}`,
        `select * from pgmq.q_messaging_bulk`,
      ]
    ) {
      await assert.rejects(
        withRequestContext(p.db, as(role), (tx) => tx.query(sql)),
        /permission denied for schema pgmq/,
        `${role}: ${sql}`,
      );
    }
  }
  // Not through the Data API either: pgmq is not an exposed schema.
  const res = await fetch(`${p.url}/rest/v1/rpc/send`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      "content-type": "application/json",
      "content-profile": "pgmq",
    },
    body: JSON.stringify({ queue_name: q, msg: {} }),
  });
  assert.equal(res.status, 406);
  await res.body?.cancel();
});
