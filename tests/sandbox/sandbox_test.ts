/**
 * The sandbox framework: the inbox page and its JSON, stand-ins on their own port, signed
 * callbacks to our webhooks, scripted failures, and pointing code at stand-ins through the
 * environment only when no real key is configured.
 */
import assert from "node:assert/strict";
import { pointEnvironment } from "../../stack/sandbox/part.ts";
import type { ProviderDefinition } from "../../stack/sandbox/registry.ts";
import { Sandbox } from "../../stack/sandbox/sandbox.ts";
import { StandIn, type StandInRequest } from "../../stack/sandbox/standin.ts";
import { startTarget } from "../cron/helpers.ts";
import { platformTest } from "../helpers/platform.ts";

/** A made-up provider whose callback signing is not written yet (the base class's). */
class PlainStandIn extends StandIn {
  constructor(readonly name: string) {
    super();
  }
  protected route(req: StandInRequest): Response {
    if (req.method === "POST" && req.path === "/v1/things") {
      return Response.json({ id: "thing_1", received: req.json() }, { status: 201 });
    }
    return this.errorResponse(404, "no such endpoint");
  }
  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    return Response.json({ error: { status, message } }, { status, headers });
  }
}

/** The same provider with an HMAC-signed webhook, standing for the real ones to come. */
class AcmeStandIn extends PlainStandIn {
  constructor(private readonly secret = "whsec_test") {
    super("acme");
  }
  protected override async signCallback(_url: string, body: string, headers: Headers): Promise<void> {
    headers.set("acme-signature", await hmacHex(this.secret, body));
  }
}

async function hmacHex(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body));
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
}

const definition = (over: Partial<ProviderDefinition> = {}): ProviderDefinition => ({
  name: "acme",
  title: "Acme API",
  keyEnv: "SANDBOX_TEST_ACME_KEY",
  baseUrlEnv: "SANDBOX_TEST_ACME_BASE_URL",
  placeholderKey: "acme-placeholder",
  create: () => new AcmeStandIn(),
  ...over,
});

platformTest("the inbox lists what each stand-in captured, newest first, without secrets", async (p) => {
  const sandbox = p.sandbox!;
  sandbox.reset();
  assert.equal(p.extraUrls["Sandbox inbox"], `${sandbox.url}/`);
  const llm = sandbox.get("anthropic");
  for (const word of ["first-question", "second-question"]) {
    const res = await fetch(`${llm.baseUrl}/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": "very-secret-key",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: word }] }),
    });
    await res.body?.cancel();
  }
  const page = await fetch(p.extraUrls["Sandbox inbox"]);
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  const html = await page.text();
  assert.ok(html.includes("anthropic") && html.includes(llm.baseUrl));
  const first = html.indexOf("first-question");
  const second = html.indexOf("second-question");
  assert.ok(first > 0 && second > 0 && second < first, "newest first");
  assert.ok(!html.includes("very-secret-key"));

  const json = await (await fetch(`${sandbox.url}/_captures?provider=anthropic`)).json();
  assert.equal(json.length, 2);
  assert.equal(json[0].body.messages[0].content, "second-question");
  assert.equal(json[0].headers["x-api-key"], "[redacted]");
  assert.equal(json[0].headers["anthropic-version"], "2023-06-01");

  const cleared = await fetch(`${sandbox.url}/_clear`, { method: "POST", redirect: "manual" });
  await cleared.body?.cancel();
  assert.equal(cleared.status, 303);
  assert.equal(sandbox.captures().length, 0);

  const missing = await fetch(`${sandbox.url}/nobody/v1/x`);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});

Deno.test("a stand-in on its own port answers, fails on demand and records in order", async () => {
  const sandbox = Sandbox.start({ providers: [definition({ ownServer: true })] });
  try {
    const acme = sandbox.get("acme");
    assert.notEqual(new URL(acme.baseUrl).port, new URL(sandbox.url).port);
    assert.equal(new URL(acme.baseUrl).pathname, "/");
    acme.failNext(503, { times: 2, headers: { "retry-after": "1" } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${acme.baseUrl}/v1/things`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ i }),
      });
      statuses.push(res.status);
      const body = await res.json();
      if (res.status === 503) {
        assert.equal(res.headers.get("retry-after"), "1");
        assert.equal(body.error.status, 503);
      } else assert.deepEqual(body, { id: "thing_1", received: { i: 2 } });
    }
    assert.deepEqual(statuses, [503, 503, 201]);
    assert.equal(acme.pendingFaults, 0);
    assert.deepEqual(acme.captures.requests().map((c) => c.body), [{ i: 0 }, { i: 1 }, { i: 2 }]);
  } finally {
    await sandbox.stop();
  }
});

