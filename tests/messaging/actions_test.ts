/**
 * messaging-api's other actions (channels, templates, logs, analytics, balance, send-test,
 * sync-channels, get-settings, update-settings) and the tables' RLS: members read, admins
 * manage channels, templates and settings, nobody but the service path writes logs.
 */
import assert from "node:assert/strict";
import { useMessagingClock, VirtualClock } from "@shared/messaging/clock.ts";
import { platformTest } from "../helpers/platform.ts";
import { call, logsOf, phone, setup } from "./helpers.ts";

platformTest("channels and templates: listed for members, filtered by channelType", async (p) => {
  const s = await setup(p, "act-list");
  await p.db.query(
    `insert into public.messaging_templates (workspace_id, name, slug, channel_type, content)
     values ($1, 'A', 'a', 'sms', 'x'), ($1, 'B', 'b', 'whatsapp', 'y')`,
    [s.ws],
  );
  const all = await call(p, s.viewer, { workspaceId: s.ws, action: "channels" });
  assert.equal(all.status, 200);
  const channels = all.body.channels as {
    id: string;
    channel_type: string;
    sender_id: string;
    daily_quota: number;
  }[];
  assert.deepEqual(channels.map((c) => c.id).sort(), [s.smsChannel, s.waChannel].sort());
  assert.equal(channels[0].daily_quota, 1000);
  const wa = await call(p, s.viewer, { workspaceId: s.ws, action: "channels", channelType: "whatsapp" });
  assert.deepEqual((wa.body.channels as { id: string }[]).map((c) => c.id), [s.waChannel]);
  const tpl = await call(p, s.viewer, { workspaceId: s.ws, action: "templates", channelType: "sms" });
  assert.deepEqual((tpl.body.templates as { slug: string }[]).map((t) => t.slug), ["a"]);
  assert.equal(
    ((await call(p, s.viewer, { workspaceId: s.ws, action: "templates" })).body.templates as unknown[])
      .length,
    2,
  );
  // The outsider sees none of it, even naming the workspace.
  assert.equal((await call(p, s.outsider, { action: "channels", workspaceId: s.ws })).status, 404);
  assert.deepEqual(
    (await call(p, s.outsider, { workspaceId: s.otherWs, action: "channels" })).body.channels,
    [],
  );
});

platformTest("logs: newest first, filters in both spellings, limit 50 by default, offset", async (p) => {
  const s = await setup(p, "act-logs");
  const clock = new VirtualClock(Date.parse("2026-06-01T10:00:00Z"));
  useMessagingClock(clock);
  try {
    for (let i = 0; i < 53; i++) {
      clock.time += 1000;
      await p.db.query(
        `insert into public.messaging_logs (workspace_id, channel_type, channel_id, from_number, to_number,
           content, status, message_type, created_at) values ($1, 'sms', $2, $3, $4, $5, $6, $7, $8)`,
        [
          s.ws,
          s.smsChannel,
          s.smsSender,
          phone(),
          `m${i}`,
          i % 2 ? "delivered" : "failed",
          i < 3 ? "otp" : "marketing",
          new Date(clock.time),
        ],
      );
    }
    clock.time += 1000;
    const wa = await call(p, s.member, {
      workspaceId: s.ws,
      action: "send",
      channel: "whatsapp",
      to: phone(),
      content: "wa",
    });
    assert.equal(wa.status, 200);
    const page = await call(p, s.viewer, { workspaceId: s.ws, action: "logs" });
    const logs = page.body.logs as { content: string; channel_type: string }[];
    assert.equal(logs.length, 50);
    assert.equal(logs[0].content, "wa");
    assert.equal(logs[1].content, "m52");
    const next = await call(p, s.viewer, { workspaceId: s.ws, action: "logs", limit: 10, offset: 50 });
    assert.deepEqual((next.body.logs as { content: string }[]).map((l) => l.content), [
      "m3",
      "m2",
      "m1",
      "m0",
    ]);
    const byChannel = await call(p, s.viewer, { workspaceId: s.ws, action: "logs", channel: "whatsapp" });
    assert.deepEqual((byChannel.body.logs as { content: string }[]).map((l) => l.content), ["wa"]);
    const byType = await call(p, s.viewer, {
      workspaceId: s.ws,
      action: "logs",
      channelType: "sms",
      status: "delivered",
      messageType: "otp",
    });
    assert.deepEqual((byType.body.logs as { content: string }[]).map((l) => l.content), ["m1"]);
  } finally {
    useMessagingClock(null);
  }
});

