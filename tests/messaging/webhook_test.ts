/**
 * messaging-webhook: Twilio's signed status callbacks move logs forward only (repeats and
 * out-of-order deliveries are harmless); forged, missing and tampered signatures are refused
 * and change nothing; incoming STOP-family keywords opt a number out, START-family back in.
 */
import assert from "node:assert/strict";
import twilio from "twilio";
import { platformTest } from "../helpers/platform.ts";
import { call, logById, logsOf, phone, setup } from "./helpers.ts";

platformTest("status callbacks: sent then delivered, with the price; failures carry the error", async (p) => {
  const s = await setup(p, "wh-status");
  const ok = phone();
  const bad = phone();
  s.tw.failNumber(bad, 30006, "Landline or unreachable carrier");
  const a = await call(p, s.member, { workspaceId: s.ws, action: "send", to: ok, content: "One" });
  const b = await call(p, s.member, { workspaceId: s.ws, action: "send", to: bad, content: "Two" });
  const results = await s.tw.flushCallbacks();
  assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200]);
  const delivered = await logById(p, a.body.logId as string);
  assert.equal(delivered.status, "delivered");
  assert.ok(delivered.delivered_at);
  assert.equal(delivered.cost, "0.00790");
  assert.equal(delivered.currency, "USD");
  const failed = await logById(p, b.body.logId as string);
  assert.equal(failed.status, "failed");
  assert.ok(failed.failed_at);
  assert.equal(failed.error_code, "30006");
  assert.equal(failed.error_message, "Landline or unreachable carrier");
  assert.equal(failed.delivered_at, null);

  // WhatsApp read receipts move delivered to read.
  const wa = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    channel: "whatsapp",
    to: phone(),
    content: "Hi",
  });
  await s.tw.flushCallbacks();
  await s.tw.sendStatus(wa.body.messageId as string, "read");
  const read = await logById(p, wa.body.logId as string);
  assert.equal(read.status, "read");
  assert.ok(read.read_at && read.delivered_at);
});

platformTest("the same callback 10 times and out of order leaves the right final status", async (p) => {
  const s = await setup(p, "wh-order");
  const r = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    channel: "whatsapp",
    to: phone(),
    content: "Hi",
  });
  const sid = r.body.messageId as string;
  // read arrives first, then older states, each repeated.
  for (const status of ["read", "delivered", "sent", "queued", "sending"]) {
    for (let i = 0; i < 10; i++) assert.equal((await s.tw.sendStatus(sid, status)).status, 200);
  }
  const log = await logById(p, r.body.logId as string);
  assert.equal(log.status, "read");
  const readAt = log.read_at!.getTime();
  for (let i = 0; i < 10; i++) await s.tw.sendStatus(sid, "read");
  assert.equal((await logById(p, r.body.logId as string)).read_at!.getTime(), readAt, "read_at is set once");

  // A failed message stays failed whatever comes later.
  const f = await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "x" });
  const fsid = f.body.messageId as string;
  for (let i = 0; i < 10; i++) await s.tw.sendStatus(fsid, "undelivered", { extra: { ErrorCode: "30003" } });
  for (const status of ["delivered", "read", "sent"]) await s.tw.sendStatus(fsid, status);
  const failed = await logById(p, f.body.logId as string);
  assert.equal(failed.status, "failed");
  assert.equal(failed.error_code, "30003");
  assert.equal(failed.read_at, null);
});

