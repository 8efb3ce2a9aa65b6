/**
 * analytics over a seeded event history: emails logged as the API logs them, then their
 * delivery events delivered through the signed webhook with the days they happened on, and the
 * totals, rates and dailyData checked against the history worked out by hand.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import type { ResendEventType } from "../../stack/sandbox/providers/resend.ts";
import { emailApi, resendOf, team } from "./helpers.ts";

/** A log as send() leaves it before the provider's events, plus the stand-in's copy of the email. */
async function seedEmail(p: Platform, workspaceId: string, from: string, to: string): Promise<string> {
  const resend = resendOf(p);
  const id = crypto.randomUUID();
  await p.db.query(
    `insert into public.email_logs (workspace_id, from_email, to_emails, subject, email_type, provider_message_id)
     values ($1, $2, array[$3], 'Seeded', 'transactional', $4)`,
    [workspaceId, from, to, id],
  );
  resend.emails.set(id, {
    object: "email",
    id,
    from,
    to: [to],
    cc: [],
    bcc: [],
    reply_to: [],
    subject: "Seeded",
    html: "<p>Seeded</p>",
    text: null,
    tags: [],
    headers: {},
    created_at: new Date().toISOString(),
    last_event: "queued",
    events: [],
  });
  return id;
}

platformTest(
  "analytics: totals, rates and dailyData match the seeded history; days without mail are zeros",
  async (p) => {
    const resend = resendOf(p);
    resend.reset();
    const t = await team(p);
    const other = await team(p);
    const ids: Record<string, string> = {};
    for (const name of ["A", "B", "C", "D", "E", "F"]) {
      ids[name] = await seedEmail(p, t.workspaceId, t.from, `${name.toLowerCase()}@example.org`);
    }
    const noise = await seedEmail(p, other.workspaceId, other.from, "z@example.org");
    const history: [string, string, ResendEventType][] = [
      ["2026-11-01T08:00:00Z", "A", "email.sent"],
      ["2026-11-01T08:00:00Z", "B", "email.sent"],
      ["2026-11-01T08:00:00Z", "C", "email.sent"],
      ["2026-11-01T08:00:00Z", "D", "email.sent"],
      ["2026-11-01T08:01:00Z", "A", "email.delivered"],
      ["2026-11-01T08:01:00Z", "B", "email.delivered"],
      ["2026-11-01T08:01:00Z", "C", "email.bounced"],
      ["2026-11-01T08:01:00Z", "D", "email.delivered"],
      ["2026-11-01T09:00:00Z", "A", "email.opened"],
      ["2026-11-01T10:00:00Z", "A", "email.opened"],
      ["2026-11-01T10:05:00Z", "A", "email.clicked"],
      ["2026-11-01T11:00:00Z", "B", "email.opened"],
      ["2026-11-01T23:59:59Z", "D", "email.complained"],
      ["2026-11-02T00:00:00Z", "E", "email.sent"],
      ["2026-11-02T00:00:00Z", "F", "email.sent"],
      ["2026-11-02T00:01:00Z", "E", "email.delivered"],
      ["2026-11-02T00:01:00Z", "F", "email.delivery_delayed"],
      ["2026-11-03T06:00:00Z", "F", "email.delivered"],
      ["2026-11-03T07:00:00Z", "E", "email.opened"],
    ];
    for (const [at, name, type] of history) {
      const r = await resend.deliver({ ...resend.event(ids[name], type), created_at: at });
      assert.equal(JSON.parse(r.body).outcome, "applied", `${name} ${type}`);
    }
    await resend.deliver({ ...resend.event(noise, "email.sent"), created_at: "2026-11-01T08:00:00Z" });

    const r = await emailApi(p, t.viewer.accessToken, {
      workspaceId: t.workspaceId,
      action: "analytics",
      dateRange: { start: "2026-10-31", end: "2026-11-03T23:59:59Z" },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const zero = { sent: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, clicked: 0 };
    assert.deepEqual(r.body, {
      success: true,
      totalSent: 6,
      totalDelivered: 5,
      totalBounced: 1,
      totalComplained: 1,
      totalOpened: 3,
      totalClicked: 1,
      deliveryRate: 83.33, // 5 of 6 sent
      bounceRate: 16.67, // 1 of 6 sent
      complaintRate: 20, // 1 of 5 delivered
      openRate: 60, // 3 of 5 delivered
      clickRate: 20, // 1 of 5 delivered
      dailyData: [
        { date: "2026-10-31", ...zero },
        { date: "2026-11-01", sent: 4, delivered: 3, bounced: 1, complained: 1, opened: 2, clicked: 1 },
        { date: "2026-11-02", ...zero, sent: 2, delivered: 1 },
        { date: "2026-11-03", ...zero, delivered: 1, opened: 1 },
      ],
    });

    const oneDay = await emailApi(p, t.member.accessToken, {
      workspaceId: t.workspaceId,
      action: "analytics",
      dateRange: { start: "2026-11-02", end: "2026-11-02" },
    });
    assert.deepEqual(
      [oneDay.body.totalSent, oneDay.body.totalDelivered, oneDay.body.deliveryRate, oneDay.body.openRate],
      [2, 1, 50, 0],
    );
  },
);

platformTest("analytics: the last 30 days by default; a bad range is a 400; outsiders get 404", async (p) => {
  const t = await team(p);
  const r = await emailApi(p, t.viewer.accessToken, { workspaceId: t.workspaceId, action: "analytics" });
  assert.equal(r.status, 200);
  const days = r.body.dailyData as { date: string }[];
  assert.equal(days.length, 30);
  assert.equal(days[29].date, new Date().toISOString().slice(0, 10));
  assert.deepEqual([r.body.totalSent, r.body.deliveryRate, r.body.openRate], [0, 0, 0]);
  for (
    const dateRange of [
      { start: "2026-11-05", end: "2026-11-01" },
      { start: "2024-01-01", end: "2026-01-01" },
      { start: "yesterday", end: "2026-11-01" },
      { start: "2026-02-30", end: "2026-03-01" },
    ]
  ) {
    const bad = await emailApi(p, t.viewer.accessToken, {
      workspaceId: t.workspaceId,
      action: "analytics",
      dateRange,
    });
    assert.equal(bad.status, 400, JSON.stringify(dateRange));
  }
  const other = await team(p);
  const outsider = await emailApi(p, other.owner.accessToken, {
    action: "analytics",
    workspaceId: t.workspaceId,
  });
  assert.equal(outsider.status, 404);
});
