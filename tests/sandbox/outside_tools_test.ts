/**
 * The sandbox as outside tools see it: webhook signing secrets configured in the functions' .env
 * (or made up once per data folder and printed) sign what the official SDKs and Svix send, and the
 * webhook functions accept it; redirects without a SITE_URL land on sandbox pages showing what
 * happened; the stand-ins answer as the real APIs do where they used not to (Anthropic's unknown
 * models, Images' n and url answers, Twilio's numbers and repeated form fields).
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import Stripe from "stripe";
import twilio from "twilio";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import { connectSandbox, SECRETS_FILE } from "../../stack/sandbox/part.ts";
import { Sandbox } from "../../stack/sandbox/sandbox.ts";
import { TWILIO_SANDBOX_NUMBERS } from "../../stack/sandbox/providers/twilio.ts";
import { defaultConfig } from "../../stack/config.ts";
import { verifyTwilioSignature } from "@shared/messaging/webhook.ts";
import { createUser, platformTest } from "../helpers/platform.ts";
import { createTeam } from "../helpers/team.ts";
import { call as messagingCall } from "../messaging/helpers.ts";
import { call, planId } from "../payments/helpers.ts";

const enc = new TextEncoder();
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** Signs a body as Svix does: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">, keyed with whsec_'s bytes. */
async function svixHeaders(secret: string, body: string): Promise<Record<string, string>> {
  const id = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`${id}.${timestamp}.${body}`)));
  return { "svix-id": id, "svix-timestamp": timestamp, "svix-signature": `v1,${b64(mac)}` };
}

const CONFIGURED = {
  STRIPE_WEBHOOK_SECRET: "whsec_configured_in_dotenv_for_the_stripe_cli",
  RESEND_WEBHOOK_SECRET: `whsec_${b64(enc.encode("configured resend signing key!!"))}`,
  TWILIO_AUTH_TOKEN: "configured-twilio-auth-token-0123",
  LATE_WEBHOOK_SECRET: "late_configured_secret",
  SITE_URL: "https://shop.example.com",
};

