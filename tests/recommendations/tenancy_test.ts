/**
 * Every tenancy rule of the recommendations, tried by someone who must be refused: through the
 * function and straight at /rest/v1 with supabase-js, as a client could.
 */
import assert from "node:assert/strict";
import { createUser, platformTest } from "../helpers/platform.ts";
import { rec, track, world } from "./helpers.ts";

platformTest(
  "track-interaction: only as oneself, only in one's workspaces, only for their materials",
  async (p) => {
    const w = await world(p);
    const outsider = await createUser(p, "rec-outsider");
    const body = { workspace_id: w.ws, material_id: w.m.m1, interaction_type: "view" };
    // Not a member: 404 (the workspace is not revealed).
    const r1 = await rec(p, "/track-interaction", { method: "POST", token: outsider.accessToken, body });
    assert.equal(r1.status, 404);
    // A member, with another workspace's material: 404.
    const r2 = await rec(p, "/track-interaction", {
      method: "POST",
      token: w.C.accessToken,
      body: { ...body, material_id: w.n.n1 },
    });
    assert.equal(r2.status, 404);
    // A user_id in the body cannot say who the interaction is for: it is an unknown key (400
    // naming it, nothing written); the JWT's user is the one recorded.
    const r3 = await rec(p, "/track-interaction", {
      method: "POST",
      token: w.C.accessToken,
      body: { ...body, material_id: w.m.m3, user_id: w.A.id },
    });
    assert.equal(r3.status, 400);
    assert.match(String((r3.body as { error: string }).error), /unknown field "user_id"/);
    const forged = await p.db.query(
      `select 1 from public.material_interactions where user_id = $1 and material_id = $2`,
      [w.A.id, w.m.m3],
    );
    assert.equal(forged.rows.length, 0);
    const r4 = await track(p, w.C, w.ws, w.m.m3, "view");
    assert.equal((r4.body.data as { user_id: string }).user_id, w.C.id);
    // No credentials, the anon key, the service role (not a user): 401.
    for (const token of [null, p.config.anonKey, p.config.serviceRoleKey]) {
      assert.equal((await rec(p, "/track-interaction", { method: "POST", token, body })).status, 401);
    }

    // Straight at the table: another user's id, a foreign workspace, a foreign material.
    const asOther = await w.C.client.from("material_interactions")
      .insert({ ...body, user_id: w.A.id }).select();
    assert.equal(asOther.error?.code, "42501", JSON.stringify(asOther));
    const foreignWs = await outsider.client.from("material_interactions")
      .insert({ ...body, user_id: outsider.id }).select();
    assert.equal(foreignWs.error?.code, "42501", JSON.stringify(foreignWs));
    const foreignMaterial = await w.A.client.from("material_interactions")
      .insert({ ...body, material_id: w.n.n1, user_id: w.A.id }).select();
    assert.equal(foreignMaterial.error?.code, "23503", JSON.stringify(foreignMaterial));
    // Append-only for users: no update, no delete.
    const upd = await w.A.client.from("material_interactions").update({ interaction_type: "purchase" })
      .eq("user_id", w.A.id).select();
    assert.ok(upd.error || upd.data?.length === 0, JSON.stringify(upd));
    const del = await w.A.client.from("material_interactions").delete().eq("user_id", w.A.id).select();
    assert.ok(del.error || del.data?.length === 0, JSON.stringify(del));
    const left = await p.db.query(`select 1 from public.material_interactions where user_id = $1`, [w.A.id]);
    assert.equal(left.rows.length, 6);
  },
);

