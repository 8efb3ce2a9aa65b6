/**
 * merge_products / undo_merge / update_duplicate_status and the RLS of the two duplicate tables,
 * run as /rest/v1 runs them (role and JWT claims in one transaction). Every security rule has a
 * case that tries to break it.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { type As, sqlAs, sqlState } from "../helpers/sql.ts";
import type { Platform } from "../../stack/platform.ts";
import { createCatalogue, createTeam, dumpRows, insertProduct } from "./helpers.ts";

interface History {
  id: string;
  workspace_id: string;
  merged_by: string | null;
  source_product_ids: string[];
  source_product_names: string[];
  target_product_id: string;
  target_product_name: string;
  similarity_score: number | null;
  merge_reason: string | null;
  merge_strategy: string;
  source_products_snapshot: Record<string, unknown>[];
  target_product_before_merge: Record<string, unknown>;
  target_product_after_merge: Record<string, unknown>;
  moved_relationships: { table: string; column: string }[];
  removed_rows: { table: string; row: Record<string, unknown> }[];
  is_undone: boolean;
  undone_at: string | null;
  undone_by: string | null;
}

const user = (u: { id: string }): As => ({ role: "authenticated", userId: u.id });

async function merge(
  p: Platform,
  who: As,
  target: string,
  sources: string[],
  strategy = "manual",
  similarity: number | null = null,
): Promise<History> {
  const [h] = await sqlAs<History>(
    p,
    who,
    `select * from public.merge_products($1, $2::uuid[], $3, 'same plank', $4)`,
    [target, sources, strategy, similarity],
  );
  return h;
}

async function undo(p: Platform, who: As, historyId: string): Promise<History> {
  const [h] = await sqlAs<History>(p, who, `select * from public.undo_merge($1)`, [historyId]);
  return h;
}

async function product(p: Platform, id: string) {
  const r = await p.db.query<Record<string, unknown>>(`select * from public.products where id = $1`, [id]);
  return r.rows[0] ?? null;
}

async function column(p: Platform, sql: string, params: unknown[] = []): Promise<unknown[]> {
  return (await p.db.query<{ v: unknown }>(sql, params)).rows.map((r) => r.v);
}

platformTest(
  "merge moves every relationship, merges fields, deletes the sources; undo restores every row exactly",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1, source2, other } = await createCatalogue(p, team.ws);
    const before = await dumpRows(p);
    const s1 = await product(p, source1);

    const h = await merge(p, user(team.owner), target, [source1, source2]);

    // Sources gone; the target kept its non-empty fields and took the empty ones from S1 first.
    assert.equal(await product(p, source1), null);
    assert.equal(await product(p, source2), null);
    const t = await product(p, target);
    assert.equal(t.name, "Oak Floor Plank");
    assert.equal(t.description, "Solid oak plank");
    assert.equal(t.sku, s1.sku);
    assert.deepEqual(t.metadata, {
      factory: "Acme",
      color: "natural",
      finish: "matte",
      size: "20mm",
      grade: "A",
    });

    // Relationships now point at the target.
    assert.deepEqual(
      await column(p, `select product_id as v from public.test_images order by url`),
      [target, target, target, target, other],
    );
    assert.deepEqual(
      await column(p, `select product_id as v from public.test_chunks order by id`),
      [target, target, null],
    );
    assert.deepEqual(
      await column(p, `select product_id as v from public.quote_items order by quantity`),
      [target, target],
    );
    // Collision: S1's settings moved, S2's (a second row for the target) was removed.
    assert.deepEqual(await column(p, `select settings as v from public.test_product_settings`), [{ a: 1 }]);
    // Self-relations (T, S2) and (S1, S2) would become (T, T): removed; (S1, X) moved.
    assert.deepEqual(
      await column(p, `select jsonb_build_array(product_a, product_b) as v from public.test_related`),
      [[target, other]],
    );
    // The merged pair (T, S1) stays, marked merged; (S1, S2) went with the sources; (T, X) stays.
    assert.deepEqual(
      await column(
        p,
        `select status as v from public.duplicate_detection_cache where workspace_id = $1 order by overall_similarity_score`,
        [team.ws],
      ),
      ["pending", "merged"],
    );

    // The history record, to the spec's fields.
    assert.equal(h.workspace_id, team.ws);
    assert.equal(h.merged_by, team.owner.id);
    assert.deepEqual(h.source_product_ids, [source1, source2]);
    assert.deepEqual(h.source_product_names, ["Oak Floor Plank 20mm", "Oak Floorplank"]);
    assert.equal(h.target_product_id, target);
    assert.equal(h.target_product_name, "Oak Floor Plank");
    assert.equal(h.similarity_score, 0.91, "no score given: the cached score of the (target, source) pair");
    assert.equal(h.merge_reason, "same plank");
    assert.equal(h.merge_strategy, "manual");
    assert.equal(h.is_undone, false);
    assert.deepEqual(h.source_products_snapshot.map((s) => s.id), [source1, source2]);
    assert.equal(h.target_product_before_merge.description, null);
    assert.equal(h.target_product_after_merge.description, "Solid oak plank");
    assert.deepEqual(
      h.removed_rows.map((r) => r.table).sort(),
      [
        "public.duplicate_detection_cache",
        "public.test_product_settings",
        "public.test_related",
        "public.test_related",
      ],
    );

    // Undo by another admin: every row of every table exactly as before, updated_at included.
    const u = await undo(p, user(team.admin), h.id);
    assert.equal(u.is_undone, true);
    assert.equal(u.undone_by, team.admin.id);
    assert.ok(u.undone_at);
    assert.deepEqual(await dumpRows(p), before);

    // Twice: PT409 (PostgREST answers 409), and nothing moves.
    assert.equal(await sqlState(() => undo(p, user(team.owner), h.id)), "PT409");
    assert.deepEqual(await dumpRows(p), before);
  },
);

platformTest(
  "other workspaces, members and viewers can neither merge nor undo; nothing changes",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1, source2 } = await createCatalogue(p, team.ws);
    const before = await dumpRows(p);

    assert.equal(await sqlState(() => merge(p, user(team.outsider), target, [source1])), "PT404");
    assert.equal(await sqlState(() => merge(p, user(team.member), target, [source1])), "42501");
    assert.equal(await sqlState(() => merge(p, user(team.viewer), target, [source1])), "42501");
    assert.equal(await sqlState(() => merge(p, { role: "anon" }, target, [source1])), "42501");
    assert.deepEqual(await dumpRows(p), before);

    const h = await merge(p, user(team.owner), target, [source1, source2]);
    const merged = await dumpRows(p);
    assert.equal(await sqlState(() => undo(p, user(team.outsider), h.id)), "PT404");
    assert.equal(await sqlState(() => undo(p, user(team.member), h.id)), "42501");
    assert.equal(await sqlState(() => undo(p, user(team.viewer), h.id)), "42501");
    assert.equal(await sqlState(() => undo(p, { role: "anon" }, h.id)), "42501");
    assert.deepEqual(await dumpRows(p), merged);

    // The service role acts for the system: allowed, with no user recorded.
    const u = await undo(p, { role: "service_role" }, h.id);
    assert.equal(u.undone_by, null);
    assert.deepEqual(await dumpRows(p), before);
  },
);

platformTest("sources must be in the target's workspace, even for an owner of both", async (p) => {
  const team = await createTeam(p);
  const { target } = await createCatalogue(p, team.ws);
  const foreign = await insertProduct(p, team.otherWs, {
    name: "Oak Floor Plank",
    metadata: { factory: "Acme" },
  });
  await p.db.query(
    `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'owner')`,
    [
      team.otherWs,
      team.owner.id,
    ],
  );
  const before = await dumpRows(p);
  assert.equal(await sqlState(() => merge(p, user(team.owner), target, [foreign])), "PT404");
  assert.equal(await sqlState(() => merge(p, user(team.owner), foreign, [target])), "PT404");
  assert.equal(await sqlState(() => merge(p, { role: "service_role" }, target, [foreign])), "PT404");
  assert.deepEqual(await dumpRows(p), before);
});

platformTest("bad arguments are 22023 (HTTP 400)", async (p) => {
  const team = await createTeam(p);
  const { target, source1 } = await createCatalogue(p, team.ws);
  const owner = user(team.owner);
  const cases: [string, () => Promise<unknown>][] = [
    ["no sources", () => merge(p, owner, target, [])],
    ["target among sources", () => merge(p, owner, target, [source1, target])],
    ["repeated source", () => merge(p, owner, target, [source1, source1])],
    ["unknown strategy", () => merge(p, owner, target, [source1], "sometimes")],
    ["similarity above 1", () => merge(p, owner, target, [source1], "auto", 1.5)],
    [
      "unknown status",
      () => sqlAs(p, owner, `select public.update_duplicate_status($1, 'approved')`, [target]),
    ],
  ];
  for (const [name, call] of cases) assert.equal(await sqlState(call), "22023", name);
});

platformTest(
  "a colliding row that other rows reference refuses the merge (PT409) and changes nothing",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1, source2 } = await createCatalogue(p, team.ws);
    // S2's settings row collides with S1's once that moves; a note hangs on it.
    await p.db.query(
      `insert into public.test_setting_notes (setting_id, note)
     select id, 'keep me' from public.test_product_settings where product_id = $1`,
      [source2],
    );
    const before = await dumpRows(p);
    assert.equal(await sqlState(() => merge(p, user(team.owner), target, [source1, source2])), "PT409");
    assert.deepEqual(await dumpRows(p), before);
  },
);

platformTest(
  "undo reverts what the merge changed and keeps later edits; it refuses when a source id is back",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1, source2 } = await createCatalogue(p, team.ws);
    const h = await merge(p, user(team.admin), target, [source1], "suggested", 0.88);
    assert.equal(h.similarity_score, 0.88);
    await p.db.query(`update public.products set name = 'Oak Plank (renamed)' where id = $1`, [target]);
    await undo(p, user(team.owner), h.id);
    const t = await product(p, target);
    assert.equal(t.name, "Oak Plank (renamed)", "edited after the merge: kept");
    assert.equal(t.description, null, "filled by the merge: reverted");
    assert.deepEqual(t.metadata, { factory: "Acme", color: "natural", finish: "" });
    assert.ok(await product(p, source1));

    const h2 = await merge(p, user(team.owner), target, [source2]);
    await p.db.query(
      `insert into public.products (id, workspace_id, name) values ($1, $2, 'Squatter')`,
      [source2, team.ws],
    );
    assert.equal(await sqlState(() => undo(p, user(team.owner), h2.id)), "PT409");
  },
);

platformTest(
  "merge history: owners and admins read it; members, viewers and outsiders do not; nobody writes it",
  async (p) => {
    const team = await createTeam(p);
    const { target, source1 } = await createCatalogue(p, team.ws);
    const h = await merge(p, user(team.owner), target, [source1]);
    const seen = async (who: { id: string }) =>
      (await sqlAs<{ id: string }>(
        p,
        user(who),
        `select id from public.product_merge_history where id = $1`,
        [h.id],
      ))
        .length;
    assert.equal(await seen(team.owner), 1);
    assert.equal(await seen(team.admin), 1);
    assert.equal(await seen(team.member), 0);
    assert.equal(await seen(team.viewer), 0);
    assert.equal(await seen(team.outsider), 0);
    const forge = await sqlState(() =>
      sqlAs(p, user(team.owner), `update public.product_merge_history set is_undone = true where id = $1`, [
        h.id,
      ])
    );
    assert.equal(forge, "42501");
  },
);

platformTest(
  "detections: members read and store them, viewers only read, outsiders see nothing",
  async (p) => {
    const team = await createTeam(p);
    await createCatalogue(p, team.ws);
    const a = await insertProduct(p, team.ws, { name: "Tile A", metadata: { factory: "Acme" } });
    const b = await insertProduct(p, team.ws, { name: "Tile B", metadata: { factory: "Acme" } });
    const foreign = await insertProduct(p, team.otherWs, { name: "Tile C" });
    const [first, second] = [a, b].sort();
    const insert = (who: As, p1: string, p2: string, extra = "") =>
      sqlAs(
        p,
        who,
        `insert into public.duplicate_detection_cache (workspace_id, product_id_1, product_id_2,
         overall_similarity_score, name_similarity, description_similarity, metadata_similarity,
         confidence_level${extra ? ", status" : ""})
       values ($1, $2, $3, 0.8, 0.9, 0.7, 0.6, 'medium'${extra ? `, '${extra}'` : ""})`,
        [team.ws, p1, p2],
      );
    assert.equal(await sqlState(() => insert(user(team.viewer), first, second)), "42501");
    assert.equal(await sqlState(() => insert(user(team.outsider), first, second)), "42501");
    assert.equal(await sqlState(() => insert(user(team.member), first, second, "dismissed")), "42501");
    assert.equal(
      await sqlState(() => insert(user(team.member), second, first)),
      "23514",
      "pairs are stored in id order",
    );
    const [x, y] = [a, foreign].sort();
    assert.equal(
      await sqlState(() => insert(user(team.member), x, y)),
      "23503",
      "a product of another workspace",
    );
    await insert(user(team.member), first, second);

    const count = async (who: As) =>
      (await sqlAs(p, who, `select id from public.duplicate_detection_cache where workspace_id = $1`, [
        team.ws,
      ])).length;
    // The catalogue's three and the member's one.
    assert.equal(await count(user(team.viewer)), 4);
    assert.equal(await count(user(team.member)), 4);
    assert.equal(await count(user(team.outsider)), 0);
    assert.equal(await sqlState(() => count({ role: "anon" })), "42501");
  },
);

platformTest(
  "update_duplicate_status: reviewers are stamped from the session; viewers and outsiders are refused",
  async (p) => {
    const team = await createTeam(p);
    const { target, other } = await createCatalogue(p, team.ws);
    const [cache] = await column(
      p,
      `select id as v from public.duplicate_detection_cache where product_id_1 = least($1::uuid, $2::uuid)
       and product_id_2 = greatest($1::uuid, $2::uuid)`,
      [target, other],
    ) as string[];
    const setStatus = (who: As, status: string) =>
      sqlAs<{ status: string; reviewed_by: string | null; reviewed_at: string | null }>(
        p,
        who,
        `select * from public.update_duplicate_status($1, $2)`,
        [cache, status],
      );
    const [row] = await setStatus(user(team.member), "dismissed");
    assert.equal(row.status, "dismissed");
    assert.equal(row.reviewed_by, team.member.id);
    assert.ok(row.reviewed_at);
    assert.equal(await sqlState(() => setStatus(user(team.viewer), "reviewed")), "42501");
    assert.equal(await sqlState(() => setStatus(user(team.outsider), "reviewed")), "PT404");
    // Nobody records a review in someone else's name.
    const forged = await sqlState(() =>
      sqlAs(
        p,
        user(team.owner),
        `update public.duplicate_detection_cache set reviewed_by = $2 where id = $1`,
        [
          cache,
          team.member.id,
        ],
      )
    );
    assert.equal(forged, "42501");
    const [again] = await setStatus(user(team.owner), "reviewed");
    assert.equal(again.reviewed_by, team.owner.id);
  },
);
