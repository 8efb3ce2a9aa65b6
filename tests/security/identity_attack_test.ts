/**
 * Identity attacks: a session that should have ended (another device after a password change).
 * Each test performs the attack over HTTP and expects the refusal.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { anonClient, createUser, platformTest } from "../helpers/platform.ts";

const noSession = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

platformTest(
  "a password change ends every other session (a stolen refresh token dies); the current one stays",
  async (p) => {
    const u = await createUser(p, "pw-change");
    // The thief's copy: a second session of the same account (another device).
    const stolen = (await anonClient(p).auth.signInWithPassword({ email: u.email, password: u.password }))
      .data
      .session!;
    assert.ok(stolen);
    // The owner changes the password from their own session.
    const mine = createClient(p.url, p.config.anonKey, noSession);
    await mine.auth.setSession({ access_token: u.accessToken, refresh_token: u.refreshToken });
    assert.equal((await mine.auth.updateUser({ password: "a-brand-new-password" })).error, null);

    const thief = await anonClient(p).auth.refreshSession({ refresh_token: stolen.refresh_token });
    assert.equal(thief.error?.code, "refresh_token_not_found");
    const thiefUser = await fetch(`${p.url}/auth/v1/user`, {
      headers: { apikey: p.config.anonKey, Authorization: `Bearer ${stolen.access_token}` },
    });
    assert.equal(thiefUser.status, 403);
    assert.equal((await thiefUser.json()).error_code, "session_not_found");
    const sessions = await p.db.query(`select id from auth.sessions where user_id = $1`, [u.id]);
    assert.equal(sessions.rows.length, 1);

    // The session that changed the password goes on: its token works and its refresh token rotates.
    assert.equal((await mine.auth.getUser(u.accessToken)).error, null);
    const again = await anonClient(p).auth.refreshSession({ refresh_token: u.refreshToken });
    assert.equal(again.error, null);
    assert.equal(again.data.session?.user.id, u.id);
  },
);
