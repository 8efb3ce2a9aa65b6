/**
 * email-api as clients call it (issue 31): `from` is optional (the workspace's default verified
 * domain, else the platform's own sender, else a 400 naming it), unknown keys are refused naming
 * them, `workspace_id` is an alias of `workspaceId`, and `{{...}}` in plain content is text.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createWorkspace, platformTest } from "../helpers/platform.ts";
import { emailApi, logRow, resendOf, team, uniqueDomain } from "./helpers.ts";

/** What the SDK put on the wire for the last POST /emails. */
function lastWire(p: Platform): Record<string, unknown> {
  const posts = resendOf(p).captures.all().filter((c) => c.method === "POST" && c.path === "/emails");
  return posts[posts.length - 1].body as Record<string, unknown>;
}

const sentCount = (p: Platform) =>
  resendOf(p).captures.all().filter((c) => c.method === "POST" && c.path === "/emails").length;

/** Runs `fn` with the function environment changed as given (undefined removes a variable). */
async function withEnv(p: Platform, vars: Record<string, string | undefined>, fn: () => Promise<void>) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, p.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) x === undefined ? delete p.env[k] : p.env[k] = x;
  };
  apply(vars);
  try {
    await fn();
  } finally {
    apply(saved);
  }
}

platformTest("send without from: noreply@ the workspace's default verified domain", async (p) => {
  resendOf(p).reset();
  const t = await team(p);
  const body = {
    action: "send",
    workspaceId: t.workspaceId,
    to: "ana@example.org",
    subject: "Hi",
    text: "x",
  };
  const r = await emailApi(p, t.member.accessToken, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ["logId", "messageId", "success"]);
  assert.equal(lastWire(p).from, `noreply@${t.domain}`);
  const log = await logRow(p, r.body.logId as string);
  const domain = await p.db.query<{ id: string }>(`select id from public.email_domains where domain = $1`, [
    t.domain,
  ]);
  assert.deepEqual([log.from_email, log.from_name, log.domain_id], [
    `noreply@${t.domain}`,
    null,
    domain.rows[0].id,
  ]);

  const named = await emailApi(p, t.member.accessToken, { ...body, fromName: "Acme Tiles" });
  assert.equal(named.status, 200, JSON.stringify(named.body));
  assert.equal(lastWire(p).from, `Acme Tiles <noreply@${t.domain}>`);

  // The local part is configuration (EMAIL_DEFAULT_LOCAL_PART).
  await withEnv(p, { EMAIL_DEFAULT_LOCAL_PART: "Orders" }, async () => {
    const r2 = await emailApi(p, t.member.accessToken, body);
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
    assert.equal(lastWire(p).from, `orders@${t.domain}`);
  });
});