Deno.test("sendCallback signs with the provider's scheme and records the callback", async () => {
  const sandbox = Sandbox.start({
    providers: [definition(), definition({ name: "plain", create: () => new PlainStandIn("plain") })],
  });
  const webhook = startTarget((r) =>
    hmacHex("whsec_test", r.body).then((sig) =>
      sig === r.headers["acme-signature"]
        ? Response.json({ received: true })
        : Response.json({ error: "bad signature" }, { status: 401 })
    )
  );
  try {
    const acme = sandbox.get("acme");
    const signed = await acme.sendCallback(`${webhook.url}/hooks/acme?x=1`, {
      type: "thing.created",
      id: "thing_1",
    });
    assert.equal(signed.status, 200);
    const unsigned = await acme.sendCallback(`${webhook.url}/hooks/acme`, { type: "thing.created" }, {
      sign: false,
    });
    assert.equal(unsigned.status, 401);
    const form = await acme.sendCallback(`${webhook.url}/hooks/form`, new URLSearchParams({ a: "1" }));
    assert.equal(form.status, 200);
    assert.equal(webhook.to("/hooks/form")[0].headers["content-type"], "application/x-www-form-urlencoded");

    const out = acme.captures.all();
    assert.deepEqual(out.map((c) => [c.direction, c.path, c.status]), [
      ["out", "/hooks/acme", 200],
      ["out", "/hooks/acme", 401],
      ["out", "/hooks/form", 200],
    ]);
    assert.equal(out[0].url, `${webhook.url}/hooks/acme?x=1`);
    assert.deepEqual(out[0].query, { x: "1" });
    assert.deepEqual(out[0].body, { type: "thing.created", id: "thing_1" });
    assert.match(out[0].headers["acme-signature"], /^[0-9a-f]{64}$/);
    assert.deepEqual(out[2].body, { a: "1" });

    await assert.rejects(
      sandbox.get("plain").sendCallback(`${webhook.url}/hooks/plain`, {}),
      /the plain stand-in cannot sign callbacks yet/,
    );
    assert.equal(webhook.to("/hooks/plain").length, 0);
  } finally {
    await webhook.close();
    await sandbox.stop();
  }
});

Deno.test("code is pointed at a stand-in only when no real key is configured (outside tests)", async () => {
  const sandbox = Sandbox.start({ providers: [definition()] });
  const KEY = "SANDBOX_TEST_ACME_KEY";
  const BASE = "SANDBOX_TEST_ACME_BASE_URL";
  try {
    Deno.env.set(KEY, "real-key");
    const untouched: Record<string, string> = {};
    pointEnvironment(sandbox, untouched, false);
    assert.deepEqual(untouched, {}, "a real key keeps the real provider");
    assert.equal(sandbox.entries()[0].sandboxed, false);

    // Test platforms never use real keys.
    const hermetic: Record<string, string> = {};
    pointEnvironment(sandbox, hermetic, true);
    assert.deepEqual(hermetic, { [BASE]: sandbox.get("acme").baseUrl, [KEY]: "acme-placeholder" });
    assert.equal(Deno.env.get(KEY), "real-key", "the process environment is never written");

    Deno.env.delete(KEY);
    const noKey: Record<string, string> = {};
    pointEnvironment(sandbox, noKey, false);
    assert.deepEqual(noKey, { [BASE]: sandbox.get("acme").baseUrl, [KEY]: "acme-placeholder" });
    assert.equal(sandbox.entries()[0].sandboxed, true);
  } finally {
    Deno.env.delete(KEY);
    await sandbox.stop();
  }
});
