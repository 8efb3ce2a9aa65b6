/**
 * The messaging rules without HTTP: templates, E.164, the pacer on a virtual clock, Twilio's
 * signature (checked against the official SDK), keywords, segments, the analytics window.
 */
import assert from "node:assert/strict";
import twilio from "twilio";
import {
  analyticsWindow,
  contentVariables,
  isE164,
  keywordOf,
  placeholders,
  renderTemplate,
  SendPacer,
  twilioSignature,
  utcDayStart,
  verifyTwilioSignature,
  VirtualClock,
} from "@shared/messaging/mod.ts";
import { DomainError } from "@shared/errors.ts";
import { segmentCount } from "../../../stack/sandbox/providers/twilio.ts";

Deno.test("renderTemplate: given variables fill, declared ones are required, other braces are text", () => {
  const cases: [string, Record<string, string | number>, string[], string][] = [
    ["Hi {{name}}", { name: "Ana" }, [], "Hi Ana"],
    ["{{ a }}+{{a}}={{sum}}", { a: 1, sum: 2 }, ["a", "sum"], "1+1=2"],
    ["No placeholders", {}, [], "No placeholders"],
    ["{{x}}", { x: "{{y}}" }, [], "{{y}}"], // values are not re-expanded
    // Plain content (nothing declared) is never refused: an unknown placeholder is text.
    ["Code {{code}} for {{ trigger.data.x }}", {}, [], "Code {{code}} for {{ trigger.data.x }}"],
    ["Hi {{name}}, ref {{ref}}", { name: "Ana" }, ["name"], "Hi Ana, ref {{ref}}"],
  ];
  for (const [content, vars, declared, want] of cases) {
    assert.equal(renderTemplate(content, vars, declared), want, content);
  }
  assert.deepEqual(placeholders("{{a}} {{b}} {{a}}"), ["a", "b"]);
  assert.throws(
    () => renderTemplate("Hi {{name}}, {{code}}", { name: "x" }, ["name", "code"]),
    (e: unknown) => {
      assert.ok(e instanceof DomainError);
      assert.equal(e.kind, "invalid");
      assert.equal(e.code, "missing_variable");
      assert.equal(e.message, "Missing template variable: code");
      return true;
    },
  );
});

Deno.test("contentVariables numbers the declared variables as Twilio's Content API expects", () => {
  assert.deepEqual(contentVariables(["name", "day"], { name: "Ana", day: "Mon", extra: 1 }), {
    1: "Ana",
    2: "Mon",
  });
  assert.deepEqual(contentVariables(["1", "2"], { 1: "a", 2: "b" }), { 1: "a", 2: "b" });
  assert.deepEqual(contentVariables([], { 1: "x" }), { 1: "x" });
  assert.throws(() => contentVariables(["name"], {}), /Missing template variable: name/);
});

Deno.test("isE164", () => {
  for (const ok of ["+14155550123", "+306912345678", "+12"]) assert.ok(isE164(ok), ok);
  for (
    const bad of ["14155550123", "+0123456", "+1 415 555", "+1234567890123456", "", "whatsapp:+14155550123"]
  ) {
    assert.ok(!isE164(bad), bad);
  }
});

Deno.test("SendPacer: at most perMinute in any minute, waits instead of dropping", async () => {
  const clock = new VirtualClock(0);
  const pacer = new SendPacer(3, clock, [-30_000]); // one attempt 30 s ago
  const times: number[] = [];
  for (let i = 0; i < 8; i++) times.push(await pacer.acquire());
  assert.deepEqual(times, [0, 0, 30_000, 60_000, 60_000, 90_000, 120_000, 120_000]);
  const all = [-30_000, ...times];
  for (const t of all) assert.ok(all.filter((u) => u >= t && u < t + 60_000).length <= 3);
  assert.throws(() => new SendPacer(0, clock));
});

Deno.test("utcDayStart", () => {
  assert.equal(
    new Date(utcDayStart(Date.parse("2026-03-10T23:59:59.999Z"))).toISOString(),
    "2026-03-10T00:00:00.000Z",
  );
});

Deno.test("twilioSignature equals the official SDK's, and verification is exact", async () => {
  const url = "https://abc.supabase.co/functions/v1/messaging-webhook?type=status";
  const params = new URLSearchParams({
    MessageSid: "SM1",
    MessageStatus: "delivered",
    To: "+14155550123",
    Body: "ünïcode & spaces",
  });
  const ours = await twilioSignature("secret-token", url, params);
  assert.equal(ours, twilio.getExpectedTwilioSignature("secret-token", url, Object.fromEntries(params)));
  assert.ok(twilio.validateRequest("secret-token", ours, url, Object.fromEntries(params)));
  assert.ok(await verifyTwilioSignature("secret-token", url, params, ours));
  assert.ok(!await verifyTwilioSignature("other-token", url, params, ours));
  assert.ok(!await verifyTwilioSignature("secret-token", url + "x", params, ours));
  assert.ok(!await verifyTwilioSignature("secret-token", url, params, null));
  assert.ok(!await verifyTwilioSignature("secret-token", url, params, ours.slice(0, -2)));
  const changed = new URLSearchParams(params);
  changed.set("MessageStatus", "read");
  assert.ok(!await verifyTwilioSignature("secret-token", url, changed, ours));
  // Repeated names: each distinct value, sorted.
  const repeated = new URLSearchParams([["MediaUrl", "b"], ["MediaUrl", "a"], ["A", "1"]]);
  assert.equal(
    await twilioSignature("t", url, repeated),
    twilio.getExpectedTwilioSignature("t", url, {
      MediaUrl: ["b", "a"],
      A: "1",
    }),
  );
});

Deno.test("keywordOf: the keyword alone, any case; Advanced Opt-Out's OptOutType", () => {
  const k = (body: string, extra: Record<string, string> = {}) =>
    keywordOf(new URLSearchParams({ Body: body, ...extra }));
  assert.deepEqual(k(" Stop "), { kind: "optout", keyword: "STOP" });
  assert.deepEqual(k("optout"), { kind: "optout", keyword: "OPTOUT" });
  assert.deepEqual(k("yes"), { kind: "optin", keyword: "YES" });
  assert.equal(k("STOP PLEASE"), null);
  assert.equal(k("help"), null);
  assert.deepEqual(k("arrêtez", { OptOutType: "STOP" }), { kind: "optout", keyword: "ARRÊTEZ" });
});

Deno.test("segmentCount: GSM-7 160/153, UCS-2 70/67", () => {
  assert.equal(segmentCount("a".repeat(160)), 1);
  assert.equal(segmentCount("a".repeat(161)), 2);
  assert.equal(segmentCount("a".repeat(306)), 2);
  assert.equal(segmentCount("a".repeat(307)), 3);
  assert.equal(segmentCount("ç".repeat(70)), 1);
  assert.equal(segmentCount("ç".repeat(71)), 2);
});

Deno.test("analyticsWindow: date-only ends cover the day, 30 days by default", () => {
  const now = Date.parse("2026-06-30T12:00:00Z");
  assert.deepEqual(analyticsWindow(now, "2026-06-01", "2026-06-02"), {
    start: "2026-06-01T00:00:00.000Z",
    end: "2026-06-03T00:00:00.000Z",
  });
  assert.deepEqual(analyticsWindow(now), {
    start: "2026-05-31T12:00:00.000Z",
    end: "2026-06-30T12:00:00.000Z",
  });
  assert.throws(() => analyticsWindow(now, "2026-06-02", "2026-06-01"), /must start before it ends/);
});
