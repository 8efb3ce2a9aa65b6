/**
 * The World Labs client (packages/shared/worlds/provider.ts) against the sandbox stand-in, without
 * the platform: the documented wire format (WLT-Api-Key, generate -> operation -> world with
 * assets), the provider's errors ({detail}, 401, 422) surfacing as WorldLabsError, and the
 * scripts (succeed after N polls, fail, hang) tests rely on.
 */
import assert from "node:assert/strict";
import { WorldLabsClient, WorldLabsError } from "@shared/worlds/provider.ts";
import { assetUrls } from "@shared/worlds/mod.ts";
import { WorldLabsStandIn } from "../../../stack/sandbox/providers/worldlabs.ts";

async function withStandIn(fn: (s: WorldLabsStandIn, url: string) => Promise<void>) {
  const s = new WorldLabsStandIn();
  const abort = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} },
    (req) => s.serve(req, new URL(req.url).pathname),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  s.baseUrl = url;
  try {
    await fn(s, url);
  } finally {
    abort.abort();
    await server.finished;
  }
}

const prompt = {
  model: "Marble 0.1-mini",
  world_prompt: {
    type: "image" as const,
    image_prompt: { source: "uri" as const, uri: "https://93.184.216.34/a.jpg" },
    text_prompt: "A loft",
  },
};

Deno.test("World Labs client and stand-in: generate, poll until done, world assets", async () => {
  await withStandIn(async (s, url) => {
    const client = new WorldLabsClient({ apiKey: "wlt_test", baseUrl: url });
    s.succeed({ polls: 2 });
    const op = await client.generate(prompt);
    assert.equal(op.done, false);
    assert.match(op.operation_id, /^op_/);
    assert.equal((await client.operation(op.operation_id)).done, false);
    const done = await client.operation(op.operation_id);
    assert.equal(done.done, true);
    assert.equal(done.error, null);
    const world = await client.world(done.metadata!.world_id!);
    assert.deepEqual(world, done.response);
    const urls = assetUrls(world);
    assert.ok(urls.splat_url_100k && urls.splat_url_500k && urls.splat_url_full && urls.collider_glb_url);
    assert.match(urls.caption!, /A loft/);
    assert.equal((await fetch(urls.collider_glb_url!)).status, 200);
    const first = s.captures.requests()[0];
    assert.equal(first.path, "/marble/v1/worlds:generate");
    assert.ok(first.headers["wlt-api-key"]);
  });
});

Deno.test("World Labs stand-in: fail and hang scripts; errors in the API's shape", async () => {
  await withStandIn(async (s, url) => {
    const client = new WorldLabsClient({ apiKey: "wlt_test", baseUrl: url });
    s.fail({ polls: 1, message: "no scene" }).hang();
    const failing = await client.generate(prompt);
    const failed = await client.operation(failing.operation_id);
    assert.equal(failed.done, true);
    assert.equal(failed.error?.message, "no scene");
    assert.equal(failed.response, null);
    const hanging = await client.generate(prompt);
    for (let i = 0; i < 5; i++) assert.equal((await client.operation(hanging.operation_id)).done, false);

    const noKey = new WorldLabsClient({ apiKey: "", baseUrl: url });
    await assert.rejects(noKey.generate(prompt), (e) => e instanceof WorldLabsError && e.status === 401);
    await assert.rejects(
      client.generate({ ...prompt, model: "marble-9" }),
      (e) => e instanceof WorldLabsError && e.status === 422 && /model/.test(e.detail),
    );
    s.failNext(402, { message: "Insufficient API credits" });
    await assert.rejects(
      client.generate(prompt),
      (e) => e instanceof WorldLabsError && e.status === 402 && e.detail === "Insufficient API credits",
    );
    await assert.rejects(
      client.operation("op_missing"),
      (e) => e instanceof WorldLabsError && e.status === 404,
    );
  });
});