platformTest("forged, missing and tampered signatures are refused and change nothing", async (p) => {
  const s = await setup(p, "wh-sig");
  const r = await call(p, s.member, { workspaceId: s.ws, action: "send", to: phone(), content: "x" });
  const sid = r.body.messageId as string;
  const before = await logById(p, r.body.logId as string);
  const unsigned = await s.tw.sendStatus(sid, "delivered", { sign: false });
  const forged = await s.tw.sendStatus(sid, "delivered", { token: "not-the-auth-token" });
  const tampered = await s.tw.sendStatus(sid, "sent", { tamper: (f) => f.set("MessageStatus", "delivered") });
  for (const res of [unsigned, forged, tampered]) {
    assert.equal(res.status, 403);
    assert.deepEqual(JSON.parse(res.body), {
      success: false,
      error: "Invalid or missing X-Twilio-Signature",
    });
  }
  // Signed for another URL (query changed): refused too.
  const url = `${p.url}/functions/v1/messaging-webhook?type=status`;
  const form = { MessageSid: sid, MessageStatus: "delivered" };
  const other = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": twilio.getExpectedTwilioSignature(s.tw.authToken, url + "&x=1", form),
    },
    body: new URLSearchParams(form),
  });
  assert.equal(other.status, 403);
  await other.body?.cancel();
  const incoming = await s.tw.injectIncoming({ from: phone(), to: s.smsSender, body: "STOP" }, {
    sign: false,
  });
  assert.equal(incoming.status, 403);
  assert.deepEqual(await logById(p, r.body.logId as string), before);
  const optouts = await p.db.query(`select 1 from public.messaging_optouts where workspace_id = $1`, [s.ws]);
  assert.equal(optouts.rows.length, 0);

  // The same callback, correctly signed, is applied.
  const good = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": twilio.getExpectedTwilioSignature(s.tw.authToken, url, form),
    },
    body: new URLSearchParams(form),
  });
  assert.equal(good.status, 200);
  assert.deepEqual(await good.json(), { success: true, status: "delivered" });
});

platformTest("STOP opts a number out and the next send is refused; START opts it back in", async (p) => {
  const s = await setup(p, "wh-stop");
  const handset = phone();
  const other = phone();
  const res = await s.tw.injectIncoming({ from: handset, to: s.smsSender, body: "  stop " });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/xml");
  assert.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
  const row = await p.db.query<{ channel_type: string; source: string; reason: string }>(
    `select channel_type, source, reason from public.messaging_optouts where workspace_id = $1 and phone_number = $2`,
    [s.ws, handset],
  );
  assert.deepEqual(row.rows, [{ channel_type: "sms", source: "keyword", reason: "Replied STOP" }]);

  const refused = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    to: handset,
    content: "Sale!",
  });
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body, {
    success: false,
    error: "All recipients have opted out",
    code: "all_opted_out",
  });
  const multi = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    to: [handset, other],
    content: "Sale!",
  });
  assert.equal(multi.body.sent, 1);
  assert.deepEqual(
    (multi.body.results as { to: string; status: string }[]).map((r) => [r.to, r.status]),
    [[handset, "opted_out"], [other, "sent"]],
  );
  assert.deepEqual(
    s.tw.messages().map((m) => m.to),
    [other],
    "the opted-out number never reached the provider",
  );

  // A message that is not the keyword alone changes nothing; START lifts the opt-out.
  await s.tw.injectIncoming({ from: handset, to: s.smsSender, body: "start please" });
  assert.equal(
    (await call(p, s.member, { workspaceId: s.ws, action: "send", to: handset, content: "x" })).status,
    400,
  );
  await s.tw.injectIncoming({ from: handset, to: s.smsSender, body: "UNSTOP" });
  const again = await call(p, s.member, {
    workspaceId: s.ws,
    action: "send",
    to: handset,
    content: "Welcome back",
  });
  assert.equal(again.status, 200, JSON.stringify(again.body));

  // Every STOP-family keyword counts; a number we do not own is ignored.
  for (const kw of ["STOPALL", "unsubscribe", "Cancel", "END", "QUIT", "REVOKE", "OPTOUT"]) {
    const from = phone();
    await s.tw.injectIncoming({ from, to: s.smsSender, body: kw });
    const n = await p.db.query(`select 1 from public.messaging_optouts where phone_number = $1`, [from]);
    assert.equal(n.rows.length, 1, kw);
  }
  const stranger = phone();
  assert.equal((await s.tw.injectIncoming({ from: stranger, to: phone(), body: "STOP" })).status, 200);
  const none = await p.db.query(`select 1 from public.messaging_optouts where phone_number = $1`, [stranger]);
  assert.equal(none.rows.length, 0);
  assert.equal((await logsOf(p, s.ws)).length, 2);
});
