/**
 * social-webhook-handler (Late's signature: hex HMAC-SHA256 of the raw body in X-Zernio-Signature
 * or the legacy X-Late-Signature; forged, unsigned, tampered and replayed deliveries refused with
 * nothing changed; the same event twice changes nothing more) and social-analytics (post metrics
 * and account insights stored from the provider; best times computed from the account's own
 * history; outsiders refused).
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { createTeam } from "../helpers/team.ts";
import { connectAccount, late, post, rows, socialSnapshot } from "./helpers.ts";

async function hmacHex(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

platformTest(
  "social-webhook-handler: signed events applied once; forged or replayed refused, nothing changed",
  async (p) => {
    const t = await createTeam(p, { prefix: "soc-hook" });
    const lt = late(p);
    lt.autoWebhooks = false;
    const owner = t.owner.accessToken;
    const fb = await connectAccount(p, owner, t.ws, "facebook");
    const pub = await post(p, "social-publish", owner, {
      action: "publish_now",
      social_account_id: fb.id,
      workspace_id: t.ws,
      content: "Terrazzo tiles are back",
    });
    assert.equal(pub.status, 200, JSON.stringify(pub.body));
    const lateId = pub.body.late_post_id as string;
    const url = `${p.url}/functions/v1/social-webhook-handler`;
    const send = (body: string, headers: Record<string, string>) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
        .then(async (r) => ({ status: r.status, body: await r.json() }));

    // The platform later reports the post failed (e.g. removed by moderation): applied once.
    const stored = lt.posts.get(lateId)!;
    stored.status = "failed";
    stored.platforms[0].status = "failed";
    stored.platforms[0].errorMessage = "Removed by the platform";
    const first = await lt.postEvent(lateId, "post.failed");
    assert.equal(first.status, 200, first.body);
    assert.deepEqual(JSON.parse(first.body), { received: true, event: "post.failed", outcome: "applied" });
    const [row] = await rows(
      p,
      `select status, error_message, updated_at from public.social_posts where late_post_id = $1`,
      [lateId],
    );
    assert.equal(row.status, "failed");
    assert.equal(row.error_message, "Removed by the platform");

    // The same delivery again (same id, same signature): acknowledged, nothing changes.
    const raw = JSON.stringify(first.payload);
    const sig = await hmacHex(lt.webhookSecret, raw);
    const snap = await socialSnapshot(p);
    const again = await send(raw, { "x-zernio-signature": sig });
    assert.equal(again.status, 200);
    assert.equal(again.body.outcome, "duplicate");
    assert.equal(await socialSnapshot(p), snap, "a redelivery changes nothing");

    // Forged, unsigned, tampered, truncated, wrong secret: 401, nothing changes.
    const forgedEvent = JSON.stringify({ ...first.payload, id: "evt_forged", event: "post.published" });
    const attempts: [string, Record<string, string>][] = [
      [forgedEvent, {}],
      [forgedEvent, { "x-zernio-signature": sig }],
      [forgedEvent, { "x-zernio-signature": await hmacHex("late_whsec_guess", forgedEvent) }],
      [forgedEvent, { "x-zernio-signature": (await hmacHex(lt.webhookSecret, forgedEvent)).slice(0, -2) }],
      [forgedEvent, { "x-zernio-signature": "zz".repeat(32) }],
      [`${forgedEvent} `, { "x-zernio-signature": await hmacHex(lt.webhookSecret, forgedEvent) }],
    ];
    for (const [body, headers] of attempts) {
      const r = await send(body, headers);
      assert.equal(r.status, 401, JSON.stringify(headers));
    }
    const unsigned = await lt.postEvent(lateId, "post.published", { sign: false });
    assert.equal(unsigned.status, 401);
    // A genuine delivery replayed after the window: refused (its id was never applied).
    const stale = await lt.postEvent(lateId, "post.published", {
      id: "evt_old",
      timestamp: new Date(Date.now() - 10 * 60_000).toISOString(),
    });
    assert.equal(stale.status, 401);
    assert.match(JSON.parse(stale.body).error, /replay window/);
    const future = await lt.postEvent(lateId, "post.published", {
      timestamp: new Date(Date.now() + 10 * 60_000).toISOString(),
    });
    assert.equal(future.status, 401);
    assert.equal(await socialSnapshot(p), snap, "refused deliveries change nothing");

    // The legacy header is accepted; a published event restores the post and its URL.
    stored.status = "published";
    stored.platforms[0] = { ...stored.platforms[0], status: "published", errorMessage: undefined };
    const payload = JSON.stringify({
      id: "evt_legacy",
      event: "post.published",
      ...lt.postPayload(lateId),
      timestamp: new Date().toISOString(),
    });
    const legacy = await send(payload, { "x-late-signature": await hmacHex(lt.webhookSecret, payload) });
    assert.equal(legacy.status, 200, JSON.stringify(legacy.body));
    assert.equal(legacy.body.outcome, "applied");
    const [back] = await rows(
      p,
      `select status, error_message, platform_post_url from public.social_posts where late_post_id = $1`,
      [lateId],
    );
    assert.equal(back.status, "published");
    assert.equal(back.error_message, null);
    assert.equal(back.platform_post_url, stored.platforms[0].platformPostUrl);

    // comment.received counts one comment, once.
    const c1 = await lt.commentEvent(lateId, "Love these");
    assert.equal(JSON.parse(c1.body).outcome, "applied");
    const c1Again = await send(JSON.stringify(c1.payload), {
      "x-zernio-signature": await hmacHex(lt.webhookSecret, JSON.stringify(c1.payload)),
    });
    assert.equal(c1Again.body.outcome, "duplicate");
    await lt.commentEvent(lateId, "Price?");
    const [m] = await rows(
      p,
      `select comments from public.social_post_analytics a join public.social_posts s on s.id = a.post_id where s.late_post_id = $1`,
      [lateId],
    );
    assert.equal(m.comments, 2);

    // Unknown posts and accounts are acknowledged without effect; account.disconnected deactivates.
    const unknown = await lt.sendEvent("post.published", {
      post: { id: "000000000000000000000000", platforms: [] },
    });
    assert.equal(JSON.parse(unknown.body).outcome, "unknown_post");
    const gone = await lt.sendEvent("account.disconnected", {
      account: { accountId: fb.late_account_id, platform: "facebook", disconnectionType: "revoked" },
    });
    assert.equal(JSON.parse(gone.body).outcome, "applied");
    const [acc] = await rows(p, `select is_active from public.social_accounts where id = $1`, [fb.id]);
    assert.equal(acc.is_active, false);
    const other = await lt.sendEvent("webhook.test", {});
    assert.equal(JSON.parse(other.body).outcome, "ignored");

    // Not an event: 400 (signed, so it is ours to reject); too large: 413.
    const notJson = "not json";
    assert.equal(
      (await send(notJson, { "x-zernio-signature": await hmacHex(lt.webhookSecret, notJson) })).status,
      400,
    );
    const noId = JSON.stringify({ event: "post.published", timestamp: new Date().toISOString() });
    assert.equal(
      (await send(noId, { "x-zernio-signature": await hmacHex(lt.webhookSecret, noId) })).status,
      400,
    );
    const big = JSON.stringify({ pad: "x".repeat(300 * 1024) });
    assert.equal((await send(big, {})).status, 413);
  },
);

platformTest(
  "social-analytics: metrics and insights stored from the provider; best times from history",
  async (p) => {
    const t = await createTeam(p, { prefix: "soc-an" });
    const lt = late(p);
    lt.autoWebhooks = false;
    const owner = t.owner.accessToken;
    const ig = await connectAccount(p, owner, t.ws, "instagram");
    const ids: string[] = [];
    const lateIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await post(p, "social-publish", owner, {
        action: "publish_now",
        social_account_id: ig.id,
        workspace_id: t.ws,
        content: `Showroom tour ${i}`,
        media_url: "https://cdn.example/p/tour.jpg",
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      ids.push(r.body.post_id);
      lateIds.push(r.body.late_post_id);
    }
    lt.setAnalytics(lateIds[0], {
      likes: 40,
      comments: 5,
      shares: 3,
      reach: 900,
      impressions: 1200,
      saves: 2,
    });
    lt.setAnalytics(lateIds[1], { likes: 10, comments: 1, shares: 0, reach: 300, impressions: 400 });
    lt.setAnalytics(lateIds[2], {
      likes: 100,
      comments: 20,
      shares: 10,
      reach: 3000,
      impressions: 5000,
      saves: 10,
    });
    lt.analyticsPending(lateIds[3]);
    const missing = crypto.randomUUID();

    const an = await post(p, "social-analytics", t.viewer.accessToken, {
      action: "get_post_analytics",
      post_ids: [...ids, missing],
      workspace_id: t.ws,
    });
    assert.equal(an.status, 200, JSON.stringify(an.body));
    assert.deepEqual(an.body.pending, [ids[3]]);
    assert.deepEqual(an.body.not_found, [missing]);
    const byPost = Object.fromEntries(an.body.analytics.map((a: { post_id: string }) => [a.post_id, a]));
    assert.deepEqual(
      [byPost[ids[0]].likes, byPost[ids[0]].comments, byPost[ids[0]].shares, byPost[ids[0]].reach],
      [40, 5, 3, 900],
    );
    const stored = await rows(
      p,
      `select post_id, likes, comments, shares, reach, impressions from public.social_post_analytics where workspace_id = $1 order by likes`,
      [t.ws],
    );
    assert.deepEqual(stored.map((r) => [r.post_id, r.likes, r.comments, r.shares, r.reach, r.impressions]), [
      [ids[1], 10, 1, 0, 300, 400],
      [ids[0], 40, 5, 3, 900, 1200],
      [ids[2], 100, 20, 10, 3000, 5000],
    ]);
    // Fetching again overwrites (no double counting).
    lt.setAnalytics(lateIds[1], { likes: 12 });
    await post(p, "social-analytics", owner, {
      action: "get_post_analytics",
      post_ids: [ids[1], ids[1]],
      workspace_id: t.ws,
    });
    const [again] = await rows(
      p,
      `select likes, comments from public.social_post_analytics where post_id = $1`,
      [ids[1]],
    );
    assert.deepEqual(again, { likes: 12, comments: 1 });

    // Insights: follower count, reach and impressions over 30 days, one row per day.
    lt.setFollowers(ig.late_account_id, 1520);
    const ins = await post(p, "social-analytics", t.member.accessToken, {
      action: "get_account_insights",
      social_account_id: ig.id,
    });
    assert.equal(ins.status, 200, JSON.stringify(ins.body));
    assert.equal(ins.body.insights.followers_count, 1520);
    assert.equal(Number(ins.body.insights.reach), 900 + 300 + 3000);
    assert.equal(Number(ins.body.insights.impressions), 1200 + 400 + 5000);
    lt.setFollowers(ig.late_account_id, 1600);
    await post(p, "social-analytics", owner, { action: "get_account_insights", social_account_id: ig.id });
    const insightRows = await rows(
      p,
      `select followers_count from public.social_account_insights where social_account_id = $1`,
      [ig.id],
    );
    assert.deepEqual(insightRows, [{ followers_count: 1600 }]);
    const [acc] = await rows(p, `select followers_count from public.social_accounts where id = $1`, [ig.id]);
    assert.equal(acc.followers_count, 1600);

    // Best time: from this account's published posts and their stored metrics, by UTC day and hour.
    const stamps = [
      "2026-03-02T09:15:00Z",
      "2026-03-09T09:40:00Z",
      "2026-03-04T18:05:00Z",
      "2026-03-06T12:00:00Z",
    ];
    for (const [i, at] of stamps.entries()) {
      await p.db.query(`update public.social_posts set published_at = $2 where id = $1`, [ids[i], at]);
    }
    const best = await post(p, "social-analytics", t.viewer.accessToken, {
      action: "get_best_time",
      social_account_id: ig.id,
      platform: "instagram",
    });
    assert.equal(best.status, 200, JSON.stringify(best.body));
    // Wednesday 18h: 140; Monday 9h: (50 + 13) / 2 = 31.5. The pending post has no metrics.
    assert.deepEqual(best.body.best_times, [
      { day: "wednesday", day_of_week: 3, hour: 18, avg_engagement: 140, post_count: 1 },
      { day: "monday", day_of_week: 1, hour: 9, avg_engagement: 31.5, post_count: 2 },
    ]);
    assert.equal(best.body.based_on_posts, 3);
    // Another account with no history: no slots, not made-up ones.
    const li = await connectAccount(p, owner, t.ws, "linkedin");
    const none = await post(p, "social-analytics", owner, {
      action: "get_best_time",
      social_account_id: li.id,
      platform: "linkedin",
    });
    assert.deepEqual(none.body.best_times, []);
    const mismatch = await post(p, "social-analytics", owner, {
      action: "get_best_time",
      social_account_id: li.id,
      platform: "instagram",
    });
    assert.equal(mismatch.status, 400);

    // Outsiders: 404 for the account and the workspace; their post ids read nothing of ours.
    const snap = await socialSnapshot(p);
    for (
      const body of [
        { action: "get_account_insights", social_account_id: ig.id },
        { action: "get_best_time", social_account_id: ig.id, platform: "instagram" },
        { action: "get_post_analytics", post_ids: ids, workspace_id: t.ws },
      ]
    ) {
      const r = await post(p, "social-analytics", t.outsider.accessToken, body);
      assert.equal(r.status, 404, JSON.stringify(body));
    }
    const own = await post(p, "social-analytics", t.outsider.accessToken, {
      action: "get_post_analytics",
      post_ids: ids,
      workspace_id: t.otherWs,
    });
    assert.equal(own.status, 200);
    assert.deepEqual(own.body.analytics, []);
    assert.deepEqual(own.body.not_found, ids);
    assert.equal(await socialSnapshot(p), snap);
    assert.equal(
      (await post(p, "social-analytics", null, {
        action: "get_best_time",
        social_account_id: ig.id,
        platform: "instagram",
      })).status,
      401,
    );

    // RLS: members read their rows through /rest/v1, outsiders see none.
    for (const [token, expected] of [[t.viewer.accessToken, 4], [t.outsider.accessToken, 0]] as const) {
      const res = await fetch(`${p.url}/rest/v1/social_posts?select=id&workspace_id=eq.${t.ws}`, {
        headers: { apikey: p.config.anonKey, authorization: `Bearer ${token}` },
      });
      assert.equal((await res.json()).length, expected);
    }
    const states = await fetch(`${p.url}/rest/v1/social_oauth_states?select=id`, {
      headers: { apikey: p.config.anonKey, authorization: `Bearer ${owner}` },
    });
    assert.ok(
      states.status === 401 || states.status === 403,
      `oauth states are not readable (${states.status})`,
    );
    await states.body?.cancel();
  },
);
