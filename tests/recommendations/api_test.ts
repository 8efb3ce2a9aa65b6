/**
 * recommendations-api route by route, over HTTP: every interaction type and its weight, the
 * hand-worked recommendations of helpers.ts's matrix for both algorithms, similar materials,
 * the cold-start fallback, the cache (hit, invalidation, DELETE /cache filters) and analytics.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { assertList, product, rec, track, world } from "./helpers.ts";

const AB = 34 / Math.sqrt(1700); // cos(A, B) = (5*5 + 3*3) / (|A| |B|) = 34 / (sqrt(34) sqrt(50))
const AC = 3 / Math.sqrt(170); // cos(A, C) = 3*1 / (sqrt(34) sqrt(5))
const MASS = AB + AC;
const C12 = 30 / Math.sqrt(950); // cos(m1, m2) = (5*3 + 5*3) / (sqrt(50) sqrt(19))
const C13 = 20 / (Math.sqrt(50) * 4); // cos(m1, m3) = 5*4 / (sqrt(50) * 4)
const C23 = 12 / (Math.sqrt(19) * 4); // cos(m2, m3) = 3*4 / (sqrt(19) * 4)
const C24 = 2 / Math.sqrt(551); // cos(m2, m4) = 1*2 / (sqrt(19) sqrt(29))

platformTest(
  "POST /track-interaction: all seven types with their weights; 201 {data, message}",
  async (p) => {
    const u = await createUser(p, "rec-tracker");
    const ws = await createWorkspace(p, u.id);
    const m = await product(p, ws, "Slate");
    const weights: [string, number | undefined, number][] = [
      ["view", undefined, 1],
      ["click", undefined, 2],
      ["save", undefined, 3],
      ["share", undefined, 3],
      ["add_to_quote", 2, 4],
      ["purchase", 12, 5],
      ["rate", 5, 4],
      ["rate", 4, 2],
      ["rate", 2, 0],
    ];
    for (const [type, value, weight] of weights) {
      const r = await track(p, u, ws, m, type, {
        ...(value === undefined ? {} : { interaction_value: value }),
        session_id: "s-1",
        metadata: { page: "catalog" },
      });
      const d = r.body.data as Record<string, unknown>;
      assert.equal(r.body.message, "Interaction tracked");
      assert.equal(d.weight, weight, type);
      assert.equal(d.interaction_value, value ?? 1);
      assert.equal(d.user_id, u.id);
      assert.equal(d.workspace_id, ws);
      assert.equal(d.material_id, m);
      assert.equal(d.session_id, "s-1");
      assert.deepEqual(d.metadata, { page: "catalog" });
    }
    // The matrix cell: 24 in weights, capped at 10; purchased.
    const cell =
      (await p.db.query<{ weight_sum: number; preference: number; purchased: boolean; interactions: number }>(
        `select weight_sum, preference, purchased, interactions from public.material_preferences
      where workspace_id = $1 and user_id = $2 and material_id = $3`,
        [ws, u.id, m],
      )).rows[0];
    assert.deepEqual(cell, { weight_sum: 24, preference: 10, purchased: true, interactions: 9 });

    const bad = [
      {},
      { workspace_id: ws, material_id: m },
      { workspace_id: ws, material_id: m, interaction_type: "like" },
      { workspace_id: ws, material_id: m, interaction_type: "rate" },
      { workspace_id: ws, material_id: m, interaction_type: "rate", interaction_value: 6 },
      { workspace_id: ws, material_id: m, interaction_type: "rate", interaction_value: 0 },
      { workspace_id: ws, material_id: m, interaction_type: "view", interaction_value: -1 },
      { workspace_id: ws, material_id: m, interaction_type: "view", interaction_value: "3" },
      { workspace_id: ws, material_id: m, interaction_type: "view", metadata: [1] },
      { workspace_id: "ws", material_id: m, interaction_type: "view" },
      { workspace_id: ws, material_id: "m", interaction_type: "view" },
    ];
    for (const body of bad) {
      const r = await rec(p, "/track-interaction", { method: "POST", token: u.accessToken, body });
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    const missing = await rec(p, "/track-interaction", {
      method: "POST",
      token: u.accessToken,
      body: { workspace_id: ws, material_id: crypto.randomUUID(), interaction_type: "view" },
    });
    assert.equal(missing.status, 404);
    const n = await p.db.query(`select 1 from public.material_interactions where workspace_id = $1`, [ws]);
    assert.equal(n.rows.length, weights.length);
  },
);

platformTest("GET /for-user user_user: hand-worked scores, purchases left out unless asked", async (p) => {
  const w = await world(p);
  const r = await rec(p, `/for-user?workspace_id=${w.ws}`, { token: w.A.accessToken });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.cached, false);
  assertList(r.body.data as never, [
    [w.m.m3, (AB * 4) / (10 * MASS), AB / MASS, "user_user"],
    [w.m.m2, (AB * 3 + AC * 1) / (10 * MASS), 1, "user_user"],
    [w.m.m4, (AC * 2) / (10 * MASS), AC / MASS, "user_user"],
  ]);
  const all = await rec(p, `/for-user?workspace_id=${w.ws}&include_purchased=true&limit=2`, {
    token: w.A.accessToken,
  });
  assertList(all.body.data as never, [
    [w.m.m1, (AB * 5) / (10 * MASS), AB / MASS, "user_user"],
    [w.m.m3, (AB * 4) / (10 * MASS), AB / MASS, "user_user"],
  ]);
  for (
    const q of ["", "workspace_id=x", `workspace_id=${w.ws}&limit=0`, `workspace_id=${w.ws}&algorithm=svd`]
  ) {
    assert.equal((await rec(p, `/for-user?${q}`, { token: w.A.accessToken })).status, 400, q);
  }
});

platformTest("GET /for-user item_item: hand-worked scores", async (p) => {
  const w = await world(p);
  const r = await rec(p, `/for-user?workspace_id=${w.ws}&algorithm=item_item`, { token: w.A.accessToken });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // A's materials: m1 (5, purchased) and m2 (3); the total is 8.
  assertList(r.body.data as never, [
    [w.m.m3, (C13 * 5 + C23 * 3) / 8, 1, "item_item"],
    [w.m.m2, (C12 * 5) / 8, 5 / 8, "item_item"],
    [w.m.m4, (C24 * 3) / 8, 3 / 8, "item_item"],
  ]);
  const all = await rec(p, `/for-user?workspace_id=${w.ws}&algorithm=item_item&include_purchased=true`, {
    token: w.A.accessToken,
  });
  assertList(all.body.data as never, [
    [w.m.m3, (C13 * 5 + C23 * 3) / 8, 1, "item_item"],
    [w.m.m2, (C12 * 5) / 8, 5 / 8, "item_item"],
    [w.m.m1, (C12 * 3) / 8, 3 / 8, "item_item"],
    [w.m.m4, (C24 * 3) / 8, 3 / 8, "item_item"],
  ]);
});

platformTest("GET /similar-materials: item-item cosine, confidence the share of co-choosers", async (p) => {
  const w = await world(p);
  const r = await rec(p, `/similar-materials/${w.m.m2}?workspace_id=${w.ws}`, { token: w.C.accessToken });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // m2's preference mass is 3 + 3 + 1 = 7.
  assertList(r.body.data as never, [
    [w.m.m1, C12, 6 / 7, "item_item"],
    [w.m.m3, C23, 3 / 7, "item_item"],
    [w.m.m4, C24, 1 / 7, "item_item"],
  ]);
  const one = await rec(p, `/similar-materials/${w.m.m2}?workspace_id=${w.ws}&limit=1`, {
    token: w.C.accessToken,
  });
  assert.equal((one.body.data as unknown[]).length, 1);
  // Nobody chose m5: the workspace's popular materials stand in, labelled as such.
  const cold = await rec(p, `/similar-materials/${w.m.m5}?workspace_id=${w.ws}&limit=2`, {
    token: w.C.accessToken,
  });
  assertList(cold.body.data as never, [
    [w.m.m1, 1, 2 / 4, "popularity"],
    [w.m.m2, 0.7, 3 / 4, "popularity"],
  ]);
  const wrong = await rec(p, `/similar-materials/${w.n.n1}?workspace_id=${w.ws}`, { token: w.A.accessToken });
  assert.equal(wrong.status, 404);
  assert.equal(
    (await rec(p, `/similar-materials/x?workspace_id=${w.ws}`, { token: w.A.accessToken })).status,
    400,
  );
  assert.equal((await rec(p, `/similar-materials/${w.m.m2}`, { token: w.A.accessToken })).status, 400);
});

platformTest("GET /for-user cold start: workspace popularity, for both algorithms", async (p) => {
  const w = await world(p);
  const newcomer = await createUser(p, "rec-new");
  await p.db.query(`insert into public.workspace_members (workspace_id, user_id) values ($1, $2)`, [
    w.ws,
    newcomer.id,
  ]);
  // Masses: m1 10, m2 7, m4 7, m3 4, over 4 users.
  const expected: [string, number, number, string][] = [
    [w.m.m1, 1, 2 / 4, "popularity"],
    [w.m.m2, 0.7, 3 / 4, "popularity"],
    [w.m.m4, 0.7, 2 / 4, "popularity"],
    [w.m.m3, 0.4, 1 / 4, "popularity"],
  ];
  for (const algorithm of ["user_user", "item_item"]) {
    const r = await rec(p, `/for-user?workspace_id=${w.ws}&algorithm=${algorithm}`, {
      token: newcomer.accessToken,
    });
    assert.equal(r.status, 200);
    assertList(r.body.data as never, expected);
  }
  // D's only neighbour is C (through m4); C's m2 comes first, then popularity fills the page
  // without D's own purchase m4.
  const d = await rec(p, `/for-user?workspace_id=${w.ws}&limit=3`, { token: w.D.accessToken });
  const data = d.body.data as { material_id: string; algorithm: string }[];
  assert.deepEqual(data.map((x) => [x.material_id, x.algorithm]), [
    [w.m.m2, "user_user"],
    [w.m.m1, "popularity"],
    [w.m.m3, "popularity"],
  ]);
});

platformTest(
  "cache: a hit the second time, invalidated by the user's interaction and by DELETE /cache",
  async (p) => {
    const w = await world(p);
    const path = `/for-user?workspace_id=${w.ws}`;
    const first = await rec(p, path, { token: w.A.accessToken });
    const second = await rec(p, path, { token: w.A.accessToken });
    assert.equal(first.body.cached, false);
    assert.equal(second.body.cached, true);
    assert.deepEqual(second.body.data, first.body.data);
    const rows = await p.db.query<{ kind: string; expires_at: Date; created_at: Date }>(
      `select kind, expires_at, created_at from public.recommendation_cache where user_id = $1`,
      [w.A.id],
    );
    assert.equal(rows.rows.length, 1);
    assert.equal(rows.rows[0].kind, "for_user");
    assert.equal(rows.rows[0].expires_at.getTime() - rows.rows[0].created_at.getTime(), 3600_000);
    // Another parameter set is another list.
    assert.equal((await rec(p, `${path}&limit=5`, { token: w.A.accessToken })).body.cached, false);

    // B's and C's lists, and a similar-materials list of m3.
    await rec(p, path, { token: w.B.accessToken });
    await rec(p, `/similar-materials/${w.m.m3}?workspace_id=${w.ws}`, { token: w.C.accessToken });
    await rec(p, `/similar-materials/${w.m.m4}?workspace_id=${w.ws}`, { token: w.C.accessToken });
    // A buys m3: A's lists and every list about m3 go; B's list and C's list about m4 stay.
    await track(p, w.A, w.ws, w.m.m3, "purchase");
    const after = await rec(p, path, { token: w.A.accessToken });
    assert.equal(after.body.cached, false);
    assert.ok(!(after.body.data as { material_id: string }[]).some((x) => x.material_id === w.m.m3));
    assert.equal((await rec(p, path, { token: w.B.accessToken })).body.cached, true);
    const m3 = await rec(p, `/similar-materials/${w.m.m3}?workspace_id=${w.ws}`, { token: w.C.accessToken });
    assert.equal(m3.body.cached, false);
    // ... recomputed from the new matrix: m3's column is now B 4, A 5 (|m3| = sqrt 41).
    assertList((m3.body.data as never[]).slice(0, 2), [
      [w.m.m1, 45 / Math.sqrt(2050), 1, "item_item"],
      [w.m.m2, 27 / Math.sqrt(779), 1, "item_item"],
    ]);
    const m4 = await rec(p, `/similar-materials/${w.m.m4}?workspace_id=${w.ws}`, { token: w.C.accessToken });
    assert.equal(m4.body.cached, true);

    // DELETE /cache: material filter (C's list about m4 only), workspace filter, then everything.
    await rec(p, `/for-user?workspace_id=${w.ws}`, { token: w.C.accessToken });
    await rec(p, `/for-user?workspace_id=${w.other}`, { token: w.A.accessToken });
    const byMaterial = await rec(p, `/cache?material_id=${w.m.m4}`, {
      method: "DELETE",
      token: w.C.accessToken,
    });
    assert.equal(byMaterial.status, 200);
    assert.deepEqual(byMaterial.body, { data: { deleted: 1 }, message: "Recommendation cache cleared" });
    assert.equal((await rec(p, path, { token: w.C.accessToken })).body.cached, true);
    const byWs = await rec(p, `/cache?workspace_id=${w.other}`, { method: "DELETE", token: w.A.accessToken });
    assert.equal((byWs.body.data as { deleted: number }).deleted, 1);
    assert.equal((await rec(p, path, { token: w.A.accessToken })).body.cached, true);
    const everything = await rec(p, "/cache", { method: "DELETE", token: w.A.accessToken });
    assert.equal((everything.body.data as { deleted: number }).deleted, 1);
    assert.equal((await rec(p, path, { token: w.A.accessToken })).body.cached, false);
    // Nobody else's lists were touched.
    assert.equal((await rec(p, path, { token: w.B.accessToken })).body.cached, true);
    assert.equal(
      (await rec(p, "/cache?workspace_id=x", { method: "DELETE", token: w.A.accessToken })).status,
      400,
    );
  },
);

platformTest("GET /analytics/{workspace_id}: owners and admins; days 30 by default", async (p) => {
  const w = await world(p);
  // An interaction 40 days old counts only with days >= 40.
  await p.db.query(
    `insert into public.material_interactions (workspace_id, user_id, material_id, interaction_type, created_at)
     values ($1, $2, $3, 'share', now() - interval '40 days')`,
    [w.ws, w.D.id, w.m.m5],
  );
  const r = await rec(p, `/analytics/${w.ws}`, { token: w.admin.accessToken });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const d = r.body.data as Record<string, unknown>;
  assert.equal(d.workspace_id, w.ws);
  assert.equal(d.days, 30);
  assert.equal(d.total_interactions, 8);
  assert.equal(d.unique_users, 4);
  assert.equal(d.unique_materials, 4);
  assert.equal(d.total_weight, 28);
  assert.deepEqual(d.by_type, {
    view: 1,
    click: 1,
    save: 2,
    purchase: 3,
    rate: 0,
    add_to_quote: 1,
    share: 0,
  });
  const top = d.top_materials as {
    material_id: string;
    name: string;
    weight: number;
    interactions: number;
  }[];
  // m2 and m4 tie on weight 7: the material id decides, as for the recommendations.
  const [tieA, tieB] = [w.m.m2, w.m.m4].sort();
  const count = (id: string) => (id === w.m.m2 ? 3 : 2);
  assert.deepEqual(top.map((t) => [t.material_id, t.weight, t.interactions]), [
    [w.m.m1, 10, 2],
    [tieA, 7, count(tieA)],
    [tieB, 7, count(tieB)],
    [w.m.m3, 4, 1],
  ]);
  assert.equal(top[0].name, "Oak floor");
  assert.equal((d.daily as { interactions: number }[]).reduce((s, x) => s + x.interactions, 0), 8);
  const longer = await rec(p, `/analytics/${w.ws}?days=60`, { token: w.admin.accessToken });
  assert.equal((longer.body.data as Record<string, unknown>).total_interactions, 9);
  assert.equal((await rec(p, `/analytics/${w.ws}?days=0`, { token: w.admin.accessToken })).status, 400);
  assert.equal((await rec(p, `/analytics/${w.ws}`, { token: w.A.accessToken })).status, 403);
  assert.equal((await rec(p, `/analytics/${w.other}`, { token: w.admin.accessToken })).status, 404);
  assert.equal((await rec(p, `/analytics/${w.ws}`, { token: null })).status, 401);
  assert.equal((await rec(p, `/analytics/${w.ws}`, { token: p.config.serviceRoleKey })).status, 200);
});
