/** email-api action by action: send (plain, template, every field), domains, logs, refusals. */
import assert from "node:assert/strict";
import { createUser, platformTest } from "../helpers/platform.ts";
import { emailApi, logRow, resendOf, send, team, uniqueDomain } from "./helpers.ts";

platformTest(
  "send: html and text with cc, bcc, replyTo, tags and fromName reach the provider as Resend's wire body",
  async (p) => {
    const resend = resendOf(p);
    resend.reset();
    const t = await team(p);
    const r = await emailApi(p, t.member.accessToken, {
      workspaceId: t.workspaceId,
      action: "send",
      to: ["Ana@Example.org", "bo@example.org"],
      from: t.from,
      fromName: "Acme Tiles",
      subject: "Your quote Q-1",
      html: "<h1>Quote</h1><p>Attached.</p>",
      text: "Quote attached.",
      cc: ["sales@example.org"],
      bcc: ["archive@example.org"],
      replyTo: "support@example.org",
      tags: { campaign: "q-1", kind: "quote" },
      emailType: "transactional",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    const { messageId, logId } = r.body as unknown as { messageId: string; logId: string };
    // What the SDK put on the wire.
    const wire = resend.captures.all().find((c) => c.method === "POST" && c.path === "/emails")!;
    assert.equal(wire.headers.authorization, "[redacted]");
    assert.equal(wire.headers["idempotency-key"], `email-log/${logId}`);
    assert.deepEqual(wire.body, {
      from: `Acme Tiles <${t.from}>`,
      to: ["ana@example.org", "bo@example.org"],
      subject: "Your quote Q-1",
      html: "<h1>Quote</h1><p>Attached.</p>",
      text: "Quote attached.",
      cc: ["sales@example.org"],
      bcc: ["archive@example.org"],
      reply_to: "support@example.org",
      tags: [{ name: "campaign", value: "q-1" }, { name: "kind", value: "quote" }],
      headers: { "X-Entity-Ref-ID": logId },
    });
    assert.equal(resend.emails.get(messageId)?.subject, "Your quote Q-1");
    const log = await logRow(p, logId);
    assert.equal(log.status, "sent");
    assert.equal(log.provider_message_id, messageId);
    assert.equal(log.user_id, t.member.id);
    assert.equal(log.workspace_id, t.workspaceId);
    assert.deepEqual(log.to_emails, ["ana@example.org", "bo@example.org"]);
    assert.deepEqual(log.cc, ["sales@example.org"]);
    assert.deepEqual(log.bcc, ["archive@example.org"]);
    assert.equal(log.reply_to, "support@example.org");
    assert.equal(log.from_name, "Acme Tiles");
    assert.deepEqual(log.tags, { campaign: "q-1", kind: "quote" });
    assert.ok(log.sent_at);
  },
);

platformTest("send: templateSlug renders subject, HTML (escaped) and text with the variables", async (p) => {
  const resend = resendOf(p);
  resend.reset();
  const t = await team(p);
  const { error } = await t.admin.client.from("email_templates").insert({
    workspace_id: t.workspaceId,
    name: "Quote ready",
    slug: "quote-ready",
    subject: "Quote {{number}} is ready",
    html_content: "<p>Dear {{ name }}, total {{total}}</p>",
    text_content: "Dear {{name}}, total {{total}}",
    variables: ["name", "number", "total"],
  });
  assert.equal(error, null);
  const r = await emailApi(p, t.member.accessToken, {
    workspaceId: t.workspaceId,
    action: "send",
    to: "ana@example.org",
    from: t.from,
    templateSlug: "quote-ready",
    variables: { name: "Ana <script>", number: "Q-7", total: 120.5 },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const mail = resend.emails.get(r.body.messageId as string)!;
  assert.equal(mail.subject, "Quote Q-7 is ready");
  assert.equal(mail.html, "<p>Dear Ana &#60;script&#62;, total 120.5</p>");
  assert.equal(mail.text, "Dear Ana <script>, total 120.5");
  const log = await logRow(p, r.body.logId as string);
  assert.ok(log.template_id);
  assert.deepEqual(log.variables, { name: "Ana <script>", number: "Q-7", total: 120.5 });

  const missing = await emailApi(p, t.member.accessToken, {
    workspaceId: t.workspaceId,
    action: "send",
    to: "ana@example.org",
    from: t.from,
    templateSlug: "quote-ready",
    variables: { name: "Ana" },
  });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, "missing_variables");
  assert.match(missing.body.error as string, /number, total/);
  const unknown = await emailApi(p, t.member.accessToken, {
    workspaceId: t.workspaceId,
    action: "send",
    to: "ana@example.org",
    from: t.from,
    templateSlug: "no-such-template",
  });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error as string, /Template not found/);
});

platformTest("send: bad input is a 400 naming the field", async (p) => {
  const t = await team(p);
  const base = { action: "send", to: "a@example.org", from: t.from, subject: "Hi", html: "<p>x</p>" };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ html: undefined }, /Either html\/text or templateSlug is required/],
    [{ templateSlug: "x" }, /Give either html\/text or templateSlug/],
    [{ subject: undefined }, /subject/],
    [{ to: "not-an-email" }, /to/],
    [{ to: Array.from({ length: 51 }, (_, i) => `r${i}@example.org`) }, /to/],
    [{ cc: "a@example.org" }, /cc/],
    [{ tags: { "bad tag": "x" } }, /tags/],
    [{ emailType: "newsletter" }, /emailType/],
    [{ fromName: "Evil <x@y.z>" }, /fromName/],
  ];
  for (const [patch, message] of cases) {
    const r = await emailApi(p, t.member.accessToken, { workspaceId: t.workspaceId, ...base, ...patch });
    assert.equal(r.status, 400, JSON.stringify(patch));
    assert.match(r.body.error as string, message, JSON.stringify(r.body));
  }
});

