/**
 * /api/duplicates/* on the AI backend over HTTP, as a client calls it (the spec reaches these
 * directly at the backend URL; the gateway has no duplicates actions): the spec's request and
 * response fields, the detection cache left behind, merge and undo end to end, and the
 * tenancy rules, each tried by someone who must be refused.
 */
import assert from "node:assert/strict";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { createCatalogue, createTeam, dumpRows, insertProduct } from "./helpers.ts";

interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

async function call(
  p: Platform,
  token: string | null,
  method: "GET" | "POST",
  path: string,
  body?: Record<string, unknown>,
): Promise<Answer> {
  const res = await fetch(`${aiBackendOf(p).url}/api/duplicates/${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

const post = (p: Platform, token: string | null, path: string, body: Record<string, unknown>) =>
  call(p, token, "POST", path, body);
const get = (p: Platform, token: string | null, path: string, query: Record<string, string | number>) =>
  call(
    p,
    token,
    "GET",
    `${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`,
  );

const MATCH_FIELDS = [
  "confidence_level",
  "description_similarity",
  "factory",
  "metadata_similarity",
  "name_similarity",
  "overall_similarity",
  "product_id",
  "product_name",
  "recommended_action",
  "similarity_breakdown",
];

platformTest(
  "detect: the product's duplicates with the spec's scores; none without factory metadata",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1, source2, other } = await createCatalogue(p, team.ws);
    const token = team.viewer.accessToken;

    const r = await post(p, token, "detect", { product_id: source1, workspace_id: team.ws });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.factory, "acme");
    assert.equal(r.body.similarity_threshold, 0.6);
    const ids = r.body.matches.map((m: { product_id: string }) => m.product_id);
    // S2 shares S1's words; T (no description, clashing metadata) and X (another name) do not pass.
    assert.deepEqual(ids, [source2]);
    for (const m of r.body.matches) {
      assert.deepEqual(Object.keys(m).sort(), MATCH_FIELDS);
      assert.ok(m.overall_similarity >= 0.6);
      assert.ok(["high", "medium", "low"].includes(m.confidence_level));
    }
    // Best first.
    const scores = r.body.matches.map((m: { overall_similarity: number }) => m.overall_similarity);
    assert.deepEqual(scores, [...scores].sort((a: number, b: number) => b - a));
    const lower = await post(p, token, "detect", {
      product_id: target,
      workspace_id: team.ws,
      similarity_threshold: 0,
    });
    assert.equal(lower.status, 200);
    assert.ok(!lower.body.matches.some((m: { product_id: string }) => m.product_id === other));

    const plain = await insertProduct(p, team.ws, { name: "Oak Floor Plank" });
    const none = await post(p, token, "detect", { product_id: plain, workspace_id: team.ws });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.matches, []);
    assert.equal(none.body.factory, null);
  },
);

platformTest("detect refuses other workspaces, foreign products and bad input with 4xx", async (p) => {
  const team = await createTeam(p);
  const { target } = await createCatalogue(p, team.ws);
  const foreign = await insertProduct(p, team.otherWs, {
    name: "Oak",
    metadata: { factory: "Acme" },
  });
  const ws = team.ws;
  const cases: [string, string | null, Record<string, unknown>, number][] = [
    ["anonymous", null, { product_id: target, workspace_id: ws }, 401],
    ["outsider", team.outsider.accessToken, { product_id: target, workspace_id: ws }, 404],
    ["outsider naming their own workspace", team.outsider.accessToken, {
      product_id: target,
      workspace_id: team.otherWs,
    }, 404],
    [
      "a product of another workspace",
      team.owner.accessToken,
      { product_id: foreign, workspace_id: ws },
      404,
    ],
    ["threshold above 1", team.owner.accessToken, {
      product_id: target,
      workspace_id: ws,
      similarity_threshold: 2,
    }, 400],
    ["not a uuid", team.owner.accessToken, { product_id: "plank", workspace_id: ws }, 400],
  ];
  for (const [name, token, body, status] of cases) {
    const r = await post(p, token, "detect", body);
    assert.equal(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
  }
  const malformed = await fetch(`${aiBackendOf(p).url}/api/duplicates/detect`, {
    method: "POST",
    headers: { authorization: `Bearer ${team.owner.accessToken}`, "content-type": "application/json" },
    body: "{",
  });
  assert.equal(malformed.status, 400);
  await malformed.body?.cancel();
});

platformTest(
  "batch-detect stores every pair; re-running keeps statuses; cached filters and pages",
  async (p) => {
    const team = await createTeam(p);
    await createCatalogue(p, team.ws);
    const ws = team.ws;
    // The fixture's hand-written detections go; batch-detect writes its own.
    await p.db.query(`delete from public.duplicate_detection_cache where workspace_id = $1`, [ws]);

    const r = await post(p, team.member.accessToken, "batch-detect", {
      workspace_id: ws,
      similarity_threshold: 0.6,
      limit: 50,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.pairs.length >= 1);
    assert.equal(r.body.duplicates_found, r.body.pairs.length);
    for (const pair of r.body.pairs) {
      for (
        const f of [
          "product_id_1",
          "product_name_1",
          "product_id_2",
          "product_name_2",
          "factory",
          "overall_similarity",
          "confidence_level",
          "cache_id",
        ]
      ) {
        assert.ok(f in pair, `${f} missing`);
      }
      assert.ok(pair.product_id_1 < pair.product_id_2);
      assert.equal(pair.status, "pending");
    }
    const stored = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.duplicate_detection_cache where workspace_id = $1`,
      [ws],
    );
    assert.equal(stored.rows[0].n, r.body.pairs.length);

    // A dismissed pair stays dismissed when detection runs again; its scores are refreshed.
    const first = r.body.pairs[0];
    const dismissed = await post(p, team.member.accessToken, "update-status", {
      cache_id: first.cache_id,
      status: "dismissed",
      user_id: team.member.id,
    });
    assert.equal(dismissed.status, 200, JSON.stringify(dismissed.body));
    assert.equal(dismissed.body.detection.reviewed_by, team.member.id);
    const again = await post(p, team.owner.accessToken, "batch-detect", {
      workspace_id: ws,
      similarity_threshold: 0.6,
      limit: 50,
    });
    assert.equal(again.status, 200);
    assert.equal(
      again.body.pairs.find((x: { cache_id: string }) => x.cache_id === first.cache_id).status,
      "dismissed",
    );

    const list = await get(p, team.viewer.accessToken, "cached", {
      workspace_id: ws,
      status: "pending",
      limit: 1,
    });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.total, r.body.pairs.length - 1);
    assert.equal(list.body.detections.length, Math.min(1, list.body.total));
    const high = await get(p, team.viewer.accessToken, "cached", { workspace_id: ws, min_similarity: 0.99 });
    assert.ok(
      high.body.detections.every((d: { overall_similarity_score: number }) =>
        d.overall_similarity_score >= 0.99
      ),
    );
    const all = await get(p, team.viewer.accessToken, "cached", { workspace_id: ws });
    const d = all.body.detections[0];
    for (
      const f of [
        "id",
        "workspace_id",
        "product_id_1",
        "product_id_2",
        "product_name_1",
        "product_name_2",
        "overall_similarity_score",
        "name_similarity",
        "description_similarity",
        "metadata_similarity",
        "similarity_breakdown",
        "is_duplicate",
        "confidence_level",
        "status",
        "reviewed_by",
        "reviewed_at",
        "recommended_action",
      ]
    ) {
      assert.ok(f in d, `${f} missing`);
    }

    // Refusals: viewers store nothing, outsiders see nothing, bad filters are 400.
    assert.equal(
      (await post(p, team.viewer.accessToken, "batch-detect", {
        workspace_id: ws,
        similarity_threshold: 0.6,
        limit: 5,
      })).status,
      403,
    );
    assert.equal(
      (await post(p, team.outsider.accessToken, "batch-detect", {
        workspace_id: ws,
        similarity_threshold: 0.6,
        limit: 5,
      })).status,
      404,
    );
    assert.equal((await get(p, team.outsider.accessToken, "cached", { workspace_id: ws })).status, 404);
    assert.equal(
      (await get(p, team.viewer.accessToken, "cached", { workspace_id: ws, status: "approved" })).status,
      400,
    );
    assert.equal(
      (await get(p, team.viewer.accessToken, "cached", { workspace_id: ws, limit: 0 })).status,
      400,
    );
  },
);

