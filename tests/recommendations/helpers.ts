/**
 * Shared setup for the recommendations tests: calling recommendations-api, and the small
 * workspace whose preference matrix the expected values are worked out on by hand:
 *
 *   |   | m1 | m2 | m3 | m4 |      A: m1 purchase (5), m2 save (3)
 *   | A |  5 |  3 |    |    |      B: m1 purchase (5), m2 save (3), m3 add_to_quote (4)
 *   | B |  5 |  3 |  4 |    |      C: m2 view (1), m4 click (2)
 *   | C |    |  1 |    |  2 |      D: m4 purchase (5)
 *   | D |    |    |    |  5 |      m5: a product nobody touched
 *
 * A second workspace, where A and B are also members, gets interactions of its own that must
 * never show up in the first one's results.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { type Call, call } from "../quotes/helpers.ts";

export const FN = "recommendations-api";

export function rec(
  p: Platform,
  path: string,
  opts: { method?: string; token?: string | null; body?: unknown } = {},
) {
  return call(p, FN, path, opts);
}

export async function product(p: Platform, workspaceId: string, name: string): Promise<string> {
  const r = await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name) values ($1, $2) returning id`,
    [workspaceId, name],
  );
  return r.rows[0].id;
}

export async function track(
  p: Platform,
  u: TestUser,
  workspace_id: string,
  material_id: string,
  interaction_type: string,
  extra: Record<string, unknown> = {},
): Promise<Call> {
  const r = await rec(p, "/track-interaction", {
    method: "POST",
    token: u.accessToken,
    body: { workspace_id, material_id, interaction_type, ...extra },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r;
}

export interface World {
  ws: string;
  other: string;
  m: Record<"m1" | "m2" | "m3" | "m4" | "m5", string>;
  n: Record<"n1" | "n2" | "n3", string>;
  A: TestUser;
  B: TestUser;
  C: TestUser;
  D: TestUser;
  admin: TestUser;
}

export async function world(p: Platform): Promise<World> {
  const [owner, admin, A, B, C, D] = await Promise.all(
    ["rec-owner", "rec-admin", "rec-a", "rec-b", "rec-c", "rec-d"].map((n) => createUser(p, n)),
  );
  const ws = await createWorkspace(p, owner.id, {
    [admin.id]: "admin",
    [A.id]: "member",
    [B.id]: "member",
    [C.id]: "viewer",
    [D.id]: "member",
  }, "Recs");
  const other = await createWorkspace(p, owner.id, { [A.id]: "member", [B.id]: "member" }, "Other");
  const m = {
    m1: await product(p, ws, "Oak floor"),
    m2: await product(p, ws, "Walnut floor"),
    m3: await product(p, ws, "Floor varnish"),
    m4: await product(p, ws, "Marble tile"),
    m5: await product(p, ws, "Grout"),
  };
  const n = {
    n1: await product(p, other, "Brick"),
    n2: await product(p, other, "Mortar"),
    n3: await product(p, other, "Trowel"),
  };
  await track(p, A, ws, m.m1, "purchase");
  await track(p, A, ws, m.m2, "save");
  await track(p, B, ws, m.m1, "purchase");
  await track(p, B, ws, m.m2, "save");
  await track(p, B, ws, m.m3, "add_to_quote");
  await track(p, C, ws, m.m2, "view");
  await track(p, C, ws, m.m4, "click");
  await track(p, D, ws, m.m4, "purchase");
  // The other workspace: overlapping users, other materials, heavier weights.
  for (const t of ["purchase", "save", "share"]) await track(p, A, other, n.n1, t);
  await track(p, A, other, n.n2, "purchase");
  await track(p, B, other, n.n3, "purchase");
  await track(p, B, other, n.n1, "view");
  return { ws, other, m, n, A, B, C, D, admin };
}

/** Recommendation lists compared with expected values to 1e-9. */
export function assertList(
  actual: { material_id: string; score: number; confidence: number; algorithm: string }[],
  expected: [string, number, number, string][],
) {
  assert.equal(actual.length, expected.length, JSON.stringify(actual));
  expected.forEach(([id, score, confidence, algorithm], i) => {
    const a = actual[i];
    assert.equal(a.material_id, id, `#${i} material`);
    assert.ok(Math.abs(a.score - score) < 1e-9, `#${i} score ${a.score} != ${score}`);
    assert.ok(
      Math.abs(a.confidence - confidence) < 1e-9,
      `#${i} confidence ${a.confidence} != ${confidence}`,
    );
    assert.equal(a.algorithm, algorithm, `#${i} algorithm`);
  });
}