platformTest(
  "reads: users see their own interactions and preferences; admins all of their workspace",
  async (p) => {
    const w = await world(p);
    const own = await w.A.client.from("material_interactions").select("user_id, workspace_id");
    assert.equal(own.error, null);
    assert.equal(own.data!.length, 6);
    assert.ok(own.data!.every((r) => r.user_id === w.A.id));
    const prefs = await w.B.client.from("material_preferences").select("user_id");
    assert.equal(prefs.data!.length, 5);
    assert.ok(prefs.data!.every((r) => r.user_id === w.B.id));
    const admin = await w.admin.client.from("material_interactions").select("workspace_id, user_id");
    assert.equal(admin.data!.length, 8);
    assert.ok(admin.data!.every((r) => r.workspace_id === w.ws));
    assert.equal((await w.admin.client.from("material_preferences").select("user_id")).data!.length, 0);
    // The matrix statistics and the item model are the service role's alone.
    await rec(p, `/similar-materials/${w.m.m1}?workspace_id=${w.ws}`, { token: w.A.accessToken });
    for (
      const table of ["recommendation_user_norms", "recommendation_material_stats", "material_neighbours"]
    ) {
      const r = await w.admin.client.from(table).select("*");
      assert.equal(r.error?.code, "42501", `${table}: ${JSON.stringify(r)}`);
    }
    // Nobody but the service role computes neighbourhoods over other users' preferences.
    for (
      const [fn, args] of [
        ["recommendation_user_neighbourhood", { p_workspace: w.ws, p_user: w.B.id, p_k: 50 }],
        ["recommendation_item_neighbourhood", { p_workspace: w.ws, p_sources: [w.m.m1], p_k: 50 }],
        ["recommendation_popular", { p_workspace: w.ws, p_exclude: [], p_limit: 5 }],
      ] as const
    ) {
      const r = await w.A.client.rpc(fn, args);
      assert.ok(r.error, `${fn} must be refused`);
      assert.equal(r.data, null);
    }
    // Analytics only through the function (owners and admins): the RPC is refused to users.
    for (const u of [w.A, w.admin]) {
      const r = await u.client.rpc("recommendation_analytics", { p_workspace: w.ws, p_days: 30 });
      assert.equal(r.error?.code, "42501", JSON.stringify(r));
    }
  },
);

platformTest("recommendations: members only, and never another workspace's interactions", async (p) => {
  const w = await world(p);
  const outsider = await createUser(p, "rec-outsider");
  assert.equal((await rec(p, `/for-user?workspace_id=${w.ws}`, { token: outsider.accessToken })).status, 404);
  assert.equal(
    (await rec(p, `/similar-materials/${w.m.m1}?workspace_id=${w.ws}`, { token: outsider.accessToken }))
      .status,
    404,
  );
  for (const token of [null, p.config.anonKey, p.config.serviceRoleKey]) {
    assert.equal((await rec(p, `/for-user?workspace_id=${w.ws}`, { token })).status, 401);
  }
  // A and B interact heavily in the other workspace too; none of it reaches this one.
  const wsMaterials = new Set(Object.values(w.m));
  for (const algorithm of ["user_user", "item_item"]) {
    for (const u of [w.A, w.B, w.C, w.D]) {
      const r = await rec(p, `/for-user?workspace_id=${w.ws}&algorithm=${algorithm}&limit=100`, {
        token: u.accessToken,
      });
      assert.equal(r.status, 200);
      for (const x of r.body.data as { material_id: string }[]) assert.ok(wsMaterials.has(x.material_id));
    }
  }
  const other = await rec(p, `/for-user?workspace_id=${w.other}&limit=100`, { token: w.A.accessToken });
  const otherMaterials = new Set(Object.values(w.n));
  assert.ok((other.body.data as unknown[]).length > 0);
  for (const x of other.body.data as { material_id: string }[]) assert.ok(otherMaterials.has(x.material_id));
  // The other workspace's cold start sees only its own popularity.
  const similar = await rec(p, `/similar-materials/${w.n.n2}?workspace_id=${w.other}&limit=100`, {
    token: w.B.accessToken,
  });
  for (const x of similar.body.data as { material_id: string }[]) {
    assert.ok(otherMaterials.has(x.material_id));
  }
});

platformTest("cache rows: read and cleared only by their owner", async (p) => {
  const w = await world(p);
  await rec(p, `/for-user?workspace_id=${w.ws}`, { token: w.A.accessToken });
  await rec(p, `/for-user?workspace_id=${w.ws}`, { token: w.B.accessToken });
  const seen = await w.B.client.from("recommendation_cache").select("user_id");
  assert.deepEqual(seen.data, [{ user_id: w.B.id }]);
  const del = await w.B.client.from("recommendation_cache").delete().eq("user_id", w.A.id).select();
  assert.deepEqual(del.data ?? [], []);
  const forged = await w.B.client.from("recommendation_cache").insert({
    workspace_id: w.ws,
    user_id: w.A.id,
    kind: "for_user",
    cache_key: "for_user:user_user:20:false",
    results: [],
    expires_at: new Date(Date.now() + 1e7).toISOString(),
  });
  assert.ok(forged.error, "users cannot write cache rows");
  // DELETE /cache as B leaves A's list alone.
  const r = await rec(p, "/cache", { method: "DELETE", token: w.B.accessToken });
  assert.equal((r.body.data as { deleted: number }).deleted, 1);
  assert.equal(
    (await rec(p, `/for-user?workspace_id=${w.ws}`, { token: w.A.accessToken })).body.cached,
    true,
  );
});