platformTest(
  "analytics: totals, rates, daily data and the summary, by dateRange or startDate/endDate",
  async (p) => {
    const s = await setup(p, "act-stats");
    const rows: [string, string, string, string | null][] = [
      ["2026-04-01T08:00:00Z", "sms", "delivered", "0.0079"],
      ["2026-04-01T09:00:00Z", "sms", "failed", null],
      ["2026-04-01T10:00:00Z", "whatsapp", "read", "0.005"],
      ["2026-04-02T10:00:00Z", "sms", "sent", "0.0079"],
      ["2026-04-05T10:00:00Z", "sms", "delivered", "1"], // outside the range
    ];
    for (const [at, type, status, cost] of rows) {
      await p.db.query(
        `insert into public.messaging_logs (workspace_id, channel_type, from_number, to_number, status, cost, created_at)
       values ($1, $2, '+15550000000', '+15550000001', $3, $4, $5)`,
        [s.ws, type, status, cost, at],
      );
    }
    const a = await call(p, s.viewer, {
      workspaceId: s.ws,
      action: "analytics",
      dateRange: { start: "2026-04-01", end: "2026-04-02" },
    });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const b = await call(p, s.viewer, {
      workspaceId: s.ws,
      action: "analytics",
      startDate: "2026-04-01",
      endDate: "2026-04-02",
    });
    assert.deepEqual(a.body, b.body);
    assert.equal(a.body.totalSent, 4);
    assert.equal(a.body.totalDelivered, 2);
    assert.equal(a.body.totalRead, 1);
    assert.equal(a.body.totalFailed, 1);
    assert.equal(Number(a.body.totalCost), 0.0208);
    assert.equal(a.body.deliveryRate, 50);
    assert.equal(a.body.readRate, 25);
    assert.equal(a.body.failureRate, 25);
    assert.deepEqual(
      (a.body.dailyData as Record<string, unknown>[]).map((
        d,
      ) => [
        d.date,
        d.channel_type,
        d.total_sent,
        d.total_delivered,
        d.total_read,
        d.total_failed,
        Number(d.total_cost),
      ]),
      [
        ["2026-04-01", "sms", 2, 1, 0, 1, 0.0079],
        ["2026-04-01", "whatsapp", 1, 1, 1, 0, 0.005],
        ["2026-04-02", "sms", 1, 0, 0, 0, 0.0079],
      ],
    );
    assert.equal(a.body.total, 4);
    assert.deepEqual(a.body.byStatus, { delivered: 1, failed: 1, read: 1, sent: 1 });
    assert.deepEqual(a.body.byChannel, { sms: 3, whatsapp: 1 });
    const wa = await call(p, s.viewer, {
      workspaceId: s.ws,
      action: "analytics",
      channelType: "whatsapp",
      startDate: "2026-04-01",
      endDate: "2026-04-30",
    });
    assert.equal(wa.body.totalSent, 1);
    const bad = await call(p, s.viewer, {
      workspaceId: s.ws,
      action: "analytics",
      startDate: "2026-04-05",
      endDate: "2026-04-01",
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "The date range must start before it ends");
    // Another workspace's analytics count nothing of ours.
    const other = await call(p, s.outsider, {
      workspaceId: s.otherWs,
      action: "analytics",
      startDate: "2026-04-01",
      endDate: "2026-04-30",
    });
    assert.equal(other.body.totalSent, 0);
  },
);

platformTest("balance and sync-channels: admins only, from the provider", async (p) => {
  const s = await setup(p, "act-prov");
  s.tw.setBalance("12.34", "EUR");
  const bal = await call(p, s.admin, { action: "balance", workspaceId: s.ws });
  assert.equal(bal.status, 200);
  assert.deepEqual(bal.body, {
    success: true,
    balance: 12.34,
    currency: "EUR",
    raw: { account_sid: s.tw.accountSid, balance: "12.34", currency: "EUR" },
  });
  assert.equal((await call(p, s.member, { action: "balance", workspaceId: s.ws })).status, 403);
  s.tw.failNext(401, { message: "Authenticate" });
  const refused = await call(p, s.admin, { action: "balance", workspaceId: s.ws });
  assert.equal(refused.status, 502);
  assert.equal(refused.body.error, "the service API error");

  const fresh = phone();
  s.tw.addIncomingNumber({ phoneNumber: s.smsSender, friendlyName: "already ours" })
    .addIncomingNumber({ phoneNumber: fresh, friendlyName: "Store line" })
    .addIncomingNumber({ phoneNumber: phone(), sms: false });
  // A number another workspace already has stays theirs.
  const theirs = phone();
  await p.db.query(
    `insert into public.messaging_channels (workspace_id, channel_type, sender_id) values ($1, 'sms', $2)`,
    [s.otherWs, theirs],
  );
  s.tw.addIncomingNumber({ phoneNumber: theirs });
  assert.equal((await call(p, s.member, { action: "sync-channels", workspaceId: s.ws })).status, 403);
  const sync = await call(p, s.owner, { action: "sync-channels", workspaceId: s.ws });
  assert.equal(sync.status, 200, JSON.stringify(sync.body));
  // synced is a count (what clients read), the numbers and the channels come with it.
  assert.equal(sync.body.synced, 1);
  assert.deepEqual(sync.body.syncedNumbers, [fresh]);
  assert.deepEqual(sync.body.skipped, [theirs]);
  assert.deepEqual(
    (sync.body.channels as { sender_id: string }[]).map((c) => c.sender_id).sort(),
    [s.smsSender, s.waSender, fresh].sort(),
  );
  const added = (sync.body.channels as { sender_id: string; display_name: string; is_default: boolean }[])
    .find((c) => c.sender_id === fresh)!;
  assert.equal(added.display_name, "Store line");
  assert.equal(added.is_default, false, "the workspace already had a default SMS channel");
  const again = await call(p, s.owner, { action: "sync-channels", workspaceId: s.ws });
  assert.equal(again.body.synced, 0);
  assert.deepEqual(again.body.syncedNumbers, []);
});

platformTest("send-test: by campaign (template) or by channel and content", async (p) => {
  const s = await setup(p, "act-test");
  const t = await p.db.query<{ id: string }>(
    `insert into public.messaging_templates (workspace_id, name, slug, channel_type, content)
     values ($1, 'Promo', 'promo', 'whatsapp', 'Spring promo: {{pct}}% off') returning id`,
    [s.ws],
  );
  const to = phone();
  const byCampaign = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send-test",
    campaignId: t.rows[0].id,
    testNumber: to,
    variables: { pct: 15 },
  });
  assert.equal(byCampaign.status, 200, JSON.stringify(byCampaign.body));
  assert.deepEqual(Object.keys(byCampaign.body).sort(), ["messageId", "success"]);
  const byContent = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send-test",
    channel: "sms",
    testNumber: to,
    content: "Test",
  });
  assert.equal(byContent.status, 200);
  assert.deepEqual(s.tw.messages().map((m) => [m.to, m.body]), [[`whatsapp:${to}`, "Spring promo: 15% off"], [
    to,
    "Test",
  ]]);
  const missing = await call(p, s.member, { workspaceId: s.ws, action: "send-test", testNumber: to });
  assert.equal(missing.status, 400);
  const unknown = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send-test",
    campaignId: crypto.randomUUID(),
    testNumber: to,
  });
  assert.equal(unknown.body.error, "Template not found");
  assert.equal((await logsOf(p, s.ws)).length, 2);
});

