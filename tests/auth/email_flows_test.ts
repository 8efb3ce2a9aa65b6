/**
 * GoTrue's email flows through supabase-js (auth-js), with the mail read from the sandbox's
 * Resend stand-in, where a developer opens it in the mail viewer (?provider=resend) and clicks
 * the link, as with the CLI's Mailpit. Upstream behaviour matched: supabase/auth
 * internal/api/recover.go (200 for unknown addresses), otp.go and magic_link.go, verify.go
 * (GET redirects with the session or `error=access_denied&error_code=otp_expired` in the
 * fragment, POST answers the session or 403 otp_expired; tokens are SHA-224 hashes of email +
 * code, single use, expiring after GOTRUE_MAILER_OTP_EXP), user.go (an email change waits for
 * confirmation from both addresses under secure email change; an anonymous user's applies at
 * once with autoconfirm), anonymous.go, invite.go, admin.go GenerateLink, reauthenticate.go, and
 * utilities IsRedirectURLValid (redirects outside site_url and the allow list fall back to
 * site_url).
 */
import assert from "node:assert/strict";
import { createClient, type Session } from "@supabase/supabase-js";
import type { Platform } from "../../stack/platform.ts";
import type { SandboxEmail } from "../../stack/sandbox/providers/resend.ts";
import { anonClient, createUser, platformTest, serviceClient, uniqueEmail } from "../helpers/platform.ts";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";

const SITE = "http://127.0.0.1:3000";
const noSession = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

function mailsTo(p: Platform, to: string): SandboxEmail[] {
  return p.sandbox!.get("resend").inbox().filter((m) => m.to.includes(to));
}

function lastMail(p: Platform, to: string, subject: string): SandboxEmail {
  const m = mailsTo(p, to).find((x) => x.subject === subject);
  assert.ok(m, `no mail "${subject}" to ${to}; got ${JSON.stringify(mailsTo(p, to).map((x) => x.subject))}`);
  return m;
}

function linkOf(m: SandboxEmail): string {
  const href = /href="([^"]+)"/.exec(m.html ?? "")?.[1];
  assert.ok(href, "the mail has a link");
  return href.replaceAll("&amp;", "&");
}

function codeOf(m: SandboxEmail): string {
  const code = /code: (\d+)/.exec(m.text ?? "")?.[1];
  assert.ok(code, "the mail has a code");
  return code;
}

/** Clicks a mailed link as a browser would: returns where /verify sends it. */
async function click(link: string): Promise<URL> {
  const res = await fetch(link, { redirect: "manual" });
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return new URL(res.headers.get("location")!);
}

function fragment(u: URL): URLSearchParams {
  return new URLSearchParams(u.hash.slice(1));
}

