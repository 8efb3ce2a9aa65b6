/**
 * send-bulk on the messaging_bulk queue: the request records, enqueues and answers at once; the
 * worker (messaging-bulk-worker, or runBulkWorker with its dependencies) sends in slices on the
 * messaging clock, paced by max_send_rate, each recipient exactly once even when a run dies
 * mid-way (before the provider call, or after it with the answer lost) and another takes over.
 */
import assert from "node:assert/strict";
import { runWithEnv } from "@shared/env.ts";
import { useMessagingClock, VirtualClock } from "@shared/messaging/clock.ts";
import { runBulkWorker, type SliceReport } from "@shared/messaging/bulk.ts";
import { type MessagingProvider, twilioProvider } from "@shared/messaging/provider.ts";
import { createWorkspace, platformTest, serviceClient } from "../helpers/platform.ts";
import { call, kicks, phone, runWorker, setup } from "./helpers.ts";

platformTest(
  "send-bulk answers at once with queued/opted_out, the worker sends, status reads it",
  async (p) => {
    const s = await setup(p, "bq-small");
    useMessagingClock(null);
    const [a, b, c] = [phone(), phone(), phone()];
    await p.db.query(
      `insert into public.messaging_optouts (workspace_id, phone_number, channel_type, source)
     values ($1, $2, 'sms', 'manual')`,
      [s.ws, b],
    );
    const kicked = kicks.length;
    const r = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk",
      content: "Hello {{name}}",
      recipients: [{ to: a, variables: { name: "Ana" } }, { to: b }, { to: c, variables: { name: "Cy" } }],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      success: true,
      bulkId: r.body.bulkId,
      status: "queued",
      total: 3,
      queued: 2,
      sent: 0,
      failed: 0,
      optedOut: 1,
      results: [
        { to: a, status: "queued" },
        { to: b, status: "opted_out", error: "Recipient has opted out" },
        {
          to: c,
          status: "queued",
        },
      ],
    });
    assert.equal(kicks.length, kicked + 1, "the worker is kicked right after the bulk is queued");
    assert.equal(s.tw.messages().length, 0);
    const queued = await p.db.query<{ n: string }>(
      `select count(*) as n from pgmq.q_messaging_bulk where message ->> 'bulk_id' = $1`,
      [r.body.bulkId],
    );
    assert.equal(Number(queued.rows[0].n), 1);

    const before = await call(p, s.viewer, {
      workspaceId: s.ws,
      action: "send-bulk-status",
      bulkId: r.body.bulkId,
    });
    assert.deepEqual([before.body.status, before.body.queued, before.body.sent], ["queued", 2, 0]);

    const run = await runWorker(p);
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(s.tw.messages().map((m) => [m.to, m.body]), [[a, "Hello Ana"], [c, "Hello Cy"]]);
    const after = await call(p, s.viewer, {
      workspaceId: s.ws,
      action: "send-bulk-status",
      bulkId: r.body.bulkId,
    });
    assert.equal(after.status, 200);
    const sids = s.tw.messages().map((m) => m.sid);
    assert.deepEqual(after.body, {
      success: true,
      bulkId: r.body.bulkId,
      status: "completed",
      total: 3,
      queued: 0,
      sending: 0,
      sent: 2,
      failed: 0,
      optedOut: 1,
      createdAt: after.body.createdAt,
      completedAt: after.body.completedAt,
      results: [
        { to: a, status: "sent", messageId: sids[0] },
        { to: b, status: "opted_out", error: "Recipient has opted out" },
        { to: c, status: "sent", messageId: sids[1] },
      ],
    });
    // The message is archived, not left on the queue; a second run finds nothing to send.
    const left = await p.db.query(`select 1 from pgmq.q_messaging_bulk where message ->> 'bulk_id' = $1`, [
      r.body.bulkId,
    ]);
    assert.equal(left.rows.length, 0);
    await runWorker(p);
    assert.equal(s.tw.messages().length, 2);

    // Another workspace's bulk is not found; the worker is the scheduler's alone.
    const other = await call(p, s.outsider, {
      workspaceId: s.ws,
      action: "send-bulk-status",
      bulkId: r.body.bulkId,
    });
    assert.deepEqual([other.status, other.body.error], [404, "Workspace not found"]);
    const own = await createWorkspace(p, s.outsider.id);
    const elsewhere = await call(p, s.outsider, {
      workspaceId: own,
      action: "send-bulk-status",
      bulkId: r.body.bulkId,
    });
    assert.equal(elsewhere.status, 404);
    assert.equal(elsewhere.body.error, "Bulk not found");
    const asUser = await fetch(`${p.url}/functions/v1/messaging-bulk-worker`, {
      method: "POST",
      headers: { apikey: p.config.anonKey, authorization: `Bearer ${s.member.accessToken}` },
    });
    assert.equal(asUser.status, 403);
    await asUser.body?.cancel();
    const asAnon = await fetch(`${p.url}/functions/v1/messaging-bulk-worker`, {
      method: "POST",
      headers: { apikey: p.config.anonKey, authorization: `Bearer ${p.config.anonKey}` },
    });
    assert.equal(asAnon.status, 401);
    await asAnon.body?.cancel();
    // Clients cannot write bulks or call the worker's functions.
    const forged = await fetch(`${p.url}/rest/v1/rpc/messaging_bulk_read`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${s.owner.accessToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ p_vt: 1 }),
    });
    const forgedBody = await forged.text();
    assert.equal(forged.status, 403, forgedBody);
    assert.match(forgedBody, /permission denied for function messaging_bulk_read/);
  },
);

