/**
 * The Resend stand-in driven by the official SDK the way production code drives Resend, and
 * its mail viewer on the sandbox page (list, one message opened, HTML in a sandboxed iframe,
 * text).
 */
import assert from "node:assert/strict";
import { Resend } from "resend";
import { platformTest } from "../helpers/platform.ts";
import { resendOf, send, team } from "./helpers.ts";

platformTest(
  "the SDK sends, reads back, replays an idempotency key (409 with another body) and registers domains",
  async (p) => {
    const stand = resendOf(p);
    stand.reset();
    const client = new Resend("re_test_key", { baseUrl: stand.baseUrl });
    const sent = await client.emails.send({
      from: "Shop <shop@example.com>",
      to: "ana@example.org",
      subject: "Hi",
      html: "<b>Hi</b>",
    }, { idempotencyKey: "k-1" });
    assert.equal(sent.error, null);
    const again = await client.emails.send({
      from: "Shop <shop@example.com>",
      to: "ana@example.org",
      subject: "Hi",
      html: "<b>Hi</b>",
    }, { idempotencyKey: "k-1" });
    assert.equal(again.data?.id, sent.data?.id);
    // The same key with another body is refused, as Resend does (409 invalid_idempotent_request).
    const other = await client.emails.send({
      from: "shop@example.com",
      to: "ana@example.org",
      subject: "Hi",
      html: "<b>Hi</b>",
    }, { idempotencyKey: "k-1" });
    assert.equal(other.data, null);
    assert.equal(other.error?.statusCode, 409);
    assert.equal(other.error?.name, "invalid_idempotent_request");
    assert.equal(stand.emails.size, 1);
    const got = await client.emails.get(sent.data!.id);
    assert.equal(got.data?.subject, "Hi");
    assert.deepEqual(got.data?.to, ["ana@example.org"]);

    const bad = await client.emails.send({ from: "nobody", to: "ana@example.org", subject: "x", text: "x" });
    assert.equal(bad.data, null);
    assert.equal(bad.error?.name, "validation_error");
    const noKey = await fetch(`${stand.baseUrl}/emails`, { method: "POST", body: "{}" });
    assert.equal(noKey.status, 401);
    assert.equal((await noKey.json()).name, "missing_api_key");

    const d = await client.domains.create({ name: "news.example.com" });
    assert.equal(d.data?.status, "not_started");
    assert.ok(d.data?.records.some((r) => r.record === "DKIM"));
    const dup = await client.domains.create({ name: "news.example.com" });
    assert.equal(dup.error?.statusCode, 403);
    await client.domains.verify(d.data!.id);
    assert.equal((await client.domains.get(d.data!.id)).data?.status, "verified");
  },
);

platformTest(
  "the sandbox page lists captured mail and opens one: HTML in a sandboxed srcdoc iframe, and text",
  async (p) => {
    const stand = resendOf(p);
    stand.reset();
    const t = await team(p);
    const { messageId } = await send(p, t.member, t, {
      subject: "Quote <Q-9> ready",
      html: '<p onclick="x()">Total "120"</p><script>alert(1)</script>',
      text: "Total 120",
    });
    const list = await (await fetch(`${p.sandbox!.url}/?provider=resend`)).text();
    assert.match(list, /Mail \(Resend stand-in\)/);
    assert.match(list, new RegExp(`mail=${messageId}`));
    assert.match(list, /Quote &#60;Q-9&#62; ready/);
    assert.doesNotMatch(list, /<script>alert/);

    const page = await (await fetch(`${p.sandbox!.url}/?provider=resend&mail=${messageId}`)).text();
    const iframe = /<iframe class="mail" sandbox="" [^>]*srcdoc="([^"]*)"/.exec(page);
    assert.ok(iframe, "a sandboxed iframe with srcdoc");
    const unescaped = iframe[1].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
    assert.equal(unescaped, '<p onclick="x()">Total "120"</p><script>alert(1)</script>');
    assert.match(page, /<h3>Text<\/h3><pre>Total 120<\/pre>/);
    assert.match(page, new RegExp(`hello@${t.domain.replaceAll(".", "\\.")}`));

    // The page's form sends a signed event to our webhook, which applies it.
    const form = await fetch(`${p.sandbox!.url}/resend/_sandbox/emails/${messageId}/events`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "type=email.delivered",
      redirect: "manual",
    });
    assert.equal(form.status, 303);
    await form.body?.cancel();
    assert.deepEqual(stand.emails.get(messageId)!.events.map((e) => [e.type, e.status]), [[
      "email.delivered",
      200,
    ]]);
    const r = await p.db.query<{ status: string }>(
      `select status from public.email_logs where provider_message_id = $1`,
      [
        messageId,
      ],
    );
    assert.equal(r.rows[0].status, "delivered");
  },
);
