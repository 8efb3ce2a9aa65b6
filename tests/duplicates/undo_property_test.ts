/**
 * merge_products + undo_merge as a property over generated catalogues: whatever rows point at
 * the products (every table with a foreign key to products: product_prices keyed by the product,
 * kb_doc_attachments, quote_items, duplicate detections, and the fixture tables with identity
 * keys, unique (workspace, product) keys, two references with a no-self check and a dependent
 * table), a merge followed by its undo leaves every one of those tables exactly as before, to
 * the column. Collisions are frequent by construction (few products, many rows).
 *
 * Seeded: UNDO_PROPERTY_SEED replays a run; UNDO_PROPERTY_CASES sets the count (default 200).
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { sqlAs } from "../helpers/sql.ts";
import { seededRandom } from "../../fixtures/random.ts";
import { createTeam, DUMPED_TABLES, ensureTestTables, insertDetection, insertProduct } from "./helpers.ts";
import type { Platform } from "../../stack/platform.ts";

const SEED = Number(Deno.env.get("UNDO_PROPERTY_SEED") ?? 20261124);
const CASES = Number(Deno.env.get("UNDO_PROPERTY_CASES") ?? 200);

const SERVICE = { role: "service_role" } as const;
const TABLES = [...DUMPED_TABLES, "public.product_prices", "public.kb_doc_attachments"];

/** Every row of every table, in one query (a stable order per table). */
const DUMP_SQL = `select jsonb_build_object(${
  TABLES.map((t) =>
    `'${t}', (select coalesce(jsonb_agg(to_jsonb(x) order by to_jsonb(x)::text), '[]') from ${t} x)`
  ).join(", ")
}) as d`;

async function dump(p: Platform): Promise<unknown> {
  return (await p.db.query<{ d: unknown }>(DUMP_SQL)).rows[0].d;
}