Deno.test({
  name:
    "secrets in the functions' .env sign and verify: Stripe SDK, Svix, Twilio SDK; a set SITE_URL is kept",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const envFile = `${dir}/.env`;
    await Deno.writeTextFile(
      envFile,
      Object.entries(CONFIGURED).map(([k, v]) => `${k}="${v}"`).join("\n") + "\n",
    );
    const p = await startEphemeralPlatform({ envFile });
    try {
      const sandbox = p.sandbox!;
      for (const [name, value] of Object.entries(CONFIGURED)) assert.equal(p.env[name], value, name);
      assert.equal(sandbox.get("stripe").webhookSecret, CONFIGURED.STRIPE_WEBHOOK_SECRET);
      assert.equal(sandbox.get("resend").webhookSecret, CONFIGURED.RESEND_WEBHOOK_SECRET);
      assert.equal(sandbox.get("twilio").authToken, CONFIGURED.TWILIO_AUTH_TOKEN);
      assert.equal(sandbox.get("late").webhookSecret, CONFIGURED.LATE_WEBHOOK_SECRET);
      // The status block: the Stripe stand-in and every secret in force; no sandbox site.
      assert.equal(p.extraUrls["Stripe API (stand-in)"], sandbox.get("stripe").baseUrl);
      assert.equal(p.extraUrls["Stripe webhook secret"], CONFIGURED.STRIPE_WEBHOOK_SECRET);
      assert.equal(p.extraUrls["Resend webhook secret"], CONFIGURED.RESEND_WEBHOOK_SECRET);
      assert.equal(p.extraUrls["Twilio auth token"], CONFIGURED.TWILIO_AUTH_TOKEN);
      assert.equal(p.extraUrls["Late webhook secret"], CONFIGURED.LATE_WEBHOOK_SECRET);
      assert.equal(p.extraUrls["Site URL (sandbox pages)"], undefined);

      // Stripe: an event signed by the official SDK with the .env secret (as `stripe listen` does).
      const stripe = new Stripe("sk_test_unused");
      const event = JSON.stringify({
        id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
        object: "event",
        type: "charge.refund.updated",
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object: { id: "re_outside_tool", object: "refund" } },
      });
      const postStripe = async (secret: string) => {
        const res = await fetch(`${p.url}/functions/v1/payments-webhook`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "stripe-signature": await stripe.webhooks.generateTestHeaderStringAsync({
              payload: event,
              secret,
            }),
          },
          body: event,
        });
        return { status: res.status, body: await res.json() };
      };
      const accepted = await postStripe(CONFIGURED.STRIPE_WEBHOOK_SECRET);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.deepEqual(accepted.body, {
        received: true,
        type: "charge.refund.updated",
        duplicate: false,
        outcome: { status: "ignored" },
      });
      assert.equal((await postStripe("whsec_some_other_secret")).status, 400);

      // Resend: an event signed as Svix signs it, with the .env secret.
      const resendEvent = JSON.stringify({
        type: "email.delivered",
        created_at: new Date().toISOString(),
        data: { email_id: crypto.randomUUID(), to: ["x@example.org"] },
      });
      const postResend = async (secret: string) => {
        const res = await fetch(`${p.url}/functions/v1/email-webhooks`, {
          method: "POST",
          headers: { "content-type": "application/json", ...await svixHeaders(secret, resendEvent) },
          body: resendEvent,
        });
        return { status: res.status, body: await res.json() };
      };
      const mail = await postResend(CONFIGURED.RESEND_WEBHOOK_SECRET);
      assert.equal(mail.status, 200, JSON.stringify(mail.body));
      assert.equal(mail.body.outcome, "unknown_email");
      assert.equal((await postResend(`whsec_${b64(enc.encode("another key"))}`)).status, 401);

      // Twilio: signed by the SDK with the .env token, two MediaUrl values (each one signed).
      const url = `${p.url}/functions/v1/messaging-webhook?type=incoming`;
      const form = new URLSearchParams({ MessageSid: "SMoutside", From: "+15557770001", To: "+15557770002" });
      form.append("Body", "photos");
      form.append("MediaUrl", "https://media.example.com/b.jpg");
      form.append("MediaUrl", "https://media.example.com/a.jpg");
      const params = {
        MessageSid: "SMoutside",
        From: "+15557770001",
        To: "+15557770002",
        Body: "photos",
        MediaUrl: ["https://media.example.com/b.jpg", "https://media.example.com/a.jpg"],
      };
      const signature = twilio.getExpectedTwilioSignature(CONFIGURED.TWILIO_AUTH_TOKEN, url, params);
      assert.ok(twilio.validateRequest(CONFIGURED.TWILIO_AUTH_TOKEN, signature, url, params));
      const tw = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
        body: form,
      });
      assert.equal(tw.status, 200, await tw.text());
      // Signed over one MediaUrl only: refused.
      const lastOnly = twilio.getExpectedTwilioSignature(CONFIGURED.TWILIO_AUTH_TOKEN, url, {
        ...params,
        MediaUrl: "https://media.example.com/a.jpg",
      });
      const refused = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": lastOnly },
        body: form,
      });
      assert.equal(refused.status, 403);
      await refused.body?.cancel();

      // A configured SITE_URL is where checkouts return, unchanged.
      const u = await createUser(p, "outside-site");
      const r = await call(p, "crm-billing-api", "/subscriptions/create-checkout", {
        method: "POST",
        token: u.accessToken,
        body: { plan_id: await planId(p, "pro") },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const sent = sandbox.get("stripe").captures.requests().find((c) => c.path === "/v1/checkout/sessions")!
        .body as Record<string, string>;
      assert.equal(
        sent.success_url,
        "https://shop.example.com/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}",
      );
      assert.equal(sent.cancel_url, "https://shop.example.com/billing?checkout=cancelled");
    } finally {
      await p.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "made-up secrets are kept in the data folder across starts; the process environment wins",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir();
    const start = async () => {
      const sandbox = Sandbox.start();
      const p = {
        config: defaultConfig({ dataDir, apiPort: 0 }),
        env: {} as Record<string, string>,
        extraUrls: {} as Record<string, string>,
        url: "http://127.0.0.1:9",
      };
      await connectSandbox(sandbox, p);
      return { sandbox, p };
    };
    const first = await start();
    const second = await start();
    try {
      for (const name of ["STRIPE_WEBHOOK_SECRET", "RESEND_WEBHOOK_SECRET", "LATE_WEBHOOK_SECRET"]) {
        if (Deno.env.get(name)) continue; // configured in this shell: not made up
        assert.ok(first.p.env[name], name);
        assert.equal(second.p.env[name], first.p.env[name], `${name} survives a restart`);
      }
      assert.equal(second.sandbox.get("stripe").webhookSecret, first.p.env.STRIPE_WEBHOOK_SECRET);
      assert.equal(second.p.extraUrls["Stripe webhook secret"], first.p.env.STRIPE_WEBHOOK_SECRET);
      const kept = JSON.parse(await Deno.readTextFile(`${dataDir}/${SECRETS_FILE}`));
      assert.equal(kept.STRIPE_WEBHOOK_SECRET, first.p.env.STRIPE_WEBHOOK_SECRET);
      assert.equal((await Deno.stat(`${dataDir}/${SECRETS_FILE}`)).mode! & 0o077, 0, "owner-only file");
      // Redirects without a site URL go to the sandbox's pages.
      assert.equal(first.p.env.SITE_URL, `${first.sandbox.url}/_site`);

      Deno.env.set("STRIPE_WEBHOOK_SECRET", "whsec_from_the_shell");
      const third = await start();
      try {
        assert.equal(third.p.env.STRIPE_WEBHOOK_SECRET, "whsec_from_the_shell");
        assert.equal(third.sandbox.get("stripe").webhookSecret, "whsec_from_the_shell");
        const still = JSON.parse(await Deno.readTextFile(`${dataDir}/${SECRETS_FILE}`));
        assert.equal(still.STRIPE_WEBHOOK_SECRET, first.p.env.STRIPE_WEBHOOK_SECRET, "the kept one stays");
      } finally {
        Deno.env.delete("STRIPE_WEBHOOK_SECRET");
        await third.sandbox.stop();
      }
    } finally {
      await first.sandbox.stop();
      await second.sandbox.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

platformTest(
  "the Twilio stand-in owns numbers sync-channels finds, and signs every repeated field",
  async (p) => {
    const tw = p.sandbox!.get("twilio");
    // Before any reset: the numbers the sandbox account owns (IncomingPhoneNumbers, via the SDK).
    const client = twilio(tw.accountSid, tw.authToken, { autoRetry: false });
    client.api.baseUrl = tw.baseUrl;
    const owned = await client.incomingPhoneNumbers.list({ pageSize: 100 });
    assert.deepEqual(owned.map((n) => n.phoneNumber), TWILIO_SANDBOX_NUMBERS.map((n) => n.phoneNumber));
    const team = await createTeam(p, { prefix: "outside-tw" });
    const sync = await messagingCall(p, team.owner, { action: "sync-channels", workspaceId: team.ws });
    assert.equal(sync.status, 200, JSON.stringify(sync.body));
    assert.deepEqual(sync.body.syncedNumbers, TWILIO_SANDBOX_NUMBERS.map((n) => n.phoneNumber));

    // An incoming message with two MediaUrl fields, signed by the stand-in, is accepted.
    tw.autoCallbacks = false;
    const media = ["https://media.example.com/2.jpg", "https://media.example.com/1.jpg"];
    const res = await tw.injectIncoming({
      from: "+15557770003",
      to: "+15005550006",
      body: "two photos",
      extra: { NumMedia: "2", MediaUrl: media },
    });
    assert.equal(res.status, 200, res.body);
    const posted = tw.captures.all().find((c) => c.direction === "out")!;
    assert.equal(posted.query.type, "incoming");

    // The platform's check computes what the SDK computes over repeated values.
    const url = "https://example.com/functions/v1/messaging-webhook?type=incoming";
    const form = new URLSearchParams([["Body", "x"], ["MediaUrl", media[0]], ["MediaUrl", media[1]]]);
    const sdk = twilio.getExpectedTwilioSignature(tw.authToken, url, { Body: "x", MediaUrl: media });
    assert.ok(await verifyTwilioSignature(tw.authToken, url, form, sdk));
    const dropped = twilio.getExpectedTwilioSignature(tw.authToken, url, { Body: "x", MediaUrl: media[1] });
    assert.equal(await verifyTwilioSignature(tw.authToken, url, form, dropped), false);
  },
);

platformTest(
  "without SITE_URL a checkout returns to a sandbox page showing its parameters and events",
  async (p) => {
    const stand = p.sandbox!.get("stripe");
    stand.reset();
    assert.equal(p.env.SITE_URL, p.sandbox!.siteUrl);
    assert.equal(p.extraUrls["Site URL (sandbox pages)"], p.sandbox!.siteUrl);
    const u = await createUser(p, "outside-landing");
    const r = await call(p, "crm-billing-api", "/subscriptions/create-checkout", {
      method: "POST",
      token: u.accessToken,
      body: { plan_id: await planId(p, "pro") },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { url, session_id } = r.body.data as { url: string; session_id: string };
    // The customer pays on the hosted page and the browser follows the redirect.
    const paid = await fetch(`${url}/pay`, { method: "POST", redirect: "manual" });
    await paid.body?.cancel();
    assert.equal(paid.status, 303);
    const location = paid.headers.get("location")!;
    assert.equal(location, `${p.sandbox!.siteUrl}/billing?checkout=success&session_id=${session_id}`);
    const page = await fetch(location);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    const html = await page.text();
    assert.ok(html.includes("<h1>Checkout completed</h1>"), html);
    assert.ok(html.includes("<code>session_id</code></td><td>" + session_id), "the query parameters");
    assert.ok(html.includes("checkout.session.completed"), "the event the stand-in sent");
    const cancelled = await (await fetch(`${p.sandbox!.siteUrl}/billing?checkout=cancelled`)).text();
    assert.ok(cancelled.includes("<h1>Checkout cancelled</h1>"));
  },
);

platformTest(
  "the Anthropic stand-in answers 404 not_found_error for a model the API does not serve",
  async (p) => {
    const llm = p.sandbox!.get("anthropic");
    llm.reset();
    const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: llm.baseUrl, maxRetries: 0 });
    const ask = (model: string) =>
      client.messages.create({ model, max_tokens: 20, messages: [{ role: "user", content: "hi" }] });
    for (const model of ["claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-6", "claude-sonnet-5-5"]) {
      assert.equal((await ask(model)).model, model);
    }
    const err = await ask("claude-imaginary-9").then(() => null, (e) => e);
    assert.ok(err instanceof Anthropic.NotFoundError, String(err));
    assert.equal(err.status, 404);
    assert.deepEqual((err.error as { error?: unknown }).error, {
      type: "not_found_error",
      message: "model: claude-imaginary-9",
    });
    llm.acceptModel("claude-imaginary-9");
    assert.equal((await ask("claude-imaginary-9")).model, "claude-imaginary-9");
  },
);

platformTest("the Images stand-in returns n images, as base64 or as URLs it serves", async (p) => {
  const images = p.sandbox!.get("images");
  images.reset();
  const generate = async (body: Record<string, unknown>) => {
    const res = await fetch(`${images.baseUrl}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
      body: JSON.stringify({ model: "dall-e-2", prompt: "a red chair", size: "256x256", ...body }),
    });
    return { status: res.status, body: await res.json() };
  };
  const two = await generate({ n: 2 });
  assert.equal(two.status, 200);
  assert.equal(two.body.data.length, 2);
  assert.notEqual(two.body.data[0].b64_json, two.body.data[1].b64_json);
  const urls = await generate({ n: 2, response_format: "url" });
  assert.equal(urls.status, 200);
  assert.equal(urls.body.data.length, 2);
  for (const item of urls.body.data) {
    assert.equal(item.b64_json, undefined);
    const png = await fetch(item.url);
    assert.equal(png.headers.get("content-type"), "image/png");
    const bytes = new Uint8Array(await png.arrayBuffer());
    assert.deepEqual([...bytes.slice(1, 4)], [80, 78, 71]); // "PNG"
  }
  const tooMany = await generate({ n: 11 });
  assert.equal(tooMany.status, 400);
  assert.match(tooMany.body.error.message, /'n'/);
  assert.equal((await generate({ response_format: "gif" })).status, 400);
});
