/**
 * Social publishing throughput: `deno run -A bench/social.ts [--posts 300]`.
 *
 * Starts an ephemeral local platform whose Late is the sandbox stand-in (its own webhooks off),
 * connects one facebook account through the OAuth round trip, then measures over HTTP:
 *   - social-publish publish_now (user JWT, unique content each, 4 workers): latency and req/s;
 *   - social-webhook-handler (signed post.published events, unique ids, 8 workers): latency and
 *     req/s, signature check and the idempotent SQL apply included;
 *   - one social-publish-cron tick over --posts due scheduled posts: wall time per post.
 */
import { parseArgs } from "node:util";
import { startEphemeralPlatform } from "../fixtures/platform.ts";
import { createUser, createWorkspace } from "../fixtures/platform.ts";
import { fmtLoad, load } from "./lib.ts";

const { values } = parseArgs({ args: Deno.args, options: { posts: { type: "string", default: "300" } } });
const due = Number(values.posts);

const p = await startEphemeralPlatform();
try {
  const late = p.sandbox!.get("late");
  late.reset();
  late.autoWebhooks = false;
  const owner = await createUser(p, "bench-social");
  const ws = await createWorkspace(p, owner.id, {}, "Bench social");
  const fn = (name: string, body: unknown) =>
    fetch(`${p.url}/functions/v1/${name}`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${owner.accessToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  const started = await fn("social-oauth", { action: "connect", platform: "facebook", workspace_id: ws });
  const redirect = await fetch(started.body.oauth_url, { redirect: "manual" });
  await redirect.body?.cancel();
  const back = new URL(redirect.headers.get("location")!);
  const cb = await fn("social-oauth", {
    action: "callback",
    platform: "facebook",
    workspace_id: ws,
    late_account_id: back.searchParams.get("accountId"),
    state: back.searchParams.get("state"),
  });
  if (cb.status !== 200) throw new Error(`callback answered ${cb.status}: ${JSON.stringify(cb.body)}`);
  const account = cb.body.account.id as string;

  let n = 0;
  const publish = await load(async () => {
    const r = await fn("social-publish", {
      action: "publish_now",
      social_account_id: account,
      workspace_id: ws,
      content: `Bench post ${n++} ${crypto.randomUUID()}`,
    });
    return r.status === 200;
  }, { requests: 300, concurrency: 4, warmup: 20 });
  console.log(fmtLoad("social-publish publish_now (4 workers)", publish));

  const lateIds = [...late.posts.keys()];
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(late.webhookSecret),
    {
      name: "HMAC",
      hash: "SHA-256",
    },
    false,
    ["sign"],
  );
  let e = 0;
  const hooks = await load(async () => {
    const postId = lateIds[e % lateIds.length];
    const body = JSON.stringify({
      id: `evt_bench_${e++}`,
      event: "post.published",
      ...late.postPayload(postId),
      timestamp: new Date().toISOString(),
    });
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)));
    const res = await fetch(`${p.url}/functions/v1/social-webhook-handler`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-zernio-signature": [...mac].map((b) => b.toString(16).padStart(2, "0")).join(""),
      },
      body,
    });
    await res.body?.cancel();
    return res.status === 200;
  }, { requests: 1000, concurrency: 8, warmup: 20 });
  console.log(fmtLoad("social-webhook-handler signed events (8 workers)", hooks));

  await p.db.query(
    `insert into public.social_posts (workspace_id, social_account_id, platform, content, status, scheduled_at)
     select $1, $2, 'facebook', 'Scheduled bench ' || g || ' ' || gen_random_uuid(), 'scheduled', now() - interval '1 second'
       from generate_series(1, $3) g`,
    [ws, account, due],
  );
  const t0 = performance.now();
  const tick = await fetch(`${p.url}/functions/v1/social-publish-cron`, {
    method: "POST",
    headers: {
      apikey: p.config.serviceRoleKey,
      authorization: `Bearer ${p.config.serviceRoleKey}`,
      "content-type": "application/json",
    },
    body: "{}",
  }).then((r) => r.json());
  const ms = performance.now() - t0;
  // One tick claims batches of 50 until none is due or its 20 s budget is spent.
  console.log(
    `social-publish-cron one tick: claimed=${tick.claimed} of ${due} due, ${ms.toFixed(0)} ms, ` +
      `${(ms / Math.max(1, tick.claimed)).toFixed(1)} ms/post`,
  );
} finally {
  await p.stop();
}
