/**
 * What suspension blocks (migration 20260121000130_suspended_users.sql, authContext in
 * packages/shared/auth/context.ts): sign-in and refresh, every write through /rest/v1 and
 * /storage/v1 (RPCs included), every edge function and the AI backend; nothing is billed. The
 * suspension is made the way an administrator makes it, through crm-users-api.
 */
import assert from "node:assert/strict";
import {
  anonClient,
  createUser,
  createWorkspace,
  platformTest,
  setPlatformRole,
} from "../helpers/platform.ts";
import { sqlAs } from "../helpers/sql.ts";
import { call } from "../quotes/helpers.ts";
import { balance, gateway, grant } from "../ai/helpers.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import type { Platform } from "../../stack/platform.ts";

async function setStatus(p: Platform, adminToken: string, userId: string, status: string) {
  const r = await call(p, "crm-users-api", `/${userId}`, {
    method: "PATCH",
    token: adminToken,
    body: { status },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

function rest(p: Platform, token: string, method: string, path: string, body?: unknown) {
  return fetch(`${p.url}/rest/v1/${path}`, {
    method,
    headers: {
      apikey: p.config.anonKey,
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      prefer: "return=representation",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }));
}

platformTest(
  "a suspended user cannot sign in, refresh, write, call a function or the AI backend, or be billed",
  async (p) => {
    const [admin, u] = [await createUser(p, "susp-admin"), await createUser(p, "susp-user")];
    await setPlatformRole(p, admin.id, "admin");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 100);
    // A second session of the user, as on another device.
    const other = (await anonClient(p).auth.signInWithPassword({ email: u.email, password: u.password })).data
      .session!;

    await setStatus(p, admin.accessToken, u.id, "suspended");

    // Auth: sign-in refused as GoTrue refuses a banned user; no session survives.
    const signIn = await anonClient(p).auth.signInWithPassword({ email: u.email, password: u.password });
    assert.equal(signIn.error?.code, "user_banned");
    for (const refresh_token of [u.refreshToken, other.refresh_token]) {
      const r = await anonClient(p).auth.refreshSession({ refresh_token });
      assert.ok(
        r.error && ["user_banned", "refresh_token_not_found"].includes(r.error.code!),
        String(r.error?.code),
      );
    }
    assert.equal(
      (await p.db.query(`select 1 from auth.sessions where user_id = $1`, [u.id])).rows.length,
      0,
    );

    // /rest/v1 writes with the access token issued before the suspension: refused, nothing written.
    const before = await p.db.query(`select name from public.workspaces where id = $1`, [ws]);
    const writes = [
      await rest(p, u.accessToken, "POST", "products", { workspace_id: ws, name: "After suspension" }),
      await rest(p, u.accessToken, "PATCH", `workspaces?id=eq.${ws}`, { name: "Renamed while suspended" }),
      await rest(p, u.accessToken, "POST", "workspaces", { name: "New while suspended", owner_id: u.id }),
      await rest(p, u.accessToken, "DELETE", `workspaces?id=eq.${ws}`),
      await rest(p, u.accessToken, "POST", "rpc/invite_to_workspace", {
        p_workspace_id: ws,
        p_invitee: admin.email,
        p_role: "viewer",
      }),
    ];
    for (const w of writes) {
      assert.deepEqual([w.status, w.body?.code], [403, "42501"], JSON.stringify(w.body));
    }
    assert.deepEqual(
      (await p.db.query(`select name from public.workspaces where id = $1`, [ws])).rows,
      before.rows,
    );
    const written = await p.db.query<{ n: number }>(
      `select (select count(*) from public.products where workspace_id = $1)::int
          + (select count(*) from public.workspaces where owner_id = $2)::int
          + (select count(*) from public.workspace_invitations where workspace_id = $1)::int as n`,
      [ws, u.id],
    );
    assert.equal(written.rows[0].n, 2, "only the personal workspace and the one made before the suspension");

    // /storage/v1: no upload.
    const up = await fetch(`${p.url}/storage/v1/object/ai-documents/${u.id}/x/f.pdf`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${u.accessToken}`,
        "content-type": "application/pdf",
      },
      body: "bytes",
    });
    assert.ok(up.status >= 400 && up.status < 500, String(up.status));
    await up.body?.cancel();
    assert.equal(
      (await p.db.query(`select 1 from storage.objects where owner_id = $1`, [u.id])).rows.length,
      0,
    );

    // Edge functions and the AI backend: 403 user_suspended, before any work or any debit.
    const billed = await gateway(p, u.accessToken, "kb_search", { workspace_id: ws, query: "tiles" });
    assert.deepEqual(
      [billed.status, billed.body?.code],
      [403, "user_suspended"],
      JSON.stringify(billed.body),
    );
    const quotes = await call(p, "quotes-api", "", { token: u.accessToken });
    assert.deepEqual([quotes.status, quotes.body.code], [403, "user_suspended"]);
    const { url } = aiBackendOf(p);
    for (
      const [method, path, body] of [
        ["GET", "/api/kb/health", undefined],
        ["POST", "/api/kb/search", { workspace_id: ws, query: "tiles" }],
      ] as const
    ) {
      const r = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${u.accessToken}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.deepEqual([r.status, (await r.json()).code], [403, "user_suspended"], path);
    }
    assert.equal(await balance(p, u.id), 100);
    assert.equal(
      (await p.db.query(`select 1 from public.ai_usage_logs where user_id = $1`, [u.id])).rows.length,
      0,
    );

    // Reactivated: signs in and writes again.
    await setStatus(p, admin.accessToken, u.id, "active");
    const back = await anonClient(p).auth.signInWithPassword({ email: u.email, password: u.password });
    assert.equal(back.error, null);
    const write = await rest(p, back.data.session!.access_token, "PATCH", `workspaces?id=eq.${ws}`, {
      name: "Back",
    });
    assert.equal(write.status, 200);
  },
);

platformTest("every table in public refuses a suspended writer (tables added later included)", async (p) => {
  const missing = await p.db.query<{ relname: string }>(
    `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p')
        and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'refuse_suspended_writer')`,
  );
  assert.deepEqual(missing.rows, []);
  // A direct SQL write as a suspended user, through a SECURITY DEFINER RPC: refused too.
  const [owner, invitee] = [await createUser(p, "susp-rpc-owner"), await createUser(p, "susp-rpc-invitee")];
  const ws = await createWorkspace(p, owner.id);
  await p.db.query(`update public.user_profiles set status = 'suspended' where user_id = $1`, [owner.id]);
  await assert.rejects(
    sqlAs(
      p,
      { role: "authenticated", userId: owner.id },
      `select public.invite_to_workspace($1, $2, 'member')`,
      [
        ws,
        invitee.email,
      ],
    ),
    (err: { code?: string }) => err.code === "42501",
  );
  assert.equal(
    (await p.db.query(`select 1 from public.workspace_invitations where workspace_id = $1`, [ws])).rows
      .length,
    0,
  );
});