platformTest("send: from must be at a verified domain of the caller's workspace", async (p) => {
  const resend = resendOf(p);
  resend.reset();
  const pending = await team(p, false);
  const r = await emailApi(p, pending.owner.accessToken, {
    workspaceId: pending.workspaceId,
    action: "send",
    to: "a@example.org",
    from: pending.from,
    subject: "Hi",
    text: "x",
  });
  assert.equal(r.status, 403);
  assert.equal(r.body.code, "unverified_sender");
  // Another workspace's verified domain does not help either.
  const other = await team(p);
  const r2 = await emailApi(p, pending.owner.accessToken, {
    workspaceId: pending.workspaceId,
    action: "send",
    to: "a@example.org",
    from: other.from,
    subject: "Hi",
    text: "x",
  });
  assert.equal(r2.status, 403);
  assert.equal(r2.body.code, "unverified_sender");
  assert.equal(resend.captures.all().filter((c) => c.path === "/emails").length, 0);
});

platformTest(
  "send: roles and tenancy: viewers may not send, outsiders see no workspace, anon is 401",
  async (p) => {
    const t = await team(p);
    const body = { action: "send", to: "a@example.org", from: t.from, subject: "Hi", text: "x" };
    const viewer = await emailApi(p, t.viewer.accessToken, { ...body, workspaceId: t.workspaceId });
    assert.equal(viewer.status, 403);
    const outsider = await createUser(p, "outsider");
    const r = await emailApi(p, outsider.accessToken, { ...body, workspaceId: t.workspaceId });
    assert.equal(r.status, 404);
    // Naming none, the outsider works in their only workspace (their personal one), where the
    // team's domain is not theirs to send from.
    const none = await emailApi(p, outsider.accessToken, body);
    assert.equal(none.status, 403);
    assert.equal(none.body.code, "unverified_sender");
    assert.equal((await emailApi(p, null, body)).status, 401);
    // A user in two workspaces (the team's and their personal one) names the one meant.
    const two = await emailApi(p, t.member.accessToken, body);
    assert.equal(two.status, 400);
    assert.equal(two.body.code, "workspace_required");
    assert.match(two.body.error as string, /^workspaceId is required: you belong to 2 workspaces/);
    assert.match(two.body.error as string, /personal workspace is not a default/);
    const named = await emailApi(p, t.member.accessToken, { ...body, workspaceId: t.workspaceId });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    // The service role acts for a named workspace (e.g. the flow engine's send_email).
    const service = await emailApi(p, p.config.serviceRoleKey, { ...body, workspaceId: t.workspaceId });
    assert.equal(service.status, 200, JSON.stringify(service.body));
    assert.equal((await logRow(p, service.body.logId as string)).user_id, null);
  },
);

