/**
 * send-bulk (queued, then sent by messaging-bulk-worker), the daily quota (per UTC day) and
 * max_send_rate pacing, on a virtual clock: the waits advance it instead of taking real time,
 * and logs are stamped with it. The queue itself: bulk_queue_test.ts.
 */
import assert from "node:assert/strict";
import { useMessagingClock, VirtualClock } from "@shared/messaging/clock.ts";
import { platformTest } from "../helpers/platform.ts";
import { call, logsOf, phone, runWorker, setup } from "./helpers.ts";

function virtualClock(iso: string): VirtualClock {
  const clock = new VirtualClock(Date.parse(iso));
  useMessagingClock(clock);
  return clock;
}

platformTest(
  "send-bulk: per-recipient variables, opted-out recipients skipped, the spec's summary",
  async (p) => {
    const s = await setup(p, "bulk");
    useMessagingClock(null);
    const [a, b, c] = [phone(), phone(), phone()];
    await p.db.query(
      `insert into public.messaging_optouts (workspace_id, phone_number, channel_type, reason, source)
     values ($1, $2, 'all', 'asked by phone', 'manual')`,
      [s.ws, b],
    );
    const r = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk",
      channel: "sms",
      content: "Hi {{name}}, {{offer}}",
      variables: { offer: "10% off tiles" },
      recipients: [{ to: a, variables: { name: "Ana" } }, { to: b, variables: { name: "Bo" } }, {
        to: c,
        variables: { name: "Cy", offer: "free delivery" },
      }, { to: "12345" }],
      tags: { campaign: "spring" },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    assert.match(r.body.bulkId as string, /^[0-9a-f-]{36}$/);
    assert.equal(r.body.total, 4);
    assert.equal(r.body.queued, 2);
    assert.equal(r.body.sent, 0, "nothing is sent inside the request");
    assert.equal(r.body.failed, 1);
    assert.equal(r.body.optedOut, 1);
    const results = r.body.results as { to: string; status: string; messageId?: string; error?: string }[];
    assert.deepEqual(results.map((x) => [x.to, x.status]), [[a, "queued"], [b, "opted_out"], [c, "queued"], [
      "12345",
      "failed",
    ]]);
    assert.match(results[3].error!, /E\.164/);
    assert.equal(s.tw.messages().length, 0);
    assert.equal((await runWorker(p)).status, 200);
    assert.deepEqual(
      s.tw.messages().map((m) => [m.to, m.body]).sort(),
      [[a, "Hi Ana, 10% off tiles"], [c, "Hi Cy, free delivery"]].sort(),
    );
    const logs = await logsOf(p, s.ws);
    assert.equal(logs.length, 2);
    assert.ok(logs.every((l) => l.bulk_id === r.body.bulkId && l.message_type === "marketing"));

    const allOut = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk",
      content: "x",
      recipients: [{ to: b }],
    });
    assert.equal(allOut.status, 400);
    assert.equal(allOut.body.error, "All recipients have opted out");
  },
);

platformTest("daily quota: counted per channel and UTC day, refused when used up", async (p) => {
  const s = await setup(p, "quota", { daily_quota: 3 });
  const clock = virtualClock("2026-03-10T23:58:00Z");
  try {
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "x" })).status,
        200,
      );
    }
    const over = await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "x" });
    assert.equal(over.status, 429);
    assert.equal(over.body.error, `Daily quota of 3 messages reached for sms channel ${s.smsSender}`);
    const bulk = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk",
      content: "x",
      recipients: [{ to: phone() }],
    });
    assert.equal(bulk.body.queued, 1);
    await runWorker(p);
    const refused = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk-status",
      bulkId: bulk.body.bulkId,
    });
    assert.deepEqual([refused.body.status, refused.body.failed, refused.body.sent], ["completed", 1, 0]);
    assert.equal((refused.body.results as { error: string }[])[0].error, over.body.error);
    // The WhatsApp channel has its own quota.
    assert.equal(
      (await call(p, s.member, {
        workspaceId: s.ws,
        action: "send",
        channel: "whatsapp",
        to: phone(),
        content: "x",
      })).status,
      200,
    );

    clock.time = Date.parse("2026-03-11T00:00:05Z"); // a new UTC day
    const next = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk",
      content: "x",
      recipients: [{ to: phone() }, { to: phone() }, { to: phone() }, { to: phone() }],
    });
    await runWorker(p);
    const nextStatus = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk-status",
      bulkId: next.body.bulkId,
    });
    assert.equal(nextStatus.body.sent, 3);
    assert.equal(nextStatus.body.failed, 1);
    assert.equal(s.tw.messages().length, 7);
    const sms = (await logsOf(p, s.ws)).filter((l) => l.from_number === s.smsSender);
    assert.equal(sms.length, 6, "refused sends leave no log; every attempt does");
  } finally {
    useMessagingClock(null);
  }
});

platformTest("max_send_rate paces a bulk (2 a minute): spaced 30 s apart, none dropped", async (p) => {
  const s = await setup(p, "rate", { max_send_rate: 2 });
  const start = Date.parse("2026-05-01T09:00:00Z");
  const clock = virtualClock("2026-05-01T09:00:00Z");
  try {
    const recipients = Array.from({ length: 5 }, () => ({ to: phone() }));
    const r = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send-bulk",
      content: "Paced",
      recipients,
    });
    assert.equal(r.body.queued, 5);
    // Each run sends for at most 50 s of the clock; runs follow one another as pg_cron's would.
    for (let i = 0; i < 10 && s.tw.messages().length < 5; i++) {
      assert.equal((await runWorker(p)).status, 200);
      clock.time = Math.max(clock.time, start + (i + 1) * 30_000);
    }
    const times = (await logsOf(p, s.ws)).map((l) => (l.created_at.getTime() - start) / 1000);
    assert.deepEqual(times, [0, 30, 60, 90, 120]);
    assert.equal(s.tw.messages().length, 5);
    // A send after the bulk waits for its slot in the same window.
    assert.equal(
      (await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "after" })).status,
      200,
    );
    const all = (await logsOf(p, s.ws)).map((l) => l.created_at.getTime());
    for (const t of all) assert.ok(all.filter((u) => u >= t && u < t + 60_000).length <= 2);
  } finally {
    useMessagingClock(null);
  }
});