platformTest(
  "the default sender domain: the default one when verified, else the earliest verified",
  async (p) => {
    const t = await team(p, false); // its first domain is the default, still pending
    const later = uniqueDomain("later");
    for (const action of ["add-domain", "mark-domain-verified"]) {
      const r = await emailApi(p, t.owner.accessToken, { action, workspaceId: t.workspaceId, domain: later });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const body = {
      action: "send",
      workspaceId: t.workspaceId,
      to: "ana@example.org",
      subject: "Hi",
      text: "x",
    };
    assert.equal((await emailApi(p, t.member.accessToken, body)).status, 200);
    assert.equal(lastWire(p).from, `noreply@${later}`);
    const marked = await emailApi(p, t.owner.accessToken, {
      action: "mark-domain-verified",
      workspaceId: t.workspaceId,
      domain: t.domain,
    });
    assert.equal(marked.status, 200);
    assert.equal((await emailApi(p, t.member.accessToken, body)).status, 200);
    assert.equal(lastWire(p).from, `noreply@${t.domain}`);
  },
);

platformTest(
  "send without from and no verified domain: the platform's sender; with none configured, 400 naming from",
  async (p) => {
    resendOf(p).reset();
    const t = await team(p, false);
    const body = {
      action: "send",
      workspaceId: t.workspaceId,
      to: "ana@example.org",
      subject: "Hi",
      text: "x",
    };
    const r = await emailApi(p, t.member.accessToken, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // The local platform's default (stack/config.ts): Resend's test sender.
    assert.equal(lastWire(p).from, "Catalog Platform <onboarding@resend.dev>");
    const log = await logRow(p, r.body.logId as string);
    assert.deepEqual([log.from_email, log.from_name, log.domain_id, log.status], [
      "onboarding@resend.dev",
      "Catalog Platform",
      null,
      "sent",
    ]);
    const named = await emailApi(p, t.member.accessToken, { ...body, fromName: "Acme Tiles" });
    assert.equal(named.status, 200);
    assert.equal(lastWire(p).from, "Acme Tiles <onboarding@resend.dev>");
    // An explicit from must still be at a verified domain of the workspace.
    const spoof = await emailApi(p, t.member.accessToken, { ...body, from: "ceo@onboarding.example.com" });
    assert.equal(spoof.status, 403);
    assert.equal(spoof.body.code, "unverified_sender");

    await withEnv(
      p,
      { EMAIL_PLATFORM_FROM: "ops@platform.example.com", EMAIL_PLATFORM_FROM_NAME: undefined },
      async () => {
        assert.equal((await emailApi(p, t.member.accessToken, body)).status, 200);
        assert.equal(lastWire(p).from, "ops@platform.example.com");
      },
    );
    const before = sentCount(p);
    await withEnv(p, { EMAIL_PLATFORM_FROM: undefined, EMAIL_PLATFORM_FROM_NAME: undefined }, async () => {
      const none = await emailApi(p, t.member.accessToken, body);
      assert.equal(none.status, 400);
      assert.equal(none.body.code, "from_required");
      assert.match(
        none.body.error as string,
        /^from is required: this workspace has no verified sending domain/,
      );
      assert.match(none.body.error as string, /EMAIL_PLATFORM_FROM/);
    });
    await withEnv(p, { EMAIL_PLATFORM_FROM: "not an address" }, async () => {
      const bad = await emailApi(p, t.member.accessToken, body);
      assert.equal(bad.status, 503);
      assert.equal(bad.body.code, "email_sender_misconfigured");
    });
    assert.equal(sentCount(p), before, "refused sends never reach the provider");
  },
);

platformTest("unknown keys are a 400 naming them, in every action and nested object", async (p) => {
  resendOf(p).reset();
  const t = await team(p);
  const ws = t.workspaceId;
  const send = {
    action: "send",
    workspaceId: ws,
    to: "a@example.org",
    from: t.from,
    subject: "Hi",
    text: "x",
  };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...send, priority: "high" }, 'unknown field "priority"'],
    [{ ...send, replyto: "b@example.org" }, 'unknown field "replyto"'],
    [{ ...send, templateVariables: { a: 1 } }, 'unknown field "templateVariables"'],
    [{ action: "domains", workspaceId: ws, verbose: true }, 'unknown field "verbose"'],
    [{ action: "logs", workspaceId: ws, offset: 10 }, 'unknown field "offset"'],
    [
      { action: "add-domain", workspaceId: ws, domain: uniqueDomain(), region: "eu" },
      'unknown field "region"',
    ],
    [
      {
        action: "analytics",
        workspaceId: ws,
        dateRange: { start: "2026-01-01", end: "2026-01-31", tz: "UTC" },
      },
      'unknown field "dateRange.tz"',
    ],
  ];
  for (const [body, named] of cases) {
    const r = await emailApi(p, t.owner.accessToken, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.code, "validation_failed");
    assert.equal(r.body.error, `Invalid request body: ${named}`);
  }
  assert.equal(sentCount(p), 0, "nothing was sent");
});

platformTest("workspace_id is an alias of workspaceId; naming both is refused", async (p) => {
  const t = await team(p);
  await createWorkspace(p, t.member.id); // the member now belongs to two workspaces
  const send = { action: "send", to: "a@example.org", from: t.from, subject: "Hi", text: "x" };
  const r = await emailApi(p, t.member.accessToken, { ...send, workspace_id: t.workspaceId });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal((await logRow(p, r.body.logId as string)).workspace_id, t.workspaceId);
  const list = await emailApi(p, t.member.accessToken, { action: "domains", workspace_id: t.workspaceId });
  assert.deepEqual((list.body.domains as { domain: string }[]).map((d) => d.domain), [t.domain]);
  const both = await emailApi(p, t.member.accessToken, {
    ...send,
    workspaceId: t.workspaceId,
    workspace_id: t.workspaceId,
  });
  assert.equal(both.status, 400);
  assert.match(both.body.error as string, /"workspace_id" and "workspaceId"/);
});

platformTest("{{...}} in plain content is text; a template's declared variables are required", async (p) => {
  resendOf(p).reset();
  const t = await team(p);
  const r = await emailApi(p, t.member.accessToken, {
    action: "send",
    workspaceId: t.workspaceId,
    to: "a@example.org",
    from: t.from,
    subject: "Your code {{code}}",
    html: "<p>Hi {{ name }}, see {{trigger.data.x}}</p>",
    text: "Hi {{name}}",
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const mail = resendOf(p).emails.get(r.body.messageId as string)!;
  assert.deepEqual([mail.subject, mail.html, mail.text], [
    "Your code {{code}}",
    "<p>Hi {{ name }}, see {{trigger.data.x}}</p>",
    "Hi {{name}}",
  ]);

  const { error } = await t.admin.client.from("email_templates").insert({
    workspace_id: t.workspaceId,
    name: "Ready",
    slug: "ready",
    subject: "Ready",
    text_content: "Hi {{name}}, {{not_declared}} stays",
    variables: ["name"],
  });
  assert.equal(error, null);
  const tpl = {
    action: "send",
    workspaceId: t.workspaceId,
    to: "a@example.org",
    from: t.from,
    templateSlug: "ready",
  };
  const ok = await emailApi(p, t.member.accessToken, { ...tpl, variables: { name: "Ana" } });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(resendOf(p).emails.get(ok.body.messageId as string)!.text, "Hi Ana, {{not_declared}} stays");
  const missing = await emailApi(p, t.member.accessToken, { ...tpl, variables: {} });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, "missing_variables");
  assert.equal(missing.body.error, "Missing template variables: name");
});
