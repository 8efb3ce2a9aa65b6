/**
 * `deno task start`'s terminal: one line per request (gateway.ts requestLine) with the request id
 * the response carries, 5xx lines marked ERROR with the error's message, the AI backend's
 * requests too (its own port), a WebSocket upgrade unharmed by the logging; what a function
 * prints while serving a request, captured with the request id (functions/console_capture.ts),
 * in a Worker and in-process; and functions reloaded on save (functions/router.ts hotReload),
 * packages/shared included. Test platforms log no requests.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import { createFunctionsRouter } from "../../stack/functions/router.ts";
import type { ConsoleLine } from "../../stack/functions/console_capture.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";

Deno.test("a line per request: 200 with caller and request id, a 502 as ERROR with its message", async () => {
  const lines: string[] = [];
  const p = await startEphemeralPlatform({ logRequests: true, log: (l) => lines.push(l) });
  try {
    p.gateway.mount("/h13-upstream", () => Response.json({ message: "upstream broke" }, { status: 502 }));
    p.gateway.mount("/h13-throws", () => {
      throw new Error("service crashed");
    });
    const ok = await fetch(`${p.url}/auth/v1/health`, { headers: { apikey: p.config.anonKey } });
    await ok.body?.cancel();
    assert.equal(ok.status, 200);
    const okId = ok.headers.get("x-request-id");
    assert.match(okId ?? "", /^[0-9a-f-]{36}$/);
    const okLine = lines.find((l) => l.includes(`req=${okId}`));
    assert.match(
      okLine ?? "",
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z auth GET /auth/v1/health 200 \\d+ms req=${okId} caller=anon$`,
      ),
    );

    const bad = await fetch(`${p.url}/h13-upstream/x`, { headers: { "x-request-id": "client-id-1" } });
    await bad.body?.cancel();
    assert.equal(bad.status, 502);
    assert.equal(bad.headers.get("x-request-id"), "client-id-1", "the client's id is kept and echoed");
    assert.match(
      lines.find((l) => l.includes("req=client-id-1")) ?? "",
      /^ERROR \S+ h13-upstream GET \/h13-upstream\/x 502 \d+ms req=client-id-1 caller=- error="upstream broke"$/,
    );

    const thrown = await fetch(`${p.url}/h13-throws`, {
      headers: { authorization: `Bearer ${p.config.serviceRoleKey}` },
    });
    const body = await thrown.json();
    const id = thrown.headers.get("x-request-id")!;
    assert.equal(thrown.status, 500);
    assert.equal(body.message, `Internal Server Error (request ${id})`);
    assert.ok(lines.some((l) => l.startsWith(`gateway: request ${id} failed: Error: service crashed`)));
    assert.match(
      lines.find((l) => l.startsWith("ERROR") && l.includes(`req=${id}`)) ?? "",
      / 500 .*caller=service_role /,
    );
  } finally {
    await p.stop();
  }
});

Deno.test("test platforms log no requests unless asked", async () => {
  const lines: string[] = [];
  const p = await startEphemeralPlatform({ log: (l) => lines.push(l) });
  try {
    const r = await fetch(`${p.url}/auth/v1/health`);
    await r.body?.cancel();
    assert.equal(r.status, 200);
    assert.deepEqual(lines.filter((l) => l.includes("/auth/v1/health")), []);
  } finally {
    await p.stop();
  }
});

Deno.test("hot reload: an edited function, and an edited shared module it imports, are served without restart", async () => {
  const root = await Deno.makeTempDir();
  const fnDir = `${root}/supabase/functions/hello`;
  await Deno.mkdir(fnDir, { recursive: true });
  await Deno.mkdir(`${root}/packages/shared`, { recursive: true });
  await Deno.writeTextFile(`${root}/packages/shared/word.ts`, `export const word = "one";\n`);
  const app = (greeting: string) =>
    `import { word } from "../../../packages/shared/word.ts";\n` +
    `export default { fetch: () => new Response("${greeting} " + word) };\n`;
  await Deno.writeTextFile(`${fnDir}/app.ts`, app("hello"));
  await Deno.writeTextFile(`${root}/supabase/config.toml`, `[functions.hello]\nverify_jwt = false\n`);
  const logs: string[] = [];
  const handle = await createFunctionsRouter({
    rootDir: root,
    jwtSecret: "s".repeat(40),
    hotReload: true,
    log: (l) => logs.push(l),
  });
  const call = async () => await (await handle(new Request("http://x/functions/v1/hello"), "/hello")).text();
  const eventually = async (want: string) => {
    let got = "";
    for (let i = 0; i < 100; i++) {
      got = await call();
      if (got === want) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`still serving ${JSON.stringify(got)}, wanted ${JSON.stringify(want)}`);
  };
  try {
    assert.equal(await call(), "hello one");
    await Deno.writeTextFile(`${fnDir}/app.ts`, app("bonjour"));
    await eventually("bonjour one");
    await Deno.writeTextFile(`${root}/packages/shared/word.ts`, `export const word = "two";\n`);
    await eventually("bonjour two");
    assert.ok(logs.some((l) => /word\.ts.* changed; reloading functions/.test(l)), logs.join("\n"));
  } finally {
    await handle.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("with the request log on, a realtime WebSocket still upgrades; the AI backend's requests are logged", async () => {
  const lines: string[] = [];
  const p = await startEphemeralPlatform({ logRequests: true, log: (l) => lines.push(l) });
  const client = createClient(p.url, p.config.anonKey, { auth: { persistSession: false } });
  try {
    // The gateway read the request's headers after the upgrade had answered, which threw and
    // lost the 101 ("Upgrade response was not returned from callback").
    const status = await new Promise<string>((resolve) => {
      client.channel("logged-room").subscribe((s) => resolve(s));
    });
    assert.equal(status, "SUBSCRIBED");
    assert.ok(
      lines.some((l) => / realtime GET \/realtime\/v1\/websocket 101 \d+ms /.test(l)),
      lines.join("\n"),
    );

    const ai = aiBackendOf(p).url;
    const r = await fetch(`${ai}/health`, { headers: { "x-request-id": "ai-req-1" } });
    await r.body?.cancel();
    assert.equal(r.status, 200);
    assert.match(
      lines.find((l) => l.includes("req=ai-req-1")) ?? "",
      /^\S+ ai-backend GET \/health 200 \d+ms req=ai-req-1 caller=-$/,
    );
    // Without an id the backend's line and its answer carry the same fresh one.
    const fresh = await fetch(`${ai}/health`, {
      headers: { authorization: `Bearer ${p.config.serviceRoleKey}` },
    });
    await fresh.body?.cancel();
    const id = fresh.headers.get("x-request-id");
    assert.match(id ?? "", /^[0-9a-f-]{36}$/);
    assert.match(lines.find((l) => l.includes(`req=${id}`)) ?? "", / caller=service_role$/);
  } finally {
    await client.removeAllChannels();
    await p.stop();
  }
});

for (const hotReload of [true, false]) {
  Deno.test(`a function's console output is captured per request id (${hotReload ? "Worker" : "in-process"})`, async () => {
    const root = await Deno.makeTempDir();
    const fnDir = `${root}/supabase/functions/talker`;
    await Deno.mkdir(fnDir, { recursive: true });
    await Deno.writeTextFile(
      `${fnDir}/app.ts`,
      `export default { fetch: async (req) => {
        const who = new URL(req.url).searchParams.get("who");
        console.log("hello", who, { n: 1 });
        EdgeRuntime.waitUntil((async () => { await new Promise((r) => setTimeout(r, 20)); console.warn("later", who); })());
        return new Response("ok");
      } };\n`,
    );
    await Deno.writeTextFile(`${root}/supabase/config.toml`, `[functions.talker]\nverify_jwt = false\n`);
    const got: ConsoleLine[] = [];
    const handle = await createFunctionsRouter({
      rootDir: root,
      jwtSecret: "s".repeat(40),
      hotReload,
      log: () => {},
      onConsole: (l) => got.push(l),
    });
    const call = async (who: string) => {
      const res = await handle(
        new Request(`http://x/functions/v1/talker?who=${who}`, { headers: { "x-request-id": `id-${who}` } }),
        "/talker",
      );
      assert.equal(await res.text(), "ok");
    };
    try {
      await Promise.all([call("a"), call("b")]);
      for (let i = 0; i < 100 && got.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
      const of = (id: string) =>
        got.filter((l) => l.requestId === id).map(({ level, text }) => [level, text]);
      assert.deepEqual(of("id-a"), [["log", "hello a { n: 1 }"], ["warn", "later a"]]);
      assert.deepEqual(of("id-b"), [["log", "hello b { n: 1 }"], ["warn", "later b"]]);
      assert.ok(got.every((l) => l.source === "talker"));
    } finally {
      await handle.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}