platformTest(
  "update-status: the four statuses only; the reviewer is the caller, never the body's user_id",
  async (p) => {
    const team = await createTeam(p);
    await createCatalogue(p, team.ws);
    const [cacheId] = (await p.db.query<{ id: string }>(
      `select id from public.duplicate_detection_cache where workspace_id = $1 limit 1`,
      [team.ws],
    )).rows.map((r) => r.id);
    const set = (token: string, body: Record<string, unknown>) =>
      post(p, token, "update-status", { cache_id: cacheId, ...body });
    assert.equal((await set(team.member.accessToken, { status: "approved" })).status, 400);
    assert.equal(
      (await set(team.member.accessToken, { status: "reviewed", user_id: team.owner.id })).status,
      403,
    );
    assert.equal((await set(team.viewer.accessToken, { status: "reviewed" })).status, 403);
    assert.equal((await set(team.outsider.accessToken, { status: "reviewed" })).status, 404);
    const ok = await set(team.admin.accessToken, { status: "merged" });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.detection.status, "merged");
    assert.equal(ok.body.detection.reviewed_by, team.admin.id);
  },
);

platformTest(
  "merge and undo-merge over HTTP leave every row as before; merge-history lists them",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1, source2 } = await createCatalogue(p, team.ws);
    const ws = team.ws;
    const before = await dumpRows(p);

    const m = await post(p, team.owner.accessToken, "merge", {
      target_product_id: target,
      source_product_ids: [source1, source2],
      workspace_id: ws,
      user_id: team.owner.id,
      merge_strategy: "suggested",
      merge_reason: "same plank",
    });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    const h = m.body.history;
    assert.equal(h.merged_by, team.owner.id);
    assert.deepEqual(h.source_product_ids, [source1, source2]);
    assert.deepEqual(h.source_product_names, ["Oak Floor Plank 20mm", "Oak Floorplank"]);
    assert.equal(h.target_product_name, "Oak Floor Plank");
    assert.equal(h.similarity_score, 0.91);
    assert.equal(h.recommended_action, "auto_merge");
    assert.equal(h.merge_strategy, "suggested");
    assert.equal(h.is_undone, false);
    // 9 re-pointed rows and the merged pair's status (kept, marked merged); the (S1, S2) pair removed.
    assert.equal(h.relationships_moved, 10);
    assert.equal(h.rows_removed, 4);
    for (
      const f of [
        "source_products_snapshot",
        "target_product_before_merge",
        "target_product_after_merge",
        "merged_at",
      ]
    ) {
      assert.ok(f in h, `${f} missing`);
    }
    const gone = await p.db.query(`select id from public.products where id = any($1::uuid[])`, [[
      source1,
      source2,
    ]]);
    assert.equal(gone.rows.length, 0);

    const listed = await get(p, team.admin.accessToken, "merge-history", { workspace_id: ws });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.equal(listed.body.total, 1);
    const row = listed.body.history[0];
    for (
      const f of [
        "merged_at",
        "merged_by",
        "source_product_names",
        "target_product_name",
        "similarity_score",
        "merge_strategy",
        "is_undone",
      ]
    ) {
      assert.ok(f in row, `${f} missing`);
    }

    const u = await post(p, team.admin.accessToken, "undo-merge", {
      history_id: h.id,
      user_id: team.admin.id,
    });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.equal(u.body.history.is_undone, true);
    assert.equal(u.body.history.undone_by, team.admin.id);
    assert.deepEqual(await dumpRows(p), before);

    const twice = await post(p, team.owner.accessToken, "undo-merge", { history_id: h.id });
    assert.equal(twice.status, 409, JSON.stringify(twice.body));
    const after = await get(p, team.owner.accessToken, "merge-history", {
      workspace_id: ws,
      limit: 10,
      offset: 0,
    });
    assert.equal(after.body.history[0].is_undone, true);
  },
);

