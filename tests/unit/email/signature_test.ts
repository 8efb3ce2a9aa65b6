/** The Svix verifier against signatures made the way Svix/Standard Webhooks make them. */
import assert from "node:assert/strict";
import { verifySvixSignature } from "@shared/email/signature.ts";
import { DomainError } from "@shared/errors.ts";
import { svixSignature } from "../../../stack/sandbox/providers/resend.ts";

const SECRET = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
const BODY = '{"type":"email.delivered","data":{"email_id":"e1"}}';
const NOW = 1_800_000_000;

async function refused(p: Promise<void>, message: RegExp) {
  await assert.rejects(
    p,
    (e) => e instanceof DomainError && e.kind === "unauthenticated" && message.test(e.message),
  );
}

Deno.test("a known Standard Webhooks vector verifies", async () => {
  // From standard-webhooks' test suite: secret, id, timestamp, payload and signature.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  const payload = '{"test": 2432232314}';
  const sig = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
  await verifySvixSignature(secret, { id, timestamp: "1614265330", signature: sig }, payload, 1614265330);
});

Deno.test("valid, rotated-key lists, forged, tampered, stale, future and malformed deliveries", async () => {
  const ts = String(NOW);
  const good = await svixSignature(SECRET, "msg_1", NOW, BODY);
  const h = (signature: string | null, timestamp: string | null = ts, id: string | null = "msg_1") => ({
    id,
    timestamp,
    signature,
  });
  await verifySvixSignature(SECRET, h(good), BODY, NOW);
  // Several signatures (key rotation) and other versions are allowed; one v1 match suffices.
  await verifySvixSignature(SECRET, h(`v2,abc v1,bm90LWl0 ${good}`), BODY, NOW);
  const forged = await svixSignature(`whsec_${btoa("another secret of 32 bytes......")}`, "msg_1", NOW, BODY);
  await refused(verifySvixSignature(SECRET, h(forged), BODY, NOW), /No matching signature/);
  await refused(verifySvixSignature(SECRET, h(good), BODY.replace("e1", "e2"), NOW), /No matching signature/);
  await refused(verifySvixSignature(SECRET, h(good, ts, "msg_2"), BODY, NOW), /No matching signature/);
  await refused(verifySvixSignature(SECRET, h(good), BODY, NOW + 301), /too old/);
  await refused(verifySvixSignature(SECRET, h(good), BODY, NOW - 301), /too new/);
  await verifySvixSignature(SECRET, h(good), BODY, NOW + 300);
  await refused(verifySvixSignature(SECRET, h(null), BODY, NOW), /Missing/);
  await refused(verifySvixSignature(SECRET, h(good, null), BODY, NOW), /Missing/);
  await refused(verifySvixSignature(SECRET, h(good, "12.5"), BODY, NOW), /Invalid svix-timestamp/);
  await refused(verifySvixSignature(SECRET, h(good.replace("v1,", "v1a,")), BODY, NOW), /No matching/);
  await refused(verifySvixSignature(SECRET, h("v1,%%%notbase64"), BODY, NOW), /No matching/);
});
