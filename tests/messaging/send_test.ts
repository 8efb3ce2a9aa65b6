/**
 * messaging-api send: one recipient and several, both variable spellings, templates, WhatsApp
 * Content API sends, the spec's error messages, and who may send.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { call, logById, logsOf, phone, setup } from "./helpers.ts";

platformTest("send: one SMS goes out through the provider and leaves a sent log", async (p) => {
  const s = await setup(p, "msg-send");
  const to = phone();
  const r = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    channel: "sms",
    to,
    content: "Your order shipped",
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true);
  assert.match(r.body.messageId as string, /^SM[0-9a-f]{32}$/);
  const [sent] = s.tw.messages();
  assert.equal(sent.to, to);
  assert.equal(sent.from, s.smsSender);
  assert.equal(sent.body, "Your order shipped");
  assert.equal(sent.status_callback, `${p.url}/functions/v1/messaging-webhook?type=status`);
  // Basic auth with the account SID and token; the captured headers have the secret redacted.
  const capture = s.tw.captures.all().find((c) => c.direction === "in" && c.method === "POST")!;
  assert.ok(!JSON.stringify(capture.headers).includes(s.tw.authToken));
  const log = await logById(p, r.body.logId as string);
  assert.equal(log.status, "sent");
  assert.equal(log.provider_message_id, r.body.messageId);
  assert.equal(log.to_number, to);
  assert.equal(log.from_number, s.smsSender);
  assert.equal(log.segment_count, 1);
  assert.ok(log.sent_at);
  assert.equal(log.message_type, "transactional");
  // The response never carries credentials.
  assert.ok(!JSON.stringify(r.body).includes(s.tw.authToken));
});

platformTest("send: templates by slug or id, variables in both spellings, missing ones named", async (p) => {
  const s = await setup(p, "msg-tpl");
  const t = await p.db.query<{ id: string }>(
    `insert into public.messaging_templates (workspace_id, name, slug, channel_type, content, variables)
     values ($1, 'Pickup', 'pickup', 'sms', 'Hi {{name}}, order {{ order }} is ready', '{name,order}') returning id`,
    [s.ws],
  );
  const bySlug = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    channel: "sms",
    to: phone(),
    templateSlug: "pickup",
    variables: { name: "Ana", order: 42 },
  });
  assert.equal(bySlug.status, 200, JSON.stringify(bySlug.body));
  const byId = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    to: phone(),
    templateId: t.rows[0].id,
    templateVariables: { name: "Bo", order: "A-7" },
  });
  assert.equal(byId.status, 200, JSON.stringify(byId.body));
  assert.deepEqual(s.tw.messages().map((m) => m.body), [
    "Hi Ana, order 42 is ready",
    "Hi Bo, order A-7 is ready",
  ]);
  assert.equal((await logById(p, byId.body.logId as string)).template_id, t.rows[0].id);

  const missing = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    to: phone(),
    templateSlug: "pickup",
    variables: {},
  });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, {
    success: false,
    error: "Missing template variables: name, order",
    code: "missing_variable",
  });
  const unknown = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    to: phone(),
    templateSlug: "nope",
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.success, false);
  assert.equal(unknown.body.error, "Template not found");
  assert.equal(s.tw.messages().length, 2, "failed requests never reach the provider");
  assert.equal((await logsOf(p, s.ws)).length, 2);
});

platformTest("send: multi-recipient form answers per recipient", async (p) => {
  const s = await setup(p, "msg-multi");
  const [a, b] = [phone(), phone()];
  s.tw.rejectNumber(b, 21614, "'To' number is not a valid mobile number");
  const r = await call(p, s.member, { workspaceId: s.ws, action: "send", to: [a, b], content: "Hello" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true);
  assert.equal(r.body.sent, 1);
  assert.equal(r.body.failed, 1);
  const results = r.body.results as {
    success: boolean;
    messageId: string | null;
    status: string;
    to: string;
  }[];
  assert.equal(results[0].to, a);
  assert.equal(results[0].success, true);
  assert.equal(results[0].status, "sent");
  assert.match(results[0].messageId!, /^SM/);
  assert.equal(results[1].to, b);
  assert.equal(results[1].success, false);
  assert.equal(results[1].status, "failed");
  const logs = await logsOf(p, s.ws);
  const failed = logs.find((l) => l.to_number === b)!;
  assert.equal(failed.status, "failed");
  assert.equal(failed.error_code, "21614");
  assert.equal(failed.error_message, "'To' number is not a valid mobile number");
  assert.ok(failed.failed_at);
});

platformTest("send: WhatsApp templates go out as ContentSid and ContentVariables", async (p) => {
  const s = await setup(p, "msg-wa");
  const sid = "HX" + "ab".repeat(16);
  await p.db.query(
    `insert into public.messaging_templates (workspace_id, name, slug, channel_type, content, variables,
       whatsapp_content_sid, is_approved) values ($1, 'Ready', 'ready', 'whatsapp', 'Hi {{name}}, {{item}} is in',
       '{name,item}', $2, true)`,
    [s.ws, sid],
  );
  const to = phone();
  const r = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    channel: "whatsapp",
    to,
    templateSlug: "ready",
    variables: { name: "Ana", item: "oak flooring" },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const [m] = s.tw.messages();
  assert.equal(m.to, `whatsapp:${to}`);
  assert.equal(m.from, `whatsapp:${s.waSender}`);
  assert.equal(m.content_sid, sid);
  assert.deepEqual(JSON.parse(m.content_variables!), { "1": "Ana", "2": "oak flooring" });
  const log = await logById(p, r.body.logId as string);
  assert.equal(log.content, "Hi Ana, oak flooring is in");

  // A channel behind a Messaging Service sends with MessagingServiceSid instead of From.
  const mg = "MG" + "cd".repeat(16);
  await p.db.query(`update public.messaging_channels set config = $2 where id = $1`, [s.waChannel, {
    messaging_service_sid: mg,
  }]);
  const r2 = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    channel: "whatsapp",
    to,
    content: "Plain text",
  });
  assert.equal(r2.status, 200, JSON.stringify(r2.body));
  const m2 = s.tw.messages()[1];
  assert.equal(m2.messaging_service_sid, mg);
  assert.equal(m2.from, null);
  assert.equal(m2.body, "Plain text");
});

platformTest("send: the spec's errors, E.164 and bad input", async (p) => {
  const s = await setup(p, "msg-err");
  const badNumber = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    to: "0049 30 1234",
    content: "x",
  });
  assert.equal(badNumber.status, 400);
  assert.match(badNumber.body.error!, /^Invalid phone number for to \(E\.164 expected/);

  const noContent = await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone() });
  assert.equal(noContent.status, 400);
  assert.equal(noContent.body.error, "content is required when no template is given");

  const badAction = await call(p, s.member, { workspaceId: s.ws, action: "explode" });
  assert.equal(badAction.status, 400);
  assert.equal(badAction.body.success, false);
  assert.match(badAction.body.error!, /^Invalid request body: action/);

  await p.db.query(`update public.messaging_channels set is_default = false where id = $1`, [s.smsChannel]);
  const noDefault = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    channel: "sms",
    to: phone(),
    content: "x",
  });
  assert.equal(noDefault.status, 400);
  assert.equal(noDefault.body.error, "No default sms channel configured");
  await p.db.query(`update public.messaging_channels set is_default = true where id = $1`, [s.smsChannel]);

  s.tw.failNext(500, { message: "Internal error" });
  const upstream = await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "x" });
  assert.equal(upstream.status, 502);
  assert.equal(upstream.body.error, "the service API error");
  const [failedLog] = await logsOf(p, s.ws);
  assert.equal(failedLog.status, "failed");
  assert.equal(failedLog.error_code, "20500");

  const sidBefore = p.env.TWILIO_ACCOUNT_SID;
  delete p.env.TWILIO_ACCOUNT_SID;
  try {
    const noCreds = await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "x" });
    assert.equal(noCreds.status, 503);
    assert.equal(noCreds.body.error, "the service credentials not configured");
  } finally {
    p.env.TWILIO_ACCOUNT_SID = sidBefore;
  }
  assert.equal((await logsOf(p, s.ws)).length, 1, "a refused request leaves no log");
});

platformTest("send: viewers, outsiders and anonymous callers are refused", async (p) => {
  const s = await setup(p, "msg-auth");
  const viewer = await call(p, s.viewer, { workspaceId: s.ws, action: "send", to: phone(), content: "x" });
  assert.equal(viewer.status, 403);
  assert.equal(viewer.body.success, false);
  const outsider = await call(p, s.outsider, {
    action: "send",
    workspaceId: s.ws,
    to: phone(),
    content: "x",
  });
  assert.equal(outsider.status, 404);
  // The outsider's own workspace has no channel: their send cannot borrow ours.
  const own = await call(p, s.outsider, {
    workspaceId: s.otherWs,
    action: "send",
    to: phone(),
    content: "x",
  });
  assert.equal(own.body.error, "No default sms channel configured");
  const anon = await call(p, null, { action: "send", to: phone(), content: "x" });
  assert.equal(anon.status, 401);
  assert.equal(s.tw.messages().length, 0);
});