platformTest("undo restores every row a merge moved, over generated catalogues", async (p) => {
  await ensureTestTables(p);
  const team = await createTeam(p);
  const ws = team.ws;
  const quote = (await p.db.query<{ id: string }>(
    `insert into public.quotes (workspace_id, title) values ($1, 'Property job') returning id`,
    [ws],
  )).rows[0].id;
  const docs = (await p.db.query<{ id: string }>(
    `insert into public.kb_docs (workspace_id, title, content, content_hash)
     select $1, 'Doc ' || g, 'text', repeat('a', 64) from generate_series(1, 3) g returning id`,
    [ws],
  )).rows.map((r) => r.id);

  const rnd = seededRandom(SEED);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: T[]): T => xs[int(xs.length)];
  let moved = 0;
  let removed = 0;

  for (let c = 0; c < CASES; c++) {
    // A fresh catalogue in the workspace: 3 to 6 products, rows pointing at them.
    await p.db.query(`delete from public.products where workspace_id = $1`, [ws]);
    await p.db.query(`delete from public.test_chunks`);
    await p.db.query(`delete from public.quote_items where quote_id = $1`, [quote]);
    const n = 3 + int(4);
    const products: string[] = [];
    for (let i = 0; i < n; i++) {
      products.push(
        await insertProduct(p, ws, {
          name: `Product ${c}-${i}`,
          description: rnd() < 0.5 ? null : `desc ${i}`,
          sku: rnd() < 0.5 ? null : `SKU-${c}-${i}`,
          metadata: rnd() < 0.5 ? {} : { factory: "Acme", k: i },
        }),
      );
    }
    for (let k = int(6); k > 0; k--) {
      await p.db.query(
        `insert into public.product_prices (workspace_id, product_id, list_price, currency)
         values ($1, $2, $3, 'EUR') on conflict do nothing`,
        [ws, pick(products), 10 + int(90)],
      );
    }
    for (let k = int(4); k > 0; k--) {
      await p.db.query(
        `insert into public.kb_doc_attachments (workspace_id, doc_id, product_id) values ($1, $2, $3)
         on conflict do nothing`,
        [ws, pick(docs), pick(products)],
      );
    }
    for (let k = int(4); k > 0; k--) {
      await p.db.query(
        `insert into public.quote_items (quote_id, workspace_id, product_id, quantity, unit_price, description)
         values ($1, $2, $3, $4, 5, 'line')`,
        [quote, ws, pick(products), 1 + int(9)],
      );
    }
    for (let k = int(4); k > 0; k--) {
      await p.db.query(`insert into public.test_images (product_id, url) values ($1, $2)`, [
        pick(products),
        `img-${k}.jpg`,
      ]);
      await p.db.query(`insert into public.test_chunks (product_id, content) values ($1, $2)`, [
        rnd() < 0.2 ? null : pick(products),
        `chunk ${k}`,
      ]);
    }
    for (let k = int(4); k > 0; k--) {
      const r = await p.db.query<{ id: string }>(
        `insert into public.test_product_settings (workspace_id, product_id, settings) values ($1, $2, $3)
         on conflict do nothing returning id`,
        [ws, pick(products), JSON.stringify({ k })],
      );
      // A dependent row on a setting that may collide makes merge refuse (PT409): sometimes.
      if (r.rows[0] && rnd() < 0.15) {
        await p.db.query(`insert into public.test_setting_notes (setting_id, note) values ($1, 'n')`, [
          r.rows[0].id,
        ]);
      }
    }
    for (let k = int(4); k > 0; k--) {
      const a = pick(products);
      const b = pick(products);
      if (a !== b) {
        await p.db.query(`insert into public.test_related (product_a, product_b) values ($1, $2)`, [a, b]);
      }
    }
    for (let k = int(4); k > 0; k--) {
      const a = pick(products);
      const b = pick(products);
      if (a === b) continue;
      await p.db.query(
        `delete from public.duplicate_detection_cache where product_id_1 = least($1::uuid, $2::uuid)
        and product_id_2 = greatest($1::uuid, $2::uuid)`,
        [a, b],
      );
      const id = await insertDetection(p, ws, a, b, Math.round(rnd() * 100) / 100);
      if (rnd() < 0.3) {
        await p.db.query(`update public.duplicate_detection_cache set status = 'reviewed' where id = $1`, [
          id,
        ]);
      }
    }

    const before = await dump(p);
    const shuffled = [...products].sort(() => rnd() - 0.5);
    const target = shuffled[0];
    const sources = shuffled.slice(1, 2 + int(Math.min(3, n - 1)));
    let historyId: string;
    try {
      const [h] = await sqlAs<{ id: string; moved_relationships: unknown[]; removed_rows: unknown[] }>(
        p,
        SERVICE,
        `select id, moved_relationships, removed_rows from public.merge_products($1, $2::uuid[])`,
        [target, sources],
      );
      historyId = h.id;
      moved += h.moved_relationships.length;
      removed += h.removed_rows.length;
    } catch (err) {
      // Refused merges (a colliding row others reference) must leave everything as it was.
      assert.match(
        (err as Error).message,
        /cannot merge/,
        `case ${c} (seed ${SEED}): ${(err as Error).message}`,
      );
      assert.deepEqual(await dump(p), before, `case ${c} (seed ${SEED}): a refused merge changed rows`);
      continue;
    }
    // The merged pairs stay, marked merged.
    const pairs = await p.db.query<{ status: string }>(
      `select status from public.duplicate_detection_cache
        where (product_id_1 = $1 and product_id_2 = any($2::uuid[])) or (product_id_2 = $1 and product_id_1 = any($2::uuid[]))`,
      [target, sources],
    );
    for (const r of pairs.rows) assert.equal(r.status, "merged", `case ${c} (seed ${SEED})`);
    await sqlAs(p, SERVICE, `select 1 from public.undo_merge($1)`, [historyId]);
    assert.deepEqual(await dump(p), before, `case ${c} (seed ${SEED}): undo did not restore every row`);
  }
  // The generator really exercised moves and collisions.
  assert.ok(moved > CASES, `moves: ${moved}`);
  assert.ok(removed > CASES / 4, `removals: ${removed}`);
});
