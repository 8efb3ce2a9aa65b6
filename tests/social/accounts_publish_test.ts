/**
 * social-oauth (connect -> provider OAuth -> callback; a state used twice, expired, forged or
 * for another workspace refused; list; disconnect) and social-publish (all eight platforms,
 * per-platform limits before anything is sent, provider failure, schedule) and the per-minute
 * tick (social-publish-cron, also through the pg_cron job's own command) publishing a scheduled
 * post exactly once. Outsiders and lower roles are refused.
 */
import assert from "node:assert/strict";
import { pauseCronJobsInModule, platformTest } from "../helpers/platform.ts";
import { createTeam } from "../helpers/team.ts";
import { waitFor } from "../cron/helpers.ts";
import {
  authorize,
  connectAccount,
  get,
  late,
  post,
  REDIRECT,
  rows,
  socialSnapshot,
  startConnect,
} from "./helpers.ts";

// This module drives social-publish-cron by hand: the real per-minute tick must not claim its work.
pauseCronJobsInModule("social-publish-cron");

const PLATFORMS = [
  "instagram",
  "facebook",
  "linkedin",
  "tiktok",
  "pinterest",
  "youtube",
  "twitter",
  "threads",
];
const MEDIA: Record<string, string | null> = {
  instagram: "https://cdn.example/p/tile.jpg",
  facebook: null,
  linkedin: "https://cdn.example/p/tile.png",
  tiktok: "https://cdn.example/v/clip.mp4",
  pinterest: "https://cdn.example/p/board.webp",
  youtube: "https://cdn.example/v/tour.mov",
  twitter: null,
  threads: null,
};