async function clientWithSession(p: Platform, s: { access_token: string; refresh_token: string }) {
  const client = createClient(p.url, p.config.anonKey, noSession);
  const { error } = await client.auth.setSession({
    access_token: s.access_token,
    refresh_token: s.refresh_token,
  });
  assert.equal(error, null);
  return client;
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(atob(token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
}

platformTest(
  "resetPasswordForEmail: the mailed link signs in for recovery, then updateUser sets the password",
  async (p) => {
    const u = await createUser(p, "recover");
    const client = anonClient(p);
    const { error } = await client.auth.resetPasswordForEmail(u.email, {
      redirectTo: `${SITE}/account/reset`,
    });
    assert.equal(error, null);
    const mail = lastMail(p, u.email, "Reset Your Password");
    assert.match(mail.from, /admin@email\.com/);
    // The developer sees it in the sandbox's mail viewer, as in the CLI's Mailpit.
    const viewer = await (await fetch(`${p.sandbox!.url}/?provider=resend&mail=${mail.id}`)).text();
    assert.ok(viewer.includes("Reset Your Password"));
    const link = linkOf(mail);
    assert.ok(link.startsWith(`${p.url}/auth/v1/verify?token=`), link);

    const landed = await click(link);
    assert.equal(`${landed.origin}${landed.pathname}`, `${SITE}/account/reset`);
    const f = fragment(landed);
    assert.equal(f.get("type"), "recovery");
    assert.equal(f.get("token_type"), "bearer");
    assert.equal(claimsOf(f.get("access_token")!).sub, u.id);
    assert.equal((claimsOf(f.get("access_token")!).amr as { method: string }[])[0].method, "recovery");

    const recovered = await clientWithSession(p, {
      access_token: f.get("access_token")!,
      refresh_token: f.get("refresh_token")!,
    });
    const upd = await recovered.auth.updateUser({ password: "brand-new-pass" });
    assert.equal(upd.error, null);
    const old = await anonClient(p).auth.signInWithPassword({ email: u.email, password: u.password });
    assert.equal(old.error?.code, "invalid_credentials");
    const fresh = await anonClient(p).auth.signInWithPassword({ email: u.email, password: "brand-new-pass" });
    assert.equal(fresh.error, null);

    // The link works once.
    const again = fragment(await click(link));
    assert.equal(again.get("error"), "access_denied");
    assert.equal(again.get("error_code"), "otp_expired");
    assert.equal(again.get("access_token"), null);
  },
);

platformTest(
  "recover answers 200 for an unknown address and mails nothing (no user-existence oracle)",
  async (p) => {
    const email = uniqueEmail("nobody");
    const { data, error } = await anonClient(p).auth.resetPasswordForEmail(email);
    assert.equal(error, null);
    assert.deepEqual(data, {});
    assert.equal(mailsTo(p, email).length, 0);
    const bad = await anonClient(p).auth.resetPasswordForEmail("not-an-email");
    assert.equal(bad.error?.status, 400);
  },
);

platformTest(
  "recovery codes: verifyOtp works once, are stored hashed, a newer code replaces the older, old codes expire",
  async (p) => {
    const u = await createUser(p, "recover-otp");
    const client = anonClient(p);
    await client.auth.resetPasswordForEmail(u.email);
    const first = codeOf(lastMail(p, u.email, "Reset Your Password"));
    assert.equal(first.length, 6);

    // Stored as GoTrue stores it: the SHA-224 of email + code, never the code.
    const stored = await p.db.query<{ token_hash: string; token_type: string }>(
      `select token_hash, token_type::text from auth.one_time_tokens where user_id = $1`,
      [u.id],
    );
    assert.equal(stored.rows.length, 1);
    assert.equal(stored.rows[0].token_type, "recovery_token");
    assert.ok(!stored.rows[0].token_hash.includes(first));
    assert.match(stored.rows[0].token_hash, /^[0-9a-f]{56}$/);

    await client.auth.resetPasswordForEmail(u.email);
    const second = codeOf(mailsTo(p, u.email).filter((m) => m.subject === "Reset Your Password")[0]);
    if (first !== second) {
      const stale = await client.auth.verifyOtp({ email: u.email, token: first, type: "recovery" });
      assert.equal(stale.error?.status, 403);
      assert.equal(stale.error?.code, "otp_expired");
    }
    const wrongType = await client.auth.verifyOtp({ email: u.email, token: second, type: "invite" });
    assert.equal(wrongType.error?.code, "otp_expired");
    const ok = await client.auth.verifyOtp({ email: u.email, token: second, type: "recovery" });
    assert.equal(ok.error, null);
    assert.equal(ok.data.user?.id, u.id);
    const reused = await client.auth.verifyOtp({ email: u.email, token: second, type: "recovery" });
    assert.equal(reused.error?.code, "otp_expired");

    // Past otp_expiry (1 hour) the code is refused.
    await client.auth.resetPasswordForEmail(u.email);
    const third = codeOf(mailsTo(p, u.email).filter((m) => m.subject === "Reset Your Password")[0]);
    await p.db.query(
      `update auth.one_time_tokens set created_at = created_at - interval '61 minutes' where user_id = $1`,
      [u.id],
    );
    const expired = await client.auth.verifyOtp({ email: u.email, token: third, type: "recovery" });
    assert.equal(expired.error?.code, "otp_expired");
  },
);

platformTest("a redirect_to outside site_url and the allow list lands on site_url instead", async (p) => {
  const u = await createUser(p, "redirect");
  await anonClient(p).auth.resetPasswordForEmail(u.email, { redirectTo: "https://evil.example.net/steal" });
  const landed = await click(linkOf(lastMail(p, u.email, "Reset Your Password")));
  assert.equal(landed.origin, SITE);
  assert.ok(fragment(landed).get("access_token"));
  // A forged link with a foreign redirect_to does not leak the session there either.
  const forged = new URL(
    `${p.url}/auth/v1/verify?token=deadbeef&type=recovery&redirect_to=https://evil.example.net/`,
  );
  const err = await click(forged.toString());
  assert.equal(err.origin, SITE);
  assert.equal(fragment(err).get("error_code"), "otp_expired");
});

platformTest(
  "signInWithOtp for a new address creates the user, mails a code, verifyOtp signs in",
  async (p) => {
    const email = uniqueEmail("otp-new");
    const client = anonClient(p);
    const sent = await client.auth.signInWithOtp({ email, options: { data: { plan: "free" } } });
    assert.equal(sent.error, null);
    const mail = lastMail(p, email, "Confirm Your Signup");
    const wrong = await client.auth.verifyOtp({
      email,
      token: "000000" === codeOf(mail) ? "111111" : "000000",
      type: "email",
    });
    assert.equal(wrong.error?.status, 403);
    assert.equal(wrong.error?.code, "otp_expired");
    const { data, error } = await client.auth.verifyOtp({ email, token: codeOf(mail), type: "email" });
    assert.equal(error, null);
    assert.ok(data.session);
    assert.equal(data.user?.email, email);
    assert.ok(data.user?.email_confirmed_at);
    assert.deepEqual(data.user?.user_metadata, { plan: "free" });
    assert.equal((claimsOf(data.session.access_token).amr as { method: string }[])[0].method, "otp");

    // create_user: false refuses unknown addresses, as GoTrue does.
    const refused = await client.auth.signInWithOtp({
      email: uniqueEmail("otp-none"),
      options: { shouldCreateUser: false },
    });
    assert.equal(refused.error?.status, 422);
    assert.equal(refused.error?.code, "otp_disabled");
  },
);

platformTest("signInWithOtp for an existing user mails a magic link that signs in once", async (p) => {
  const u = await createUser(p, "magic");
  const client = anonClient(p);
  const { error } = await client.auth.signInWithOtp({
    email: u.email,
    options: { emailRedirectTo: `${SITE}/welcome` },
  });
  assert.equal(error, null);
  const mail = lastMail(p, u.email, "Your Magic Link");
  const landed = await click(linkOf(mail));
  assert.equal(landed.pathname, "/welcome");
  const f = fragment(landed);
  assert.equal(f.get("type"), "magiclink");
  assert.equal(claimsOf(f.get("access_token")!).sub, u.id);
  // The code of that mail was the same token: spent.
  const spent = await client.auth.verifyOtp({ email: u.email, token: codeOf(mail), type: "email" });
  assert.equal(spent.error?.code, "otp_expired");

  await client.auth.signInWithOtp({ email: u.email });
  const code = codeOf(lastMail(p, u.email, "Your Magic Link"));
  const viaCode = await client.auth.verifyOtp({ email: u.email, token: code, type: "magiclink" });
  assert.equal(viaCode.error, null);
  assert.equal(viaCode.data.user?.id, u.id);
});

platformTest("signInAnonymously is refused while [auth] enable_anonymous_sign_ins is false", async (p) => {
  const { error } = await anonClient(p).auth.signInAnonymously();
  assert.equal(error?.status, 422);
  assert.equal(error?.code, "anonymous_provider_disabled");
  const settings = await (await fetch(`${p.url}/auth/v1/settings`, { headers: { apikey: p.config.anonKey } }))
    .json();
  assert.equal(settings.external.anonymous_users, false);
});

platformTest(
  "updateUser({email}) waits for confirmation from both addresses, then changes the email",
  async (p) => {
    const u = await createUser(p, "change");
    const next = uniqueEmail("changed");
    const client = await clientWithSession(p, { access_token: u.accessToken, refresh_token: u.refreshToken });
    const { data, error } = await client.auth.updateUser({ email: next }, {
      emailRedirectTo: `${SITE}/changed`,
    });
    assert.equal(error, null);
    assert.equal(data.user?.email, u.email, "the email stays until confirmed");
    assert.equal(data.user?.new_email, next);
    const toNew = lastMail(p, next, "Confirm Email Change");
    const toCurrent = lastMail(p, u.email, "Confirm Email Change");
    assert.match(toNew.text ?? "", new RegExp(`from ${u.email} to ${next}`));

    // Someone else cannot take an address already in use.
    const other = await createUser(p, "change-other");
    const otherClient = await clientWithSession(p, {
      access_token: other.accessToken,
      refresh_token: other.refreshToken,
    });
    const taken = await otherClient.auth.updateUser({ email: u.email });
    assert.equal(taken.error?.code, "email_exists");

    const half = fragment(await click(linkOf(toNew)));
    assert.match(half.get("message") ?? "", /Confirmation link accepted/);
    const still = await p.db.query<{ email: string }>(`select email from auth.users where id = $1`, [u.id]);
    assert.equal(still.rows[0].email, u.email);

    const done = await anonClient(p).auth.verifyOtp({
      email: u.email,
      token: codeOf(toCurrent),
      type: "email_change",
    });
    assert.equal(done.error, null);
    assert.equal(done.data.user?.email, next);
    const signIn = await anonClient(p).auth.signInWithPassword({ email: next, password: u.password });
    assert.equal(signIn.error, null);
    const oldAddress = await anonClient(p).auth.signInWithPassword({ email: u.email, password: u.password });
    assert.equal(oldAddress.error?.code, "invalid_credentials");
  },
);

platformTest("admin.inviteUserByEmail mails an invite whose link signs the new user in", async (p) => {
  const email = uniqueEmail("invited");
  const admin = serviceClient(p);
  const { data, error } = await admin.auth.admin.inviteUserByEmail(email, {
    data: { team: "blue" },
    redirectTo: `${SITE}/join`,
  });
  assert.equal(error, null);
  assert.equal(data.user?.email, email);
  assert.ok(data.user?.invited_at);
  assert.equal(data.user?.email_confirmed_at, undefined);
  const landed = await click(linkOf(lastMail(p, email, "You have been invited")));
  assert.equal(landed.pathname, "/join");
  const f = fragment(landed);
  assert.equal(f.get("type"), "invite");
  const invited = await clientWithSession(p, {
    access_token: f.get("access_token")!,
    refresh_token: f.get("refresh_token")!,
  });
  assert.equal((await invited.auth.updateUser({ password: "invited-pass" })).error, null);
  assert.equal(
    (await anonClient(p).auth.signInWithPassword({ email, password: "invited-pass" })).error,
    null,
  );

  const again = await admin.auth.admin.inviteUserByEmail(email);
  assert.equal(again.error?.code, "email_exists");
  const u = await createUser(p, "not-admin");
  const refused = await u.client.auth.admin.inviteUserByEmail(uniqueEmail("x"));
  assert.equal(refused.error?.status, 403);
});

platformTest("admin.generateLink returns the link and code without mailing, usable once", async (p) => {
  const u = await createUser(p, "genlink");
  const admin = serviceClient(p);
  const before = mailsTo(p, u.email).length;
  const { data, error } = await admin.auth.admin.generateLink({ type: "magiclink", email: u.email });
  assert.equal(error, null);
  assert.equal(data.user?.id, u.id);
  assert.equal(data.properties?.verification_type, "magiclink");
  assert.match(data.properties!.email_otp, /^\d{6}$/);
  assert.match(data.properties!.hashed_token, /^[0-9a-f]{56}$/);
  assert.ok(
    data.properties!.action_link.startsWith(`${p.url}/auth/v1/verify?token=${data.properties!.hashed_token}`),
  );
  assert.equal(mailsTo(p, u.email).length, before);
  const viaHash = await anonClient(p).auth.verifyOtp({
    token_hash: data.properties!.hashed_token,
    type: "magiclink",
  });
  assert.equal(viaHash.error, null);
  assert.equal(viaHash.data.user?.id, u.id);
  const twice = await anonClient(p).auth.verifyOtp({
    token_hash: data.properties!.hashed_token,
    type: "magiclink",
  });
  assert.equal(twice.error?.code, "otp_expired");

  const unknown = await admin.auth.admin.generateLink({ type: "recovery", email: uniqueEmail("ghost") });
  assert.equal(unknown.error?.status, 404);
  const signupEmail = uniqueEmail("gen-signup");
  const signup = await admin.auth.admin.generateLink({
    type: "signup",
    email: signupEmail,
    password: "signup-pass",
  });
  assert.equal(signup.error, null);
  const confirmed = await anonClient(p).auth.verifyOtp({
    email: signupEmail,
    token: signup.data.properties!.email_otp,
    type: "signup",
  });
  assert.equal(confirmed.error, null);
  assert.ok(confirmed.data.user?.email_confirmed_at);
  const notAdmin = await u.client.auth.admin.generateLink({ type: "magiclink", email: u.email });
  assert.equal(notAdmin.error?.status, 403);
});

Deno.test({
  name:
    "with anonymous sign-ins and secure password change on: anonymous users, email upgrade, reauthenticate",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const p = await startEphemeralPlatform({
      auth: { enableAnonymousSignIns: true, securePasswordChange: true },
    });
    try {
      const settings =
        await (await fetch(`${p.url}/auth/v1/settings`, { headers: { apikey: p.config.anonKey } }))
          .json();
      assert.equal(settings.external.anonymous_users, true);

      const client = createClient(p.url, p.config.anonKey, noSession);
      const { data, error } = await client.auth.signInAnonymously({ options: { data: { cart: 3 } } });
      assert.equal(error, null);
      assert.ok(data.session && data.user);
      assert.equal(data.user.is_anonymous, true);
      assert.equal(data.user.email, "");
      assert.deepEqual(data.user.app_metadata, {});
      assert.deepEqual(data.user.user_metadata, { cart: 3 });
      const claims = claimsOf(data.session.access_token);
      assert.equal(claims.role, "authenticated");
      assert.equal(claims.is_anonymous, true);
      assert.equal((claims.amr as { method: string }[])[0].method, "anonymous");

      // Autoconfirm (the local default): an anonymous user's new email applies at once.
      const email = uniqueEmail("anon-upgrade");
      const upgraded = await client.auth.updateUser({ email });
      assert.equal(upgraded.error, null);
      assert.equal(upgraded.data.user?.email, email);
      assert.equal(upgraded.data.user?.is_anonymous, false);
      // Within 24 hours of signing in no nonce is needed.
      assert.equal((await client.auth.updateUser({ password: "anon-pass-1" })).error, null);
      const signIn = await anonClient(p).auth.signInWithPassword({ email, password: "anon-pass-1" });
      assert.equal(signIn.error, null);
      const s = signIn.data.session as Session;

      // An older session must reauthenticate: the code mailed by /reauthenticate is the nonce.
      await p.db.query(
        `update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`,
        [
          s.user.id,
        ],
      );
      const old = await clientWithSession(p, s);
      const refused = await old.auth.updateUser({ password: "anon-pass-2" });
      assert.equal(refused.error?.code, "reauthentication_needed");
      assert.equal((await old.auth.reauthenticate()).error, null);
      const nonce = codeOf(lastMail(p, email, "Confirm reauthentication"));
      const wrong = await old.auth.updateUser({
        password: "anon-pass-2",
        nonce: nonce === "123456" ? "654321" : "123456",
      });
      assert.equal(wrong.error?.code, "reauthentication_not_valid");
      assert.equal((await old.auth.updateUser({ password: "anon-pass-2", nonce })).error, null);
      const reused = await old.auth.updateUser({ password: "anon-pass-3", nonce });
      assert.equal(reused.error?.code, "reauthentication_not_valid");
    } finally {
      await p.stop();
    }
  },
});

Deno.test({
  name: "with [auth.email] enable_confirmations on: signUp mails a confirmation, resend mails it again",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const p = await startEphemeralPlatform({ auth: { enableConfirmations: true } });
    try {
      const settings =
        await (await fetch(`${p.url}/auth/v1/settings`, { headers: { apikey: p.config.anonKey } }))
          .json();
      assert.equal(settings.mailer_autoconfirm, false);
      const client = createClient(p.url, p.config.anonKey, noSession);
      const email = uniqueEmail("confirm");
      const { data, error } = await client.auth.signUp({
        email,
        password: "confirm-pass",
        options: { emailRedirectTo: `${SITE}/confirmed` },
      });
      assert.equal(error, null);
      assert.equal(data.session, null);
      assert.equal(data.user?.email_confirmed_at, undefined);
      const first = lastMail(p, email, "Confirm Your Signup");
      const early = await client.auth.signInWithPassword({ email, password: "confirm-pass" });
      assert.equal(early.error?.code, "email_not_confirmed");

      assert.equal(
        (await client.auth.resend({
          type: "signup",
          email,
          options: { emailRedirectTo: `${SITE}/confirmed` },
        })).error,
        null,
      );
      const second = mailsTo(p, email).filter((m) => m.subject === "Confirm Your Signup")[0];
      assert.notEqual(second.id, first.id);
      assert.equal(
        fragment(await click(linkOf(first))).get("error_code"),
        "otp_expired",
        "resend replaced it",
      );
      const landed = await click(linkOf(second));
      assert.equal(landed.pathname, "/confirmed");
      assert.equal(fragment(landed).get("type"), "signup");
      assert.equal((await client.auth.signInWithPassword({ email, password: "confirm-pass" })).error, null);

      // Signing up again with a confirmed address reveals nothing and mails nothing.
      const count = mailsTo(p, email).length;
      const again = await client.auth.signUp({ email, password: "other-pass" });
      assert.equal(again.error, null);
      assert.notEqual(again.data.user?.id, data.user?.id);
      assert.equal(mailsTo(p, email).length, count);
      const unknown = await client.auth.resend({ type: "signup", email: uniqueEmail("ghost") });
      assert.equal(unknown.error, null);
    } finally {
      await p.stop();
    }
  },
});