platformTest("send: a provider error is a 502 and the log says failed", async (p) => {
  const resend = resendOf(p);
  resend.reset();
  const t = await team(p);
  resend.failNext(422, { message: "The domain is not verified at the provider." });
  const r = await emailApi(p, t.member.accessToken, {
    workspaceId: t.workspaceId,
    action: "send",
    to: "a@example.org",
    from: t.from,
    subject: "Hi",
    text: "x",
  });
  assert.equal(r.status, 502);
  assert.equal(r.body.code, "email_provider_error");
  assert.match(r.body.error as string, /The domain is not verified at the provider/);
  const logs = await p.db.query<{ status: string; error_message: string }>(
    `select status, error_message from public.email_logs where workspace_id = $1`,
    [t.workspaceId],
  );
  assert.equal(logs.rows.length, 1);
  assert.equal(logs.rows[0].status, "failed");
  assert.match(logs.rows[0].error_message, /not verified at the provider/);
});

platformTest(
  "add-domain: admins only (read from workspace_members), pending, registered with the provider",
  async (p) => {
    const resend = resendOf(p);
    resend.reset();
    const t = await team(p, false);
    const domain = uniqueDomain("news");
    for (const u of [t.member, t.viewer]) {
      const r = await emailApi(p, u.accessToken, {
        workspaceId: t.workspaceId,
        action: "add-domain",
        domain,
      });
      assert.equal(r.status, 403, JSON.stringify(r.body));
    }
    // A claim in user_metadata changes nothing: the role comes from the database.
    await t.member.client.auth.updateUser({ data: { role: "admin" } });
    assert.equal(
      (await emailApi(p, t.member.accessToken, { workspaceId: t.workspaceId, action: "add-domain", domain }))
        .status,
      403,
    );

    const r = await emailApi(p, t.admin.accessToken, {
      workspaceId: t.workspaceId,
      action: "add-domain",
      domain: ` ${domain.toUpperCase()} `,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const d = r.body.domain as Record<string, unknown>;
    assert.deepEqual(Object.keys(d).sort(), ["created_at", "domain", "id", "verification_status"]);
    assert.equal(d.domain, domain);
    assert.equal(d.verification_status, "pending");
    assert.match(r.body.message as string, /DNS/);
    assert.equal([...resend.domains.values()].some((x) => x.name === domain), true);
    const dup = await emailApi(p, t.owner.accessToken, {
      workspaceId: t.workspaceId,
      action: "add-domain",
      domain,
    });
    assert.equal(dup.status, 409);
    const bad = await emailApi(p, t.owner.accessToken, {
      workspaceId: t.workspaceId,
      action: "add-domain",
      domain: "not a domain",
    });
    assert.equal(bad.status, 400);
  },
);

platformTest(
  "mark-domain-verified: admins only; unknown domain 404; a domain is verified for one workspace",
  async (p) => {
    const t = await team(p, false);
    assert.equal(
      (await emailApi(p, t.member.accessToken, {
        workspaceId: t.workspaceId,
        action: "mark-domain-verified",
        domain: t.domain,
      })).status,
      403,
    );
    const unknown = await emailApi(p, t.admin.accessToken, {
      workspaceId: t.workspaceId,
      action: "mark-domain-verified",
      domain: uniqueDomain(),
    });
    assert.equal(unknown.status, 404);
    const ok = await emailApi(p, t.admin.accessToken, {
      workspaceId: t.workspaceId,
      action: "mark-domain-verified",
      domain: t.domain,
    });
    assert.deepEqual([ok.status, ok.body], [200, { success: true }]);
    const list = await emailApi(p, t.viewer.accessToken, { workspaceId: t.workspaceId, action: "domains" });
    assert.equal(list.status, 200);
    const [d] = list.body.domains as Record<string, unknown>[];
    assert.deepEqual(Object.keys(d).sort(), [
      "bounce_rate",
      "complaint_rate",
      "created_at",
      "domain",
      "id",
      "is_default",
      "reputation_status",
      "verification_status",
    ]);
    assert.deepEqual(
      [d.domain, d.verification_status, d.is_default, d.bounce_rate, d.complaint_rate, d.reputation_status],
      [t.domain, "verified", true, 0, 0, "good"],
    );
    // Another workspace cannot register the name (the provider account is shared) ...
    const rival = await team(p, false);
    const taken = await emailApi(p, rival.owner.accessToken, {
      workspaceId: rival.workspaceId,
      action: "add-domain",
      domain: t.domain,
    });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, "domain_taken");
    // ... and a pending row of the same name (e.g. from before) can never be verified for it.
    await p.db.query(`insert into public.email_domains (workspace_id, domain) values ($1, $2)`, [
      rival.workspaceId,
      t.domain,
    ]);
    const claim = await emailApi(p, rival.owner.accessToken, {
      workspaceId: rival.workspaceId,
      action: "mark-domain-verified",
      domain: t.domain,
    });
    assert.equal(claim.status, 409);
  },
);

platformTest(
  "domains and logs list only the caller's workspace; logs filter by status and emailType, limit 50",
  async (p) => {
    const t = await team(p);
    const other = await team(p);
    await send(p, other.owner, other);
    for (let i = 0; i < 3; i++) await send(p, t.member, t, { emailType: "marketing", subject: `M${i}` });
    const tx = await send(p, t.member, t, { emailType: "transactional" });
    await p.db.query(`update public.email_logs set status = 'delivered' where id = $1`, [tx.logId]);
    // Enough rows for the default limit to bite.
    await p.db.query(
      `insert into public.email_logs (workspace_id, from_email, to_emails, subject, email_type, status)
     select $1, $2, array['x@example.org'], 'bulk ' || g, 'notification', 'sent' from generate_series(1, 50) g`,
      [t.workspaceId, t.from],
    );
    const all = await emailApi(p, t.viewer.accessToken, { workspaceId: t.workspaceId, action: "logs" });
    assert.equal(all.status, 200);
    const logs = all.body.logs as Record<string, unknown>[];
    assert.equal(logs.length, 50);
    assert.ok(logs.every((l) => l.workspace_id === t.workspaceId));
    const marketing = await emailApi(p, t.viewer.accessToken, {
      workspaceId: t.workspaceId,
      action: "logs",
      emailType: "marketing",
    });
    assert.deepEqual((marketing.body.logs as { subject: string }[]).map((l) => l.subject), [
      "M2",
      "M1",
      "M0",
    ]);
    const delivered = await emailApi(p, t.viewer.accessToken, {
      workspaceId: t.workspaceId,
      action: "logs",
      status: "delivered",
    });
    assert.deepEqual((delivered.body.logs as { id: string }[]).map((l) => l.id), [tx.logId]);
    const limited = await emailApi(p, t.viewer.accessToken, {
      workspaceId: t.workspaceId,
      action: "logs",
      limit: 2,
    });
    assert.equal((limited.body.logs as unknown[]).length, 2);
    assert.equal(
      (await emailApi(p, t.viewer.accessToken, { workspaceId: t.workspaceId, action: "logs", limit: 0 }))
        .status,
      400,
    );
    assert.equal(
      (await emailApi(p, t.viewer.accessToken, {
        workspaceId: t.workspaceId,
        action: "logs",
        status: "read",
      })).status,
      400,
    );
    const domains = await emailApi(p, t.viewer.accessToken, {
      workspaceId: t.workspaceId,
      action: "domains",
    });
    assert.deepEqual((domains.body.domains as { domain: string }[]).map((d) => d.domain), [t.domain]);
  },
);

platformTest("removed actions answer 400 naming them; an unknown action is a 400 too", async (p) => {
  const t = await team(p);
  for (const action of ["verify-domain", "check-domain", "list-ses-domains", "sending-stats"]) {
    const r = await emailApi(p, t.owner.accessToken, {
      workspaceId: t.workspaceId,
      action,
      domain: t.domain,
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, "action_removed");
    assert.match(r.body.error as string, new RegExp(`'${action}' was removed`));
  }
  const unknown = await emailApi(p, t.owner.accessToken, { workspaceId: t.workspaceId, action: "explode" });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, "validation_failed");
});