platformTest(
  "social-oauth: connect, callback, list, disconnect; states are signed, single-use, expiring",
  async (p) => {
    const t = await createTeam(p, { prefix: "soc-oauth" });
    const lt = late(p);
    const owner = t.owner.accessToken;

    // connect -> the provider's OAuth URL, whose redirect carries our state back.
    const started = await startConnect(p, owner, t.ws, "instagram");
    assert.match(started.oauth_url, new RegExp(`^${lt.baseUrl}/oauth/authorize\\?state=`));
    const back = await authorize(started.oauth_url);
    assert.equal(back.state, started.state);
    assert.equal(back.connected, "instagram");
    assert.equal(`${back.url.origin}${back.url.pathname}`, REDIRECT);
    const [profile] = await rows(
      p,
      `select late_profile_id from public.social_profiles where workspace_id = $1`,
      [t.ws],
    );
    assert.equal(lt.accounts.get(back.accountId)!.profileId, profile.late_profile_id);

    const cbBody = {
      action: "callback",
      late_account_id: back.accountId,
      platform: "instagram",
      workspace_id: t.ws,
      state: back.state,
    };
    // Another member of the workspace, a lower role, and an outsider cannot spend it.
    assert.equal((await post(p, "social-oauth", t.member.accessToken, cbBody)).status, 403);
    assert.equal((await post(p, "social-oauth", t.outsider.accessToken, cbBody)).status, 404);
    assert.equal(
      (await post(p, "social-oauth", t.admin.accessToken, cbBody)).body.code,
      "state_mismatch",
      "bound to the user",
    );
    assert.equal((await post(p, "social-oauth", null, cbBody)).status, 401);

    const ok = await post(p, "social-oauth", owner, cbBody);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.success, true);
    assert.equal(ok.body.account.late_account_id, back.accountId);
    assert.equal(ok.body.account.platform, "instagram");
    assert.equal(ok.body.account.workspace_id, t.ws);
    assert.equal(ok.body.account.is_active, true);
    assert.equal(ok.body.account.username, lt.accounts.get(back.accountId)!.username);

    // The same state again: refused, nothing changes.
    const before = await socialSnapshot(p);
    const twice = await post(p, "social-oauth", owner, cbBody);
    assert.equal(twice.status, 400);
    assert.equal(twice.body.code, "state_used");
    // Two callbacks racing with one fresh state: one wins.
    const s2 = await startConnect(p, owner, t.ws, "facebook");
    const b2 = await authorize(s2.oauth_url);
    const race = await Promise.all([0, 1].map(() =>
      post(p, "social-oauth", owner, {
        ...cbBody,
        platform: "facebook",
        late_account_id: b2.accountId,
        state: b2.state,
      })
    ));
    assert.deepEqual(
      race.map((r) => r.status).sort(),
      [200, 400],
    );

    // Forged: a tampered payload, a state signed with another key, garbage.
    const [body, mac] = s2.state.split(".");
    const tampered = `${
      btoa(JSON.stringify({ ...JSON.parse(atob(body.replace(/-/g, "+").replace(/_/g, "/"))), w: t.otherWs }))
        .replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")
    }.${mac}`;
    const snap = await socialSnapshot(p);
    for (const state of [tampered, `${body}.${"A".repeat(43)}`, "not-a-state-at-all"]) {
      const r = await post(p, "social-oauth", owner, { ...cbBody, state });
      assert.equal(r.status, 400, state);
      assert.equal(r.body.code, "invalid_state", state);
    }
    assert.equal(await socialSnapshot(p), snap, "a forged state changes nothing");
    // Issued for instagram, presented for facebook: refused.
    const s3 = await startConnect(p, owner, t.ws, "instagram");
    const b3 = await authorize(s3.oauth_url);
    const wrongPlatform = await post(p, "social-oauth", owner, {
      ...cbBody,
      platform: "facebook",
      state: b3.state,
      late_account_id: b3.accountId,
    });
    assert.equal(wrongPlatform.body.code, "state_mismatch");
    // Expired: the row's deadline passed (the signed deadline is checked too).
    await p.db.query(
      `update public.social_oauth_states set expires_at = now() - interval '1 second' where used_at is null`,
    );
    const late1 = await post(p, "social-oauth", owner, {
      ...cbBody,
      state: b3.state,
      late_account_id: b3.accountId,
    });
    assert.equal(late1.status, 400);
    assert.equal(late1.body.code, "state_expired");
    assert.notEqual(await socialSnapshot(p), before, "the race and new connects did write");
    assert.equal(
      (await rows(p, `select count(*)::int as n from public.social_accounts where workspace_id = $1`, [
        t.ws,
      ]))[0].n,
      2,
    );

    // An account connected under another workspace's profile is not found with our state.
    const other = await connectAccount(p, t.outsider.accessToken, t.otherWs, "linkedin");
    const s4 = await startConnect(p, owner, t.ws, "linkedin");
    const steal = await post(p, "social-oauth", owner, {
      action: "callback",
      late_account_id: other.late_account_id,
      platform: "linkedin",
      workspace_id: t.ws,
      state: s4.state,
    });
    assert.equal(steal.status, 404, JSON.stringify(steal.body));
    assert.equal(steal.body.code, "account_not_found");

    // connect: owners and admins only; outsiders see no workspace.
    assert.equal(
      (await post(p, "social-oauth", t.member.accessToken, {
        action: "connect",
        platform: "twitter",
        workspace_id: t.ws,
      })).status,
      403,
    );
    assert.equal(
      (await post(p, "social-oauth", t.outsider.accessToken, {
        action: "connect",
        platform: "twitter",
        workspace_id: t.ws,
      })).status,
      404,
    );
    assert.equal(
      (await post(p, "social-oauth", owner, { action: "connect", platform: "myspace", workspace_id: t.ws }))
        .status,
      400,
    );

    // list: any member; outsiders 404; RLS keeps other workspaces' rows out.
    const list = await get(p, "social-oauth", `?action=list&workspace_id=${t.ws}`, t.viewer.accessToken);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.accounts.map((a: { platform: string }) => a.platform).sort(), [
      "facebook",
      "instagram",
    ]);
    assert.equal(
      (await get(p, "social-oauth", `?action=list&workspace_id=${t.ws}`, t.outsider.accessToken)).status,
      404,
    );
    assert.equal((await get(p, "social-oauth", `?action=list`, owner)).status, 400);

    // disconnect: outsiders 404 (nothing changed), members 403, the owner removes it at the provider.
    const ig = ok.body.account;
    const snap2 = await socialSnapshot(p);
    assert.equal(
      (await post(p, "social-oauth", t.outsider.accessToken, {
        action: "disconnect",
        social_account_id: ig.id,
      })).status,
      404,
    );
    assert.equal(
      (await post(p, "social-oauth", t.member.accessToken, {
        action: "disconnect",
        social_account_id: ig.id,
      })).status,
      403,
    );
    assert.equal(await socialSnapshot(p), snap2);
    const off = await post(p, "social-oauth", owner, { action: "disconnect", social_account_id: ig.id });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(off.body.account.is_active, false);
    assert.equal(lt.accounts.get(ig.late_account_id)!.isActive, false);
    const pub = await post(p, "social-publish", owner, {
      action: "publish_now",
      social_account_id: ig.id,
      workspace_id: t.ws,
      content: "After disconnect",
      media_url: MEDIA.instagram,
    });
    assert.equal(pub.status, 409);
  },
);

