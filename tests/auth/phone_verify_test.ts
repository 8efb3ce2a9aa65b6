/**
 * POST /auth/v1/verify with a phone number, as supabase-js's auth.verifyOtp({phone, token, type})
 * sends it (issue 31 section 4). Upstream: supabase/auth internal/api/verify.go
 * (VerifyParams.Validate: the type, exactly one of token and token_hash, then validatePhone;
 * verifyUserAndToken: the user by phone, a ban, the token) and phone.go validatePhone (400
 * validation_failed "Invalid phone number format (E.164 required)"). The local platform sends no
 * SMS, so no phone code is ever valid: a well-formed number gets GoTrue's answer to a wrong code,
 * 403 otp_expired, never "Unsupported phone provider".
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { anonClient, platformTest, serviceClient } from "../helpers/platform.ts";

async function verifyRaw(p: Platform, body: Record<string, unknown>, modern = true) {
  const headers: Record<string, string> = { apikey: p.config.anonKey, "content-type": "application/json" };
  if (modern) headers["x-supabase-api-version"] = "2024-01-01";
  const res = await fetch(`${p.url}/auth/v1/verify`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), errorCode: res.headers.get("x-sb-error-code") };
}

platformTest("verifyOtp with a phone: a wrong code is 403 otp_expired, a malformed number 400", async (p) => {
  const auth = anonClient(p).auth;
  for (const phone of ["+15550100199", "15550100199", "+1 555 010 0199"]) {
    const { data, error } = await auth.verifyOtp({ phone, token: "123456", type: "sms" });
    assert.equal(data.session, null);
    assert.equal(error?.status, 403, phone);
    assert.equal(error?.code, "otp_expired");
    assert.equal(error?.message, "Token has expired or is invalid");
  }
  for (const phone of ["not-a-phone", "+0123456", "1", "+1555010019912345"]) {
    const { error } = await auth.verifyOtp({ phone, token: "123456", type: "sms" });
    assert.equal(error?.status, 400, phone);
    assert.equal(error?.code, "validation_failed");
    assert.equal(error?.message, "Invalid phone number format (E.164 required)");
  }
  // phone_change goes the same way.
  const change = await auth.verifyOtp({ phone: "+15550100199", token: "123456", type: "phone_change" });
  assert.equal(change.error?.status, 403);
  assert.equal(change.error?.code, "otp_expired");
  // Legacy clients (no X-Supabase-Api-Version) get GoTrue's {code, error_code, msg}.
  const legacy = await verifyRaw(p, { phone: "+15550100199", token: "123456", type: "sms" }, false);
  assert.equal(legacy.status, 403);
  assert.deepEqual(legacy.body, {
    code: 403,
    error_code: "otp_expired",
    msg: "Token has expired or is invalid",
  });
  assert.equal(legacy.errorCode, "otp_expired");
});

platformTest(
  "verifyOtp with the phone of an existing user: wrong code 403 otp_expired, banned 403 user_banned",
  async (p) => {
    const admin = serviceClient(p).auth.admin;
    const active = await admin.createUser({ phone: "+15550100201", phone_confirm: true });
    assert.equal(active.error, null);
    const banned = await admin.createUser({ phone: "+15550100202", ban_duration: "24h" });
    assert.equal(banned.error, null);
    const auth = anonClient(p).auth;
    const wrong = await auth.verifyOtp({ phone: "+15550100201", token: "000000", type: "sms" });
    assert.equal(wrong.error?.status, 403);
    assert.equal(wrong.error?.code, "otp_expired");
    const ban = await auth.verifyOtp({ phone: "15550100202", token: "000000", type: "sms" });
    assert.equal(ban.error?.status, 403);
    assert.equal(ban.error?.code, "user_banned");
    assert.equal(ban.error?.message, "User is banned");
  },
);

platformTest(
  "POST /verify checks in GoTrue's order: type, token or token_hash, then the phone",
  async (p) => {
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ phone: "bad", token: "1" }, 400, "validation_failed", "Verify requires a verification type"],
      [
        { phone: "bad", type: "sms" },
        400,
        "validation_failed",
        "Verify requires either a token or a token hash",
      ],
      [
        { phone: "bad", type: "sms", token: "1", token_hash: "abc" },
        400,
        "validation_failed",
        "Verify requires either a token or a token hash",
      ],
      [
        { phone: "+15550100199", email: "a@example.com", type: "sms", token: "1" },
        400,
        "validation_failed",
        "Only an email address or phone number should be provided on verify",
      ],
      [
        { type: "sms", token: "1" },
        400,
        "validation_failed",
        "Only an email address or phone number should be provided on verify",
      ],
      [
        { phone: "+15550100199", type: "magiclink", token_hash: "abc" },
        400,
        "validation_failed",
        "Only the token_hash and type should be provided",
      ],
      [
        { phone: "+15550100199", type: "signup", token: "1" },
        403,
        "otp_expired",
        "Token has expired or is invalid",
      ],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await verifyRaw(p, body);
      assert.equal(r.status, status, JSON.stringify(body));
      assert.deepEqual(r.body, { code, message }, JSON.stringify(body));
    }
  },
);
