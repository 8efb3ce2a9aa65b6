/**
 * generate-vr-world over HTTP as a frontend calls it, against the World Labs stand-in: the spec's
 * response fields and the stored row; 405 (with Allow), 401, the 400s (required fields, public
 * http(s) URLs only); 402 when short; provider failures and timeouts answered 500 with the credits
 * refunded exactly once, to the cent; concurrent calls on a small balance never overdraw (exactly
 * the affordable number succeed).
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createUser, platformTest } from "../helpers/platform.ts";
import { balance, grant } from "../helpers/team.ts";
import { call } from "../quotes/helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const IMAGE = "https://93.184.216.34/rooms/living-room.jpg";

function standIn(p: Platform) {
  const s = p.sandbox!.get("worldlabs");
  s.reset();
  // Small, fast polling for tests; the deadline is generous unless a test shortens it.
  p.env.VR_WORLD_POLL_INTERVAL_MS = "20";
  p.env.VR_WORLD_TIMEOUT_MS = "10000";
  return s;
}

function generate(p: Platform, token: string | null, body: unknown, method = "POST") {
  return call(p, "generate-vr-world", "", { method, token, body });
}

async function ledger(p: Platform, userId: string) {
  return (await p.db.query<{ kind: string; amount: string; action: string }>(
    `select kind, amount, action from public.credit_transactions where user_id = $1 and kind in ('debit', 'refund')
     order by created_at, kind`,
    [userId],
  )).rows.map((r) => [r.kind, Number(r.amount), r.action]);
}

platformTest("generate: the world's fields, the row, the provider request, 75 credits", async (p) => {
  const wl = standIn(p);
  const u = await createUser(p, "vr-happy");
  const outsider = await createUser(p, "vr-out");
  await grant(p, u.id, 100);
  wl.succeed({ polls: 2 });
  const r = await generate(p, u.accessToken, {
    source_image_url: IMAGE,
    prompt: "A bright Scandinavian living room",
    room_type: "living room",
    style: "minimal",
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true);
  const d = r.body.data as Json;
  assert.deepEqual(Object.keys(d).sort(), [
    "caption",
    "collider_glb_url",
    "completed_at",
    "credits_charged",
    "id",
    "panorama_url",
    "splat_url_100k",
    "splat_url_500k",
    "splat_url_full",
    "status",
    "thumbnail_url",
    "world_id",
  ]);
  assert.equal(d.status, "completed");
  assert.equal(d.credits_charged, 75);
  assert.match(d.world_id, /^wld_/);
  assert.match(d.splat_url_100k, /splats_100k\.spz$/);
  assert.match(d.splat_url_500k, /splats_500k\.spz$/);
  assert.match(d.splat_url_full, /splats\.spz$/);
  assert.match(d.collider_glb_url, /collider\.glb$/);
  assert.match(d.panorama_url, /pano\.webp$/);
  assert.match(d.thumbnail_url, /thumbnail\.webp$/);
  assert.match(d.caption, /Scandinavian living room/);
  assert.ok(!Number.isNaN(Date.parse(d.completed_at)));
  assert.equal(await balance(p, u.id), 25);
  // The stored URLs lead to the assets.
  const asset = await fetch(d.splat_url_full);
  assert.equal(asset.status, 200);
  await asset.body?.cancel();

  // The provider was called on its wire format: generate, then polls until done.
  const reqs = wl.captures.requests().filter((c) => c.path.startsWith("/marble/"));
  assert.deepEqual(reqs.map((c) => `${c.method} ${c.path.replace(/op_[0-9a-f]+/, "{op}")}`), [
    "POST /marble/v1/worlds:generate",
    "GET /marble/v1/operations/{op}",
    "GET /marble/v1/operations/{op}",
  ]);
  assert.ok(reqs[0].headers["wlt-api-key"], "the key travels in WLT-Api-Key");
  const sent = reqs[0].body as Json;
  assert.equal(sent.model, "Marble 0.1-mini");
  assert.deepEqual(sent.world_prompt.image_prompt, { source: "uri", uri: IMAGE });
  assert.match(sent.world_prompt.text_prompt, /Room type: living room\. Style: minimal\./);

  // The row: the user reads it, nobody else does.
  const own = await u.client.from("vr_worlds").select("*").eq("id", d.id).single();
  assert.equal(own.error, null);
  const row = own.data as Json;
  assert.equal(row.status, "completed");
  assert.equal(row.world_id, d.world_id);
  assert.equal(row.splat_url_full, d.splat_url_full);
  assert.equal(row.collider_glb_url, d.collider_glb_url);
  assert.equal(row.model, "world-0.1-mini");
  assert.equal(Number(row.credits_charged), 75);
  assert.match(row.operation_id, /^op_/);
  assert.equal(row.credits_refunded, false);
  assert.deepEqual((await outsider.client.from("vr_worlds").select("id").eq("id", d.id)).data, []);

  // world-0.1-plus costs 300.
  await grant(p, u.id, 300);
  const plus = await generate(p, u.accessToken, {
    source_image_url: IMAGE,
    prompt: "Loft",
    model: "world-0.1-plus",
  });
  assert.equal(plus.status, 200, JSON.stringify(plus.body));
  assert.equal((plus.body.data as Json).credits_charged, 300);
  assert.equal(await balance(p, u.id), 25);
  assert.equal(
    (wl.captures.requests().find((c) => c.path.endsWith("worlds:generate") && c !== reqs[0])!.body as Json)
      .model,
    "Marble 0.1-plus",
  );
});

platformTest(
  "refusals: 405 with Allow, 401, 400s (fields, private URLs), 402; nothing debited",
  async (p) => {
    const wl = standIn(p);
    const u = await createUser(p, "vr-refuse");
    await grant(p, u.id, 100);
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const r = await generate(p, u.accessToken, undefined, method);
      assert.equal(r.status, 405, method);
      assert.match(r.headers.get("allow") ?? "", /POST/);
    }
    assert.equal((await generate(p, null, { source_image_url: IMAGE, prompt: "x" })).status, 401);
    assert.equal((await generate(p, p.config.anonKey, { source_image_url: IMAGE, prompt: "x" })).status, 401);
    assert.equal(
      (await generate(p, p.config.serviceRoleKey, { source_image_url: IMAGE, prompt: "x" })).status,
      401,
    );

    const bad: [unknown, RegExp][] = [
      [{ prompt: "x" }, /source_image_url/],
      [{ source_image_url: IMAGE }, /prompt/],
      [{ source_image_url: IMAGE, prompt: "   " }, /prompt/],
      [{ source_image_url: IMAGE, prompt: "x", model: "world-2" }, /model/],
      [{ source_image_url: "not a url", prompt: "x" }, /source_image_url/],
      [{ source_image_url: "ftp://93.184.216.34/a.jpg", prompt: "x" }, /http/],
      [{ source_image_url: "http://127.0.0.1:54321/storage/v1/object/a.jpg", prompt: "x" }, /loopback/],
      [{ source_image_url: "http://169.254.169.254/latest/meta-data/", prompt: "x" }, /link-local|metadata/],
      [{ source_image_url: "http://10.1.2.3/a.jpg", prompt: "x" }, /private/],
      [{ source_image_url: "http://[::1]/a.jpg", prompt: "x" }, /loopback/],
      [{ source_image_url: "http://localhost/a.jpg", prompt: "x" }, /localhost/],
      [{ source_image_url: "http://metadata.google.internal/a.jpg", prompt: "x" }, /not a public/],
      [{ source_image_url: "https://user:pw@93.184.216.34/a.jpg", prompt: "x" }, /credentials/],
    ];
    for (const [body, why] of bad) {
      const r = await generate(p, u.accessToken, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(JSON.stringify(r.body), why, JSON.stringify(r.body));
    }
    const notJson = await call(p, "generate-vr-world", "", {
      method: "POST",
      token: u.accessToken,
      rawBody: "{",
    });
    assert.equal(notJson.status, 400);
    // A workspace the caller is not in.
    const ws = await p.db.query<{ id: string }>(
      `insert into public.workspaces (name, owner_id) values ('Theirs', $1) returning id`,
      [(await createUser(p, "vr-owner")).id],
    );
    const foreign = await generate(p, u.accessToken, {
      source_image_url: IMAGE,
      prompt: "x",
      workspace_id: ws.rows[0].id,
    });
    assert.equal(foreign.status, 404);

    // 402: 100 credits do not buy a plus world; nothing is written, the provider is not called.
    const short = await generate(p, u.accessToken, {
      source_image_url: IMAGE,
      prompt: "x",
      model: "world-0.1-plus",
    });
    assert.equal(short.status, 402, JSON.stringify(short.body));
    assert.equal(short.body.code, "insufficient_credits");
    assert.equal(await balance(p, u.id), 100);
    assert.deepEqual(await ledger(p, u.id), []);
    assert.equal(
      (await p.db.query(`select 1 from public.vr_worlds where user_id = $1`, [u.id])).rows.length,
      0,
    );
    assert.equal(wl.captures.requests().length, 0);
  },
);

platformTest(
  "failures: provider error, failed operation and timeout are 500s, refunded exactly once",
  async (p) => {
    const wl = standIn(p);
    const u = await createUser(p, "vr-fail");
    await grant(p, u.id, 80.25);
    const body = { source_image_url: IMAGE, prompt: "Kitchen" };

    // The generate call itself fails.
    wl.failNext(500, { message: "upstream exploded" });
    const down = await generate(p, u.accessToken, body);
    assert.equal(down.status, 500, JSON.stringify(down.body));
    assert.equal(down.body.code, "generation_failed");
    assert.match(down.body.error as string, /upstream exploded/);
    assert.equal((down.body.details as Json).credits_refunded, true);
    assert.equal(await balance(p, u.id), 80.25);

    // The operation ends with an error.
    wl.fail({ polls: 1, message: "Could not reconstruct the scene" });
    const failed = await generate(p, u.accessToken, body);
    assert.equal(failed.status, 500);
    assert.match(failed.body.error as string, /Could not reconstruct the scene/);
    assert.equal(await balance(p, u.id), 80.25);

    // The operation never finishes: the deadline ends it.
    p.env.VR_WORLD_TIMEOUT_MS = "400";
    wl.hang();
    const hung = await generate(p, u.accessToken, body);
    assert.equal(hung.status, 500, JSON.stringify(hung.body));
    assert.equal(hung.body.code, "generation_timeout");
    assert.equal(await balance(p, u.id), 80.25);
    // A provider that stops answering mid-poll hits the same deadline.
    wl.setLatency(2000);
    const slow = await generate(p, u.accessToken, body);
    assert.equal(slow.status, 500);
    assert.equal(slow.body.code, "generation_timeout");
    wl.setLatency(0);
    assert.equal(await balance(p, u.id), 80.25);

    // Every debit has exactly one refund; every row says why it failed.
    assert.deepEqual(await ledger(p, u.id), [
      ["debit", -75, "vr_world:world-0.1-mini"],
      ["refund", 75, "World generation failed: World Labs answered HTTP 500: upstream exploded"],
      ["debit", -75, "vr_world:world-0.1-mini"],
      ["refund", 75, "World generation failed: the generation failed: Could not reconstruct the scene"],
      ["debit", -75, "vr_world:world-0.1-mini"],
      ["refund", 75, "The world was not ready within 0.4 s"],
      ["debit", -75, "vr_world:world-0.1-mini"],
      ["refund", 75, "The world was not ready within 0.4 s"],
    ]);
    const rows = (await p.db.query<Json>(
      `select status, error, credits_refunded, operation_id from public.vr_worlds where user_id = $1 order by created_at`,
      [u.id],
    )).rows;
    assert.deepEqual(rows.map((r) => [r.status, r.credits_refunded]), [
      ["failed", true],
      ["failed", true],
      ["failed", true],
      ["failed", true],
    ]);
    assert.equal(rows[0].operation_id, null);
    assert.match(rows[2].operation_id, /^op_/);
  },
);

platformTest("concurrency: on a small balance exactly the affordable number of worlds succeed", async (p) => {
  standIn(p);
  const u = await createUser(p, "vr-race");
  await grant(p, u.id, 230.5);
  const results = await Promise.all(
    Array.from(
      { length: 5 },
      (_, i) => generate(p, u.accessToken, { source_image_url: IMAGE, prompt: `Room ${i}` }),
    ),
  );
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 200, 200, 402, 402], JSON.stringify(results.map((r) => r.body)));
  assert.equal(await balance(p, u.id), 5.5);
  const worlds = await p.db.query(`select status from public.vr_worlds where user_id = $1`, [u.id]);
  assert.deepEqual(worlds.rows.map((r) => (r as Json).status), ["completed", "completed", "completed"]);
});