platformTest(
  "social-publish: eight platforms, limits checked first, failures recorded, free of credits",
  async (p) => {
    const t = await createTeam(p, { prefix: "soc-pub", credits: 7 });
    const lt = late(p);
    const owner = t.owner.accessToken;
    const accounts: Record<string, { id: string; late_account_id: string }> = {};
    for (const platform of PLATFORMS) accounts[platform] = await connectAccount(p, owner, t.ws, platform);

    for (const platform of PLATFORMS) {
      const r = await post(p, "social-publish", t.member.accessToken, {
        action: "publish_now",
        social_account_id: accounts[platform].id,
        workspace_id: t.ws,
        content: `New oak flooring range on ${platform}`,
        media_url: MEDIA[platform],
      });
      assert.equal(r.status, 200, `${platform}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, true);
      assert.equal(r.body.status, "published");
      const sent = lt.posts.get(r.body.late_post_id)!;
      assert.deepEqual(sent.platforms.map((x) => [x.platform, x.accountId]), [[
        platform,
        accounts[platform].late_account_id,
      ]]);
      assert.deepEqual(
        sent.mediaItems.map((m) => m.type),
        MEDIA[platform] ? [/mp4|mov/.test(MEDIA[platform]!) ? "video" : "image"] : [],
      );
      const [row] = await rows(
        p,
        `select status, late_post_id, platform_post_url from public.social_posts where id = $1`,
        [r.body.post_id],
      );
      assert.equal(row.status, "published");
      assert.equal(row.late_post_id, r.body.late_post_id);
      assert.match(row.platform_post_url, new RegExp(`^https://${platform}\\.example/`));
    }
    await lt.settled();
    // Publishing costs nothing.
    for (const u of [t.owner, t.member]) {
      const [b] = await rows(p, `select balance::text from public.user_credits where user_id = $1`, [u.id]);
      assert.equal(b.balance, "7.0000");
    }

    // Per-platform rules, refused before the provider is called and before anything is written.
    const refusals: [string, Record<string, unknown>, RegExp][] = [
      ["twitter", { content: "x".repeat(281) }, /at most 280 characters \(this one has 281\)/],
      ["twitter", { content: "🧱".repeat(280) }, /^$/], // 280 code points fit
      ["instagram", { content: "No media" }, /need media/],
      [
        "tiktok",
        { content: "Photo", media_url: "https://cdn.example/p/tile.jpg" },
        /does not take image media/,
      ],
      [
        "youtube",
        { content: "Photo", media_url: "https://cdn.example/p/a.png" },
        /does not take image media/,
      ],
      ["pinterest", { content: "p".repeat(501), media_url: "https://cdn.example/p/a.png" }, /at most 500/],
      ["instagram", { content: "Hi", media_url: "https://cdn.example/p/file" }, /give media_type/],
      ["instagram", {
        content: Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(" "),
        media_url: "https://cdn.example/a.jpg",
      }, /at most 30 hashtags/],
      ["linkedin", { content: "l".repeat(3001) }, /at most 3000/],
      ["threads", { content: "t".repeat(501) }, /at most 500/],
    ];
    for (const [platform, extra, problem] of refusals) {
      await lt.settled();
      const postsBefore = lt.posts.size;
      const snap = await socialSnapshot(p);
      const r = await post(p, "social-publish", owner, {
        action: "publish_now",
        social_account_id: accounts[platform].id,
        workspace_id: t.ws,
        ...extra,
      });
      if (problem.source === "^$") {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        continue;
      }
      assert.equal(r.status, 400, `${platform}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "platform_limits");
      assert.match(r.body.error, problem);
      assert.equal(lt.posts.size, postsBefore, "the provider was not called");
      assert.equal(await socialSnapshot(p), snap, "nothing written");
    }
    // media_type names the kind when the URL does not.
    const typed = await post(p, "social-publish", owner, {
      action: "publish_now",
      social_account_id: accounts.tiktok.id,
      workspace_id: t.ws,
      content: "Site tour",
      media_url: "https://cdn.example/v/stream?id=9",
      media_type: "video",
    });
    assert.equal(typed.status, 200, JSON.stringify(typed.body));

    // The provider refuses: 502, the post is recorded failed with the provider's reason.
    lt.failNextPublish("Instagram rejected the media");
    const failed = await post(p, "social-publish", owner, {
      action: "publish_now",
      social_account_id: accounts.instagram.id,
      workspace_id: t.ws,
      content: "Will fail",
      media_url: MEDIA.instagram,
    });
    assert.equal(failed.status, 502, JSON.stringify(failed.body));
    assert.equal(failed.body.code, "publish_failed");
    const [f] = await rows(p, `select status, error_message from public.social_posts where id = $1`, [
      failed.body.details.post_id,
    ]);
    assert.deepEqual(f, { status: "failed", error_message: "Instagram rejected the media" });
    lt.failNext(503);
    const down = await post(p, "social-publish", owner, {
      action: "publish_now",
      social_account_id: accounts.facebook.id,
      workspace_id: t.ws,
      content: "Provider down",
    });
    assert.equal(down.status, 502);
    assert.match(down.body.error, /HTTP 503/);

    // Tenancy: the account must belong to the body's workspace, and the caller to it.
    await lt.settled();
    const snap = await socialSnapshot(p);
    const base = { action: "publish_now", social_account_id: accounts.facebook.id, content: "Mine now" };
    assert.equal(
      (await post(p, "social-publish", t.outsider.accessToken, { ...base, workspace_id: t.ws })).status,
      404,
    );
    assert.equal(
      (await post(p, "social-publish", t.outsider.accessToken, { ...base, workspace_id: t.otherWs })).status,
      404,
    );
    assert.equal(
      (await post(p, "social-publish", t.viewer.accessToken, { ...base, workspace_id: t.ws })).status,
      403,
    );
    assert.equal((await post(p, "social-publish", null, { ...base, workspace_id: t.ws })).status, 401);
    assert.equal(
      (await post(p, "social-publish", p.config.serviceRoleKey, { ...base, workspace_id: t.ws })).status,
      401,
    );
    assert.equal(await socialSnapshot(p), snap);
    // Bad input names the problem.
    const bad = await post(p, "social-publish", owner, {
      ...base,
      workspace_id: t.ws,
      action: "publish_later",
    });
    assert.equal(bad.status, 400);
    const noContent = await post(p, "social-publish", owner, { ...base, workspace_id: t.ws, content: "  " });
    assert.equal(noContent.status, 400);
    assert.match(noContent.body.error, /content/);
    await lt.settled();
  },
);

platformTest("social-publish schedule: a due post is published by one cron tick, exactly once", async (p) => {
  const t = await createTeam(p, { prefix: "soc-cron" });
  const lt = late(p);
  const owner = t.owner.accessToken;
  const fb = await connectAccount(p, owner, t.ws, "facebook");
  const li = await connectAccount(p, owner, t.ws, "linkedin");
  const sched = (body: Record<string, unknown>) =>
    post(p, "social-publish", owner, {
      action: "schedule",
      workspace_id: t.ws,
      content: "Spring sale",
      ...body,
    });

  assert.equal((await sched({ social_account_id: fb.id })).status, 400, "scheduled_at required");
  const past = await sched({
    social_account_id: fb.id,
    scheduled_at: new Date(Date.now() - 60_000).toISOString(),
  });
  assert.equal(past.status, 400);
  assert.match(past.body.error, /future/);
  assert.equal((await sched({ social_account_id: fb.id, scheduled_at: "tomorrow" })).status, 400);

  const at = new Date(Date.now() + 3_600_000).toISOString();
  const a = await sched({ social_account_id: fb.id, scheduled_at: at });
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.status, "scheduled");
  assert.equal(a.body.late_post_id, null);
  assert.equal(new Date(a.body.scheduled_at).toISOString(), at);
  const b = await sched({
    social_account_id: li.id,
    content: "Later one",
    scheduled_at: new Date(Date.now() + 7_200_000).toISOString(),
  });
  assert.equal(b.status, 200);
  const postsBefore = lt.posts.size;

  const tick = (token: string | null) => post(p, "social-publish-cron", token, {});
  assert.equal((await tick(null)).status, 401);
  assert.equal((await tick(owner)).status, 403);
  const idle = await tick(p.config.serviceRoleKey);
  assert.equal(idle.body.claimed, 0, "nothing due yet");

  // The first becomes due; three ticks overlap: one claims and publishes it.
  await p.db.query(
    `update public.social_posts set scheduled_at = now() - interval '1 second' where id = $1`,
    [a.body.post_id],
  );
  const ticks = await Promise.all([0, 1, 2].map(() => tick(p.config.serviceRoleKey)));
  for (const r of ticks) assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(ticks.reduce((n: number, r) => n + r.body.claimed, 0), 1);
  assert.equal(lt.posts.size, postsBefore + 1, "sent to the provider once");
  const [row] = await rows(
    p,
    `select status, late_post_id, publish_attempts from public.social_posts where id = $1`,
    [a.body.post_id],
  );
  assert.equal(row.status, "published");
  assert.equal(row.publish_attempts, 1);
  assert.equal(lt.posts.get(row.late_post_id)!.content, "Spring sale");
  assert.equal(lt.posts.get(row.late_post_id)!.platforms[0].accountId, fb.late_account_id);
  const [later] = await rows(p, `select status from public.social_posts where id = $1`, [b.body.post_id]);
  assert.equal(later.status, "scheduled", "not due, not touched");

  // The pg_cron job's own command (pg_net POST with the key from Vault) publishes the next one.
  for (const [name, value] of [["project_url", p.url], ["service_role_key", p.config.serviceRoleKey]]) {
    await p.db.query(
      `select vault.create_secret($1, $2) where not exists (select 1 from vault.secrets where name = $2)`,
      [value, name],
    );
  }
  await p.db.query(
    `update public.social_posts set scheduled_at = now() - interval '1 second' where id = $1`,
    [b.body.post_id],
  );
  const [job] = await rows(p, `select command, schedule from cron.job where jobname = 'social-publish-cron'`);
  assert.equal(job.schedule, "* * * * *");
  await p.db.query(job.command);
  await p.db.query(job.command);
  const done = await waitFor("the scheduled post published", async () => {
    const [r] = await rows(p, `select status, late_post_id from public.social_posts where id = $1`, [
      b.body.post_id,
    ]);
    return r.status === "published" ? r : null;
  });
  await waitFor("both ticks answered", async () => {
    const [r] = await rows(
      p,
      `select count(*)::int as n from net._http_response where content like '%"claimed"%'`,
    );
    return r.n >= 2;
  });
  assert.equal(lt.posts.size, postsBefore + 2, "each post sent once");
  assert.equal(lt.posts.get(done.late_post_id)!.content, "Later one");
  await lt.settled();

  // The sandbox page shows the stand-in's accounts, posts and the webhook events it sent.
  const page = await fetch(`${p.sandbox!.url}/?provider=late`).then((r) => r.text());
  assert.match(page, /Late \(social publishing\)/);
  assert.ok(
    page.includes(done.late_post_id) && page.includes(fb.late_account_id) && page.includes("Later one"),
  );
  assert.ok(page.includes("post.published"), "the events sent are listed");
});