platformTest(
  "flowType pkce: the mailed link lands with ?code=, exchangeCodeForSession trades it once",
  async (p) => {
    const u = await createUser(p, "pkce");
    const pkceClient = () =>
      createClient(p.url, p.config.anonKey, { auth: { ...noSession.auth, flowType: "pkce" } });
    const client = pkceClient();
    assert.equal(
      (await client.auth.resetPasswordForEmail(u.email, { redirectTo: `${SITE}/reset` })).error,
      null,
    );
    const link = linkOf(lastMail(p, u.email, "Reset Your Password"));
    assert.match(link, /token=pkce_[0-9a-f]{56}&/);
    const landed = await click(link);
    assert.equal(landed.pathname, "/reset");
    assert.equal(landed.hash, "");
    const code = landed.searchParams.get("code");
    assert.ok(code);
    const { data, error } = await client.auth.exchangeCodeForSession(code);
    assert.equal(error, null);
    assert.equal(data.user?.id, u.id);
    assert.equal((claimsOf(data.session!.access_token).amr as { method: string }[])[0].method, "recovery");
    const replay = await fetch(`${p.url}/auth/v1/token?grant_type=pkce`, {
      method: "POST",
      headers: { apikey: p.config.anonKey, "content-type": "application/json" },
      body: JSON.stringify({ auth_code: code, code_verifier: "x".repeat(43) }),
    });
    assert.equal(replay.status, 404);
    await replay.body?.cancel();

    // A code presented with the wrong verifier is refused and spent.
    const owner = pkceClient();
    await owner.auth.signInWithOtp({ email: u.email });
    const stolen = (await click(linkOf(lastMail(p, u.email, "Your Magic Link")))).searchParams.get("code")!;
    const thief = await pkceClient().auth.exchangeCodeForSession(stolen);
    assert.ok(thief.error);
    const wrong = await fetch(`${p.url}/auth/v1/token?grant_type=pkce`, {
      method: "POST",
      headers: { apikey: p.config.anonKey, "content-type": "application/json" },
      body: JSON.stringify({ auth_code: stolen, code_verifier: "y".repeat(43) }),
    });
    assert.equal(wrong.status, 403);
    assert.equal((await wrong.json()).error_code, "bad_code_verifier");
    const late = await owner.auth.exchangeCodeForSession(stolen);
    assert.ok(late.error, "the code died with the wrong verifier");
  },
);
