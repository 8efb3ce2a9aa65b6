/**
 * email-webhooks: Svix signatures (forged, stale, future, tampered, unsigned, replayed), the
 * event -> log/analytics mapping, suppression after hard bounces and complaints, unsubscribes
 * for marketing, and the sending domain's rates and reputation.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { emailApi, logRow, resendOf, send, team } from "./helpers.ts";

async function today(p: Platform, workspaceId: string): Promise<Record<string, number>> {
  const r = await p.db.query<Record<string, number>>(
    `select sent, delivered, delivery_delayed, bounced, complained, opened, clicked, failed
       from public.email_analytics where workspace_id = $1 and date = (now() at time zone 'utc')::date`,
    [workspaceId],
  );
  return r.rows[0] ?? {};
}

platformTest("signed events move the log and count once per email in the day's analytics", async (p) => {
  const resend = resendOf(p);
  resend.reset();
  const t = await team(p);
  const { messageId, logId } = await send(p, t.member, t);
  assert.deepEqual(await today(p, t.workspaceId), {
    sent: 1,
    delivered: 0,
    delivery_delayed: 0,
    bounced: 0,
    complained: 0,
    opened: 0,
    clicked: 0,
    failed: 0,
  });
  const steps: [Parameters<typeof resend.emit>[1], string][] = [
    ["email.sent", "sent"],
    ["email.delivery_delayed", "sent"],
    ["email.delivered", "delivered"],
    ["email.opened", "delivered"],
    ["email.opened", "delivered"],
    ["email.clicked", "delivered"],
  ];
  for (const [type, status] of steps) {
    const r = await resend.emit(messageId, type);
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(JSON.parse(r.body), { received: true, type, outcome: "applied" });
    assert.equal((await logRow(p, logId)).status, status, type);
  }
  const log = await logRow(p, logId);
  assert.ok(log.delivered_at && log.opened_at && log.clicked_at && log.delayed_at);
  assert.equal(log.open_count, 2);
  assert.equal(log.click_count, 1);
  assert.deepEqual(await today(p, t.workspaceId), {
    sent: 1, // the API counted it; email.sent does not count it again
    delivered: 1,
    delivery_delayed: 1,
    bounced: 0,
    complained: 0,
    opened: 1, // two opens, one email opened
    clicked: 1,
    failed: 0,
  });
  // A late delivered after a complaint does not move the log back.
  await resend.emit(messageId, "email.complained");
  await resend.emit(messageId, "email.delivered");
  assert.equal((await logRow(p, logId)).status, "complained");
  assert.equal((await today(p, t.workspaceId)).complained, 1);
});

platformTest(
  "forged, tampered, unsigned, stale and future deliveries are 401 and change nothing",
  async (p) => {
    const resend = resendOf(p);
    resend.reset();
    const t = await team(p);
    const { messageId, logId } = await send(p, t.member, t);
    const forged = `whsec_${btoa("not the endpoint's secret, 32 by")}`;
    // Timestamps are taken at each attempt: under load the loop can take seconds, and a stale
    // "now + 301" would drift back inside the 300 s window.
    const now = () => Math.floor(Date.now() / 1000);
    const attempts = [
      () => ({ secret: forged }),
      () => ({ tamper: (b: string) => b.replace('"email.delivered"', '"email.bounced"') }),
      () => ({ sign: false }),
      () => ({ timestamp: now() - 310 }),
      () => ({ timestamp: now() + 310 }),
    ];
    for (const attempt of attempts) {
      const opts = attempt();
      const r = await resend.emit(messageId, "email.delivered", opts);
      assert.equal(r.status, 401, JSON.stringify({ opts: Object.keys(opts), body: r.body }));
      assert.equal(JSON.parse(r.body).code, "invalid_signature");
    }
    assert.equal((await logRow(p, logId)).status, "sent");
    assert.equal((await today(p, t.workspaceId)).delivered, 0);
    // A timestamp inside the window is accepted.
    const ok = await resend.emit(messageId, "email.delivered", { timestamp: now() - 240 });
    assert.equal(ok.status, 200, ok.body);
    assert.equal((await logRow(p, logId)).status, "delivered");
  },
);

platformTest("a replayed svix-id is acknowledged and ignored", async (p) => {
  const resend = resendOf(p);
  resend.reset();
  const t = await team(p);
  const { messageId, logId } = await send(p, t.member, t);
  const event = resend.event(messageId, "email.opened");
  const first = await resend.deliver(event, { svixId: "msg_replayed_once" });
  assert.equal(JSON.parse(first.body).outcome, "applied");
  const again = await resend.deliver(event, { svixId: "msg_replayed_once" });
  assert.equal(again.status, 200);
  assert.equal(JSON.parse(again.body).outcome, "duplicate");
  assert.equal((await logRow(p, logId)).open_count, 1);
  // The same event under a fresh svix-id is a new delivery (a second open).
  await resend.deliver(event);
  assert.equal((await logRow(p, logId)).open_count, 2);
});

platformTest(
  "unknown emails and other event types are acknowledged; a body that is no event is a 400",
  async (p) => {
    const resend = resendOf(p);
    resend.reset();
    const t = await team(p);
    const { messageId } = await send(p, t.member, t);
    const unknown = await resend.deliver({
      type: "email.delivered",
      created_at: new Date().toISOString(),
      data: { email_id: crypto.randomUUID(), to: ["x@example.org"] },
    });
    assert.equal(JSON.parse(unknown.body).outcome, "unknown_email");
    const other = await resend.deliver({
      type: "domain.updated",
      created_at: new Date().toISOString(),
      data: {},
    });
    assert.deepEqual(JSON.parse(other.body), { received: true, type: "domain.updated", outcome: "ignored" });
    const bad = await resend.deliver({ type: "email.delivered", data: { to: [] } });
    assert.equal(bad.status, 400);
    const notJson = await resend.deliver(resend.event(messageId, "email.sent"), { tamper: () => "not json" });
    assert.equal(notJson.status, 401); // the signature covers the body: tampering is caught first
  },
);

platformTest(
  "a hard bounce suppresses the address for every email type; the refusal is logged",
  async (p) => {
    const resend = resendOf(p);
    resend.reset();
    const t = await team(p);
    const { messageId, logId } = await send(p, t.member, t, { to: "gone@example.org" });
    const r = await resend.emit(messageId, "email.bounced");
    assert.equal(r.status, 200, r.body);
    const log = await logRow(p, logId);
    assert.equal(log.status, "bounced");
    assert.equal(log.bounce_type, "Permanent");
    const sup = await t.viewer.client.from("email_suppressions").select("email, reason, source_log_id");
    assert.deepEqual(sup.data, [{ email: "gone@example.org", reason: "hard_bounce", source_log_id: logId }]);
    const before = resend.emails.size;
    for (const emailType of ["transactional", "marketing"]) {
      const again = await emailApi(p, t.member.accessToken, {
        workspaceId: t.workspaceId,
        action: "send",
        to: "Gone@example.org",
        from: t.from,
        subject: "Again",
        text: "x",
        emailType,
      });
      assert.equal(again.status, 422, JSON.stringify(again.body));
      assert.equal(again.body.code, "recipient_suppressed");
      assert.match(again.body.error as string, /gone@example\.org/);
    }
    assert.equal(resend.emails.size, before);
    const failed = await emailApi(p, t.viewer.accessToken, {
      workspaceId: t.workspaceId,
      action: "logs",
      status: "failed",
    });
    const logs = failed.body.logs as { subject: string; error_message: string }[];
    assert.equal(logs.length, 2);
    assert.ok(
      logs.every((l) =>
        l.subject === "Again" && /Suppressed recipients: gone@example\.org/.test(l.error_message)
      ),
    );
    // A transient bounce suppresses nothing.
    const soft = await send(p, t.member, t, { to: "full@example.org" });
    await resend.emit(soft.messageId, "email.bounced", {
      extra: { bounce: { type: "Transient", subType: "MailboxFull", message: "Mailbox full" } },
    });
    assert.equal((await logRow(p, soft.logId)).status, "bounced");
    await send(p, t.member, t, { to: "full@example.org" });
  },
);

platformTest("marketing email honours unsubscribes; a complaint suppresses every type", async (p) => {
  const resend = resendOf(p);
  resend.reset();
  const t = await team(p);
  // Admins record unsubscribes; members cannot, and nobody records a bounce by hand.
  const byMember = await t.member.client.from("email_suppressions")
    .insert({ workspace_id: t.workspaceId, email: "ana@example.org", reason: "unsubscribe" });
  assert.notEqual(byMember.error, null);
  const fakeBounce = await t.admin.client.from("email_suppressions")
    .insert({ workspace_id: t.workspaceId, email: "ana@example.org", reason: "hard_bounce" });
  assert.notEqual(fakeBounce.error, null);
  const unsub = await t.admin.client.from("email_suppressions")
    .insert({ workspace_id: t.workspaceId, email: "ana@example.org", reason: "unsubscribe" });
  assert.equal(unsub.error, null);

  const marketing = await emailApi(p, t.member.accessToken, {
    workspaceId: t.workspaceId,
    action: "send",
    to: "ana@example.org",
    cc: ["bo@example.org"],
    from: t.from,
    subject: "Spring sale",
    html: "<p>Sale</p>",
    emailType: "marketing",
  });
  assert.equal(marketing.status, 422);
  assert.equal(marketing.body.code, "recipient_suppressed");
  const logId = (marketing.body.details as { logId: string }).logId;
  const log = await logRow(p, logId);
  assert.equal(log.status, "failed");
  assert.equal(log.email_type, "marketing");
  assert.equal((await today(p, t.workspaceId)).failed, 1);
  // Transactional mail still reaches an unsubscribed address.
  await send(p, t.member, t, { to: "ana@example.org", emailType: "transactional" });

  const { messageId } = await send(p, t.member, t, { to: "bo@example.org" });
  await resend.emit(messageId, "email.complained");
  const tx = await emailApi(p, t.member.accessToken, {
    workspaceId: t.workspaceId,
    action: "send",
    to: "bo@example.org",
    from: t.from,
    subject: "Invoice",
    text: "x",
  });
  assert.equal(tx.status, 422);
});

platformTest(
  "bounces and complaints keep the domain's bounce_rate, complaint_rate and reputation current",
  async (p) => {
    const resend = resendOf(p);
    resend.reset();
    const t = await team(p);
    const sent = [];
    for (let i = 0; i < 10; i++) sent.push(await send(p, t.member, t, { to: `r${i}@example.org` }));
    const domainOf = async () => {
      const r = await emailApi(p, t.viewer.accessToken, { workspaceId: t.workspaceId, action: "domains" });
      const [d] = r.body.domains as {
        bounce_rate: number;
        complaint_rate: number;
        reputation_status: string;
      }[];
      return [d.bounce_rate, d.complaint_rate, d.reputation_status];
    };
    assert.deepEqual(await domainOf(), [0, 0, "good"]);
    await resend.emit(sent[0].messageId, "email.bounced");
    assert.deepEqual(await domainOf(), [10, 0, "poor"]);
    for (let i = 10; i < 20; i++) sent.push(await send(p, t.member, t, { to: `r${i}@example.org` }));
    assert.deepEqual(await domainOf(), [5, 0, "warning"]);
    for (let i = 20; i < 40; i++) sent.push(await send(p, t.member, t, { to: `r${i}@example.org` }));
    assert.deepEqual(await domainOf(), [2.5, 0, "good"]);
    await resend.emit(sent[1].messageId, "email.complained");
    assert.deepEqual(await domainOf(), [2.5, 2.5, "poor"]);
  },
);

platformTest("without RESEND_WEBHOOK_SECRET the webhook answers 503 and applies nothing", async (p) => {
  const resend = resendOf(p);
  resend.reset();
  const t = await team(p);
  const { messageId, logId } = await send(p, t.member, t);
  const secret = p.env.RESEND_WEBHOOK_SECRET;
  delete p.env.RESEND_WEBHOOK_SECRET;
  try {
    const r = await resend.emit(messageId, "email.delivered");
    assert.equal(r.status, 503);
    assert.equal(JSON.parse(r.body).code, "email_webhook_not_configured");
    assert.doesNotMatch(r.body, /whsec_/);
  } finally {
    p.env.RESEND_WEBHOOK_SECRET = secret;
  }
  assert.equal((await logRow(p, logId)).status, "sent");
});