platformTest(
  "merge, undo and history refuse outsiders, members, foreign products and bad input; nothing changes",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1 } = await createCatalogue(p, team.ws);
    const ws = team.ws;
    const foreign = await insertProduct(p, team.otherWs, {
      name: "Oak Floor Plank",
      metadata: { factory: "Acme" },
    });
    const body = { target_product_id: target, source_product_ids: [source1], workspace_id: ws };
    const before = await dumpRows(p);
    const cases: [string, string | null, Record<string, unknown>, number][] = [
      ["anonymous", null, body, 401],
      ["outsider", team.outsider.accessToken, body, 404],
      ["outsider naming their own workspace", team.outsider.accessToken, {
        ...body,
        workspace_id: team.otherWs,
      }, 404],
      ["member", team.member.accessToken, body, 403],
      ["viewer", team.viewer.accessToken, body, 403],
      ["someone else's user_id", team.admin.accessToken, { ...body, user_id: team.owner.id }, 403],
      [
        "source of another workspace",
        team.owner.accessToken,
        { ...body, source_product_ids: [foreign] },
        404,
      ],
      ["target of another workspace", team.owner.accessToken, { ...body, target_product_id: foreign }, 404],
      ["target among sources", team.owner.accessToken, { ...body, source_product_ids: [target] }, 400],
      ["repeated source", team.owner.accessToken, { ...body, source_product_ids: [source1, source1] }, 400],
      ["unknown strategy", team.owner.accessToken, { ...body, merge_strategy: "sometimes" }, 400],
      ["no sources", team.owner.accessToken, { ...body, source_product_ids: [] }, 400],
    ];
    for (const [name, token, b, status] of cases) {
      const r = await post(p, token, "merge", b);
      assert.equal(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
    }
    assert.deepEqual(await dumpRows(p), before);

    const m = await post(p, team.owner.accessToken, "merge", body);
    assert.equal(m.status, 200);
    const historyId = m.body.history.id;
    assert.equal(
      (await post(p, team.outsider.accessToken, "undo-merge", { history_id: historyId })).status,
      404,
    );
    assert.equal(
      (await post(p, team.member.accessToken, "undo-merge", { history_id: historyId })).status,
      403,
    );
    assert.equal((await post(p, team.owner.accessToken, "undo-merge", { history_id: "nope" })).status, 400);
    assert.equal((await get(p, team.member.accessToken, "merge-history", { workspace_id: ws })).status, 403);
    assert.equal(
      (await get(p, team.outsider.accessToken, "merge-history", { workspace_id: ws })).status,
      404,
    );
    assert.equal(
      (await get(p, team.owner.accessToken, "merge-history", { workspace_id: ws, limit: 5000 })).status,
      400,
    );
    assert.equal(
      (await post(p, team.owner.accessToken, "undo-merge", { history_id: historyId })).status,
      200,
    );
    assert.deepEqual(await dumpRows(p), before);
  },
);

platformTest("the OpenAPI document describes the seven endpoints from their schemas", async (p) => {
  const doc = await fetch(`${aiBackendOf(p).url}/openapi.json`).then((r) => r.json());
  const paths = Object.keys(doc.paths).filter((k) => k.startsWith("/api/duplicates/")).sort();
  assert.deepEqual(paths, [
    "/api/duplicates/batch-detect",
    "/api/duplicates/cached",
    "/api/duplicates/detect",
    "/api/duplicates/merge",
    "/api/duplicates/merge-history",
    "/api/duplicates/undo-merge",
    "/api/duplicates/update-status",
  ]);
  const merge = doc.components.schemas.DuplicateMergeRequest;
  assert.deepEqual(merge.required.sort(), ["source_product_ids", "target_product_id", "workspace_id"]);
  assert.deepEqual(merge.properties.merge_strategy.enum, ["manual", "auto", "suggested"]);
  assert.deepEqual(doc.components.schemas.DuplicateUpdateStatusRequest.properties.status.enum, [
    "pending",
    "reviewed",
    "merged",
    "dismissed",
  ]);
});