platformTest(
  "1,000 recipients at 600/min: paced on the clock, every one sent once through two killed runs",
  async (p) => {
    const s = await setup(p, "bq-big", { max_send_rate: 600, daily_quota: 5000 });
    const start = Date.parse("2026-07-01T10:00:00Z");
    const clock = new VirtualClock(start);
    useMessagingClock(clock);
    try {
      const numbers = Array.from({ length: 1000 }, (_, i) => `+1777${String(i).padStart(7, "0")}`);
      const optedOut = numbers.filter((_, i) => i % 20 === 3); // 50
      await p.db.query(
        `insert into public.messaging_optouts (workspace_id, phone_number, channel_type, source)
         select $1, unnest($2::text[]), 'all', 'manual'`,
        [s.ws, optedOut],
      );
      const t0 = performance.now();
      const r = await call(p, s.member, {
        workspaceId: s.ws,
        action: "send-bulk",
        content: "Sale {{n}}",
        recipients: numbers.map((to, n) => ({ to, variables: { n } })),
      });
      const answeredMs = performance.now() - t0;
      assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
      assert.deepEqual([r.body.total, r.body.queued, r.body.optedOut, r.body.sent], [1000, 950, 50, 0]);
      assert.ok(answeredMs < 1000, `send-bulk answered in ${answeredMs.toFixed(0)} ms`);

      // The provider, with a kill switch: `before` dies before calling Twilio (claimed, never
      // sent), `after` dies once Twilio has accepted the message (sent, answer lost).
      const twilio = runWithEnv(p.env, () => twilioProvider());
      let calls = 0;
      let kill: { at: number; when: "before" | "after" } | null = null;
      const provider: MessagingProvider = {
        ...twilio,
        async send(m) {
          const n = ++calls;
          if (kill && n === kill.at && kill.when === "before") throw new Error("worker killed (before send)");
          const sent = await twilio.send(m);
          if (kill && n === kill.at && kill.when === "after") throw new Error("worker killed (answer lost)");
          return sent;
        },
      };
      const deps = {
        service: serviceClient(p),
        provider: () => provider,
        clock,
        statusCallbackUrl: `${p.url}/functions/v1/messaging-webhook?type=status`,
      };
      const expireLease = () =>
        p.db.query(
          `select pgmq.set_vt('messaging_bulk', msg_id, 0) from pgmq.q_messaging_bulk
            where message ->> 'bulk_id' = $1`,
          [r.body.bulkId],
        );
      const slices: SliceReport[] = [];
      const kills = [{ at: 300, when: "before" as const }, { at: 700, when: "after" as const }];
      for (let run = 0; run < 40; run++) {
        const st = await p.db.query<{ status: string }>(
          `select status from public.messaging_bulks where id = $1`,
          [
            r.body.bulkId,
          ],
        );
        if (st.rows[0].status === "completed") break;
        kill = kills.find((k) => k.at > calls) ?? null;
        try {
          slices.push(...(await runBulkWorker(deps)).slices.filter((x) => x.bulkId === r.body.bulkId));
        } catch (err) {
          assert.match((err as Error).message, /worker killed/);
          // The dead run's lease ends (Postgres time is not the messaging clock: expire it).
          await expireLease();
        }
      }
      const done = await call(p, s.member, {
        workspaceId: s.ws,
        action: "send-bulk-status",
        bulkId: r.body.bulkId,
      });
      assert.deepEqual(
        [
          done.body.status,
          done.body.sent,
          done.body.failed,
          done.body.optedOut,
          done.body.queued,
          done.body.sending,
        ],
        ["completed", 950, 0, 50, 0, 0],
      );
      assert.ok(slices.some((x) => x.adopted > 0), "the lost answer was found at the provider, not re-sent");
      assert.ok(slices.some((x) => x.requeued > 0), "the claims of the run killed before sending went back");

      // Twilio stand-in captures: every non-opted-out recipient exactly once, none opted out.
      const captured = s.tw.messages().filter((m) => m.to.startsWith("+1777"));
      const blocked = new Set(optedOut);
      assert.equal(captured.length, 950);
      assert.equal(new Set(captured.map((m) => m.to)).size, 950);
      assert.ok(captured.every((m) => !blocked.has(m.to)));
      // Capture times on the test clock: each captured sid's slot (its log's time).
      const logs = await p.db.query<{ provider_message_id: string; created_at: Date; status: string }>(
        `select provider_message_id, created_at, status from public.messaging_logs where bulk_id = $1`,
        [r.body.bulkId],
      );
      assert.equal(logs.rows.length, 950, "one attempt per recipient (a requeued claim's log is gone)");
      const at = new Map(logs.rows.map((l) => [l.provider_message_id, l.created_at.getTime()]));
      const times = captured.map((m) => at.get(m.sid)!).sort((x, y) => x - y);
      assert.ok(times.every((t) => Number.isFinite(t)));
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i] - times[j] >= 60_000) j++;
        assert.ok(
          i - j + 1 <= 600,
          `at most 600 in any 60 s window (${i - j + 1} at ${times[i] - start} ms)`,
        );
      }
      // 950 sends at 600/min take about 95 s of the clock: paced, not bursted, not stalled.
      const span = times[times.length - 1] - times[0];
      assert.ok(span >= 94_000 && span < 130_000, `span ${span} ms`);
    } finally {
      useMessagingClock(null);
    }
  },
);
