/**
 * The Twilio stand-in, driven by the official SDK the way the adapter drives Twilio: messages
 * (create, list, fetch), balance, incoming numbers with paging, Twilio's errors, the inbox page.
 */
import assert from "node:assert/strict";
import twilio from "twilio";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";

function client(p: Platform, token?: string) {
  const tw = p.sandbox!.get("twilio");
  const c = twilio(tw.accountSid, token ?? tw.authToken, { autoRetry: false });
  c.api.baseUrl = tw.baseUrl;
  return { tw, c };
}

platformTest("twilio stand-in: create, fetch and list messages in Twilio's wire format", async (p) => {
  const { tw, c } = client(p);
  tw.reset();
  tw.autoCallbacks = false;
  const m = await c.messages.create({
    to: "+14155550100",
    from: "+14155550199",
    body: "x".repeat(200),
    mediaUrl: ["https://example.com/a.jpg", "https://example.com/b.jpg"],
  });
  assert.match(m.sid, /^MM[0-9a-f]{32}$/);
  assert.equal(m.status, "queued");
  assert.equal(m.numSegments, "2");
  assert.equal(m.numMedia, "2");
  assert.equal(m.direction, "outbound-api");
  assert.equal(m.price, null);
  assert.equal(m.accountSid, tw.accountSid);
  assert.ok(m.dateCreated instanceof Date && !Number.isNaN(m.dateCreated.getTime()));
  assert.deepEqual(tw.messages()[0].media_urls, ["https://example.com/a.jpg", "https://example.com/b.jpg"]);
  const viaService = await c.messages.create({
    to: "+14155550101",
    messagingServiceSid: "MG" + "0".repeat(32),
    body: "y",
  });
  assert.equal(viaService.status, "accepted");
  assert.equal((await c.messages(m.sid).fetch()).body, "x".repeat(200));
  const listed = await c.messages.list({ to: "+14155550101" });
  assert.deepEqual(listed.map((x) => x.sid), [viaService.sid]);
  assert.equal((await c.messages.list({ limit: 20 })).length, 2);
});

platformTest("twilio stand-in: balance, incoming numbers across pages, Twilio's errors", async (p) => {
  const { tw, c } = client(p);
  tw.reset();
  tw.setBalance("3.50", "GBP");
  const b = await c.balance.fetch();
  assert.equal(b.balance, "3.50");
  assert.equal(b.currency, "GBP");
  for (let i = 0; i < 5; i++) tw.addIncomingNumber({ phoneNumber: `+1415555020${i}` });
  const numbers = await c.incomingPhoneNumbers.list({ pageSize: 2 });
  assert.deepEqual(numbers.map((n) => n.phoneNumber), [0, 1, 2, 3, 4].map((i) => `+1415555020${i}`));
  assert.equal(numbers[0].capabilities.sms, true);

  const rest = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (err) {
      return err as { status: number; code: number; message: string; moreInfo: string };
    }
    throw new Error("expected a RestException");
  };
  const noBody = await rest(() => c.messages.create({ to: "+14155550100", from: "+14155550199" }));
  assert.deepEqual([noBody.status, noBody.code, noBody.message], [400, 21602, "Message body is required."]);
  assert.equal(noBody.moreInfo, "https://www.twilio.com/docs/errors/21602");
  const badTo = await rest(() => c.messages.create({ to: "555", from: "+14155550199", body: "x" }));
  assert.equal(badTo.code, 21211);
  tw.rejectNumber("+14155550111");
  const stopped = await rest(() =>
    c.messages.create({ to: "+14155550111", from: "+14155550199", body: "x" })
  );
  assert.deepEqual([stopped.status, stopped.code], [400, 21610]);
  const { c: wrong } = client(p, "wrong-token");
  const auth = await rest(() => wrong.balance.fetch());
  assert.deepEqual([auth.status, auth.code, auth.message], [401, 20003, "Authenticate"]);
  tw.failNext(503);
  assert.equal((await rest(() => c.balance.fetch())).status, 503);

  // The inbox page lists what the stand-in received.
  const page = await (await fetch(`${p.sandbox!.url}/?provider=twilio`)).text();
  assert.match(page, /Balance\.json/);
  assert.match(page, /Messages\.json/);
  assert.ok(!page.includes(tw.authToken), "the inbox never shows the auth token");
});
