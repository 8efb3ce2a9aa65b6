/**
 * messaging-api as clients call it (issue 31): `{{...}}` in plain content is text (only given
 * variables fill it; a template's declared variables are required), unknown keys are refused
 * naming them, and `workspace_id` is an alias of `workspaceId`.
 */
import assert from "node:assert/strict";
import { createWorkspace, platformTest } from "../helpers/platform.ts";
import { call, logById, phone, runWorker, setup } from "./helpers.ts";

platformTest("send: {{...}} in plain content goes out as written; given variables fill theirs", async (p) => {
  const s = await setup(p, "lit-send");
  const content = "Code {{x}} for {{ trigger.data.y }}";
  const r = await call(p, s.member, { action: "send", workspaceId: s.ws, to: phone(), content });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(s.tw.messages()[0].body, content);
  assert.equal((await logById(p, r.body.logId as string)).content, content);

  const filled = await call(p, s.member, {
    action: "send",
    workspaceId: s.ws,
    to: phone(),
    content,
    variables: { x: 7 },
  });
  assert.equal(filled.status, 200, JSON.stringify(filled.body));
  assert.equal(s.tw.messages()[1].body, "Code 7 for {{ trigger.data.y }}");

  // send-bulk: a recipient without a value for a placeholder gets it as written, not a failure.
  const [a, b] = [phone(), phone()];
  const bulk = await call(p, s.member, {
    action: "send-bulk",
    workspaceId: s.ws,
    content: "Hi {{name}}",
    recipients: [{ to: a, variables: { name: "Ana" } }, { to: b }],
  });
  assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
  assert.deepEqual([bulk.body.queued, bulk.body.failed], [2, 0]);
  assert.equal((await runWorker(p)).status, 200);
  assert.deepEqual(
    s.tw.messages().slice(2).map((m) => [m.to, m.body]).sort(),
    [[a, "Hi Ana"], [b, "Hi {{name}}"]].sort(),
  );
});

platformTest("send: a template's declared variables are required, other placeholders are text", async (p) => {
  const s = await setup(p, "lit-tpl");
  await p.db.query(
    `insert into public.messaging_templates (workspace_id, name, slug, channel_type, content, variables)
     values ($1, 'Ready', 'ready', 'sms', 'Hi {{name}}, ref {{ref}}', '{name}')`,
    [s.ws],
  );
  const ok = await call(p, s.member, {
    action: "send",
    workspaceId: s.ws,
    to: phone(),
    templateSlug: "ready",
    variables: { name: "Ana" },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(s.tw.messages()[0].body, "Hi Ana, ref {{ref}}");
  const missing = await call(p, s.member, {
    action: "send",
    workspaceId: s.ws,
    to: phone(),
    templateSlug: "ready",
    variables: { ref: "R-1" },
  });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, {
    success: false,
    error: "Missing template variable: name",
    code: "missing_variable",
  });
  assert.equal(s.tw.messages().length, 1, "the refused send never reached the provider");
});

platformTest("unknown keys are a 400 naming them, in every action and nested object", async (p) => {
  const s = await setup(p, "strict");
  const ws = s.ws;
  const send = { action: "send", workspaceId: ws, to: phone(), content: "Hello" };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...send, priority: "high" }, 'unknown field "priority"'],
    [{ ...send, templateVariable: { a: 1 } }, 'unknown field "templateVariable"'],
    [{ ...send, channelType: "sms" }, 'unknown field "channelType"'],
    [
      { action: "send-bulk", workspaceId: ws, content: "x", recipients: [{ to: phone(), name: "Ana" }] },
      'unknown field "recipients.0.name"',
    ],
    [{ action: "channels", workspaceId: ws, type: "sms" }, 'unknown field "type"'],
    [{ action: "balance", workspaceId: ws, currency: "EUR" }, 'unknown field "currency"'],
    [{ action: "sync-channels", workspaceId: ws, dryRun: true }, 'unknown field "dryRun"'],
    [
      {
        action: "analytics",
        workspaceId: ws,
        dateRange: { start: "2026-01-01", end: "2026-02-01", tz: "UTC" },
      },
      'unknown field "dateRange.tz"',
    ],
  ];
  for (const [body, named] of cases) {
    const r = await call(p, s.owner, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.deepEqual(r.body, {
      success: false,
      error: `Invalid request body: ${named}`,
      code: "validation_failed",
    });
  }
  assert.equal(s.tw.messages().length, 0, "nothing was sent");
});

platformTest("workspace_id is an alias of workspaceId; naming both is refused", async (p) => {
  const s = await setup(p, "alias");
  await createWorkspace(p, s.member.id); // the member now belongs to two workspaces
  const r = await call(p, s.member, { action: "channels", workspace_id: s.ws });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(
    (r.body.channels as { id: string }[]).map((c) => c.id).sort(),
    [s.smsChannel, s.waChannel].sort(),
  );
  const sent = await call(p, s.member, { action: "send", workspace_id: s.ws, to: phone(), content: "Hi" });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const both = await call(p, s.member, { action: "channels", workspaceId: s.ws, workspace_id: s.ws });
  assert.equal(both.status, 400);
  assert.match(both.body.error!, /"workspace_id" and "workspaceId"/);
  // The alias is checked like the field: an outsider naming the workspace gets nothing.
  const outsider = await call(p, s.outsider, { action: "channels", workspace_id: s.ws });
  assert.notEqual(outsider.status, 200);
});
