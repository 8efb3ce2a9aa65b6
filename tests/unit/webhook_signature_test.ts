/**
 * The timestamped webhook signature (pdf-batch-process signs with it, flow-webhook verifies with
 * it): the header against an HMAC computed here, the tolerance either way, key rotation, and the
 * delivery id a replay shares and a fresh signature does not.
 */
import assert from "node:assert/strict";
import { DomainError } from "@shared/errors.ts";
import { signatureHeader, TOLERANCE_SECONDS, verifySignatureHeader } from "@shared/webhook_signature.ts";

const SECRET = "whsec_0123456789abcdef";
const BODY = '{"event":"batch.completed","data":{"n":1}}';
const NOW = 1_780_000_000;
const opts = { headerName: "X-Test-Signature", nowSeconds: NOW };

async function hmacHex(secret: string, text: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(text)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function refusedWith(p: Promise<unknown>, code: string, message: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof DomainError);
    assert.equal(err.kind, "unauthenticated");
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

Deno.test('signatureHeader: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', async () => {
  assert.equal(
    await signatureHeader(SECRET, BODY, NOW),
    `t=${NOW},v1=${await hmacHex(SECRET, `${NOW}.${BODY}`)}`,
  );
  // Bytes and text sign the same.
  assert.equal(
    await signatureHeader(SECRET, new TextEncoder().encode(BODY), NOW),
    await signatureHeader(SECRET, BODY, NOW),
  );
});

Deno.test("verifySignatureHeader: the delivery id is shared by copies, not by a fresh signature", async () => {
  const header = await signatureHeader(SECRET, BODY, NOW);
  const a = await verifySignatureHeader(SECRET, header, BODY, opts);
  assert.equal(a.timestamp, NOW);
  assert.match(a.deliveryId, /^[0-9a-f]{64}$/);
  // The same v1 in capitals or after a non-matching entry is the same delivery.
  const [, v1] = header.split(",v1=");
  const padded = `t=${NOW},v1=${"0".repeat(64)},v1=${v1.toUpperCase()}`;
  assert.equal((await verifySignatureHeader(SECRET, padded, BODY, opts)).deliveryId, a.deliveryId);
  const fresh = await verifySignatureHeader(SECRET, await signatureHeader(SECRET, BODY, NOW - 1), BODY, opts);
  assert.notEqual(fresh.deliveryId, a.deliveryId);
});

Deno.test("verifySignatureHeader: a rotated secret passes while one v1 matches", async () => {
  const oldSig = (await signatureHeader("whsec_old", BODY, NOW)).split(",v1=")[1];
  const header = `${await signatureHeader(SECRET, BODY, NOW)},v1=${oldSig}`;
  await verifySignatureHeader(SECRET, header, BODY, opts);
  await verifySignatureHeader("whsec_old", header, BODY, opts);
});

Deno.test("verifySignatureHeader: refusals name the problem", async () => {
  const good = await signatureHeader(SECRET, BODY, NOW);
  const T = TOLERANCE_SECONDS;
  await verifySignatureHeader(SECRET, good, BODY, { ...opts, nowSeconds: NOW + T });
  await verifySignatureHeader(SECRET, good, BODY, { ...opts, nowSeconds: NOW - T });
  const cases: [string, string | null, string, string, RegExp][] = [
    ["missing", null, BODY, "signature_required", /^X-Test-Signature is required$/],
    ["blank", "  ", BODY, "signature_required", /required/],
    ["stale", good, BODY, "signature_expired", /older than 300 s/],
    ["another body", good, BODY + " ", "invalid_signature", /^Invalid X-Test-Signature$/],
    ["another secret", await signatureHeader("whsec_x", BODY, NOW), BODY, "invalid_signature", /^Invalid/],
    [
      "body only",
      `sha256=${await hmacHex(SECRET, BODY)}`,
      BODY,
      "invalid_signature",
      /body alone is not accepted/,
    ],
    ["no v1", `t=${NOW}`, BODY, "invalid_signature", /must be t=<unix seconds>,v1=/],
    ["short v1", `t=${NOW},v1=abcd`, BODY, "invalid_signature", /must be t=/],
    ["t not a number", good.replace(`t=${NOW}`, "t=soon"), BODY, "invalid_signature", /must be t=/],
  ];
  for (const [name, header, body, code, message] of cases) {
    const now = name === "stale" ? NOW + T + 1 : NOW;
    await refusedWith(
      verifySignatureHeader(SECRET, header, body, { ...opts, nowSeconds: now }),
      code,
      message,
    );
  }
  await refusedWith(
    verifySignatureHeader(SECRET, good, BODY, { ...opts, nowSeconds: NOW - T - 1 }),
    "signature_expired",
    /newer than 300 s/,
  );
});