platformTest("settings: members read, admins update", async (p) => {
  const s = await setup(p, "act-settings");
  assert.deepEqual((await call(p, s.member, { workspaceId: s.ws, action: "get-settings" })).body, {
    success: true,
    settings: {},
  });
  const denied = await call(p, s.member, {
    workspaceId: s.ws,
    action: "update-settings",
    settings: { quietHours: "22-08" },
  });
  assert.equal(denied.status, 403);
  const saved = await call(p, s.admin, {
    workspaceId: s.ws,
    action: "update-settings",
    settings: { quietHours: "22-08", sender: "Shop" },
  });
  assert.deepEqual(saved.body, { success: true, settings: { quietHours: "22-08", sender: "Shop" } });
  assert.deepEqual((await call(p, s.viewer, { workspaceId: s.ws, action: "get-settings" })).body.settings, {
    quietHours: "22-08",
    sender: "Shop",
  });
  const bad = await call(p, s.admin, { workspaceId: s.ws, action: "update-settings", settings: "loud" });
  assert.equal(bad.status, 400);
});

platformTest(
  "RLS: members read, admins manage channels and templates, nobody writes logs directly",
  async (p) => {
    const s = await setup(p, "act-rls");
    const sender = phone();
    const asMember = await s.member.client.from("messaging_channels").insert({
      workspace_id: s.ws,
      channel_type: "sms",
      sender_id: sender,
    });
    assert.ok(asMember.error, "a member cannot add channels");
    const asAdmin = await s.admin.client.from("messaging_channels").insert({
      workspace_id: s.ws,
      channel_type: "sms",
      sender_id: sender,
    }).select("id").single();
    assert.equal(asAdmin.error, null);
    const asOutsider = await s.outsider.client.from("messaging_templates").insert({
      workspace_id: s.ws,
      name: "x",
      slug: "x",
      channel_type: "sms",
      content: "x",
    });
    assert.ok(asOutsider.error, "an outsider cannot add templates to our workspace");
    const tpl = await s.admin.client.from("messaging_templates").insert({
      workspace_id: s.ws,
      name: "x",
      slug: "x",
      channel_type: "sms",
      content: "x",
    });
    assert.equal(tpl.error, null);
    const memberEdit = await s.member.client.from("messaging_templates").update({ content: "y" }).eq(
      "slug",
      "x",
    )
      .select("id");
    assert.deepEqual(memberEdit.data, []);
    for (const u of [s.owner, s.admin, s.member]) {
      const forged = await u.client.from("messaging_logs").insert({
        workspace_id: s.ws,
        channel_type: "sms",
        from_number: s.smsSender,
        to_number: phone(),
        status: "delivered",
      });
      assert.ok(forged.error, "logs are written only by the service path");
    }
    await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "x" });
    const [log] = await logsOf(p, s.ws);
    const tamper = await s.owner.client.from("messaging_logs").update({ status: "read" }).eq("id", log.id)
      .select("id");
    assert.ok(tamper.error || (tamper.data ?? []).length === 0);
    assert.equal((await logsOf(p, s.ws))[0].status, "sent");
    assert.equal((await s.viewer.client.from("messaging_logs").select("id")).data?.length, 1);
    assert.equal((await s.outsider.client.from("messaging_logs").select("id")).data?.length, 0);
    assert.equal((await s.outsider.client.from("messaging_channels").select("id")).data?.length, 0);
    const rpc = await s.owner.client.rpc("messaging_apply_status", {
      sid: log.provider_message_id,
      provider_status: "delivered",
      at: new Date().toISOString(),
    });
    assert.equal(rpc.error?.code, "42501", "only the service role applies status callbacks");
    // messaging_analytics runs as the caller: an outsider naming our workspace counts nothing.
    const stats = await s.outsider.client.rpc("messaging_analytics", {
      ws: s.ws,
      start_at: "2000-01-01T00:00:00Z",
      end_at: "2100-01-01T00:00:00Z",
      only_type: null,
    });
    assert.deepEqual(stats.data, {
      totalSent: 0,
      totalDelivered: 0,
      totalRead: 0,
      totalFailed: 0,
      totalCost: 0,
      deliveryRate: 0,
      readRate: 0,
      failureRate: 0,
      dailyData: [],
      total: 0,
      byStatus: {},
      byChannel: {},
    });
    const mine = await s.owner.client.rpc("messaging_analytics", {
      ws: s.ws,
      start_at: "2000-01-01T00:00:00Z",
      end_at: "2100-01-01T00:00:00Z",
      only_type: null,
    });
    assert.equal(mine.data.totalSent, 1);
  },
);
