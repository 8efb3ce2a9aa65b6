/**
 * batch-detect past PostgREST's max_rows: store_duplicate_detections once returned one row per
 * stored pair as a set, which the database API cuts at 1,000 rows without an error, so a scan
 * finding more pairs failed with a 500 after writing them all. It answers one jsonb array now:
 * every pair comes back with its cache id and status.
 */
import assert from "node:assert/strict";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { platformTest } from "../helpers/platform.ts";
import { createTeam } from "./helpers.ts";

/** 46 identical products of one factory: 46 * 45 / 2 = 1,035 duplicate pairs. */
const PRODUCTS = 46;
const PAIRS = (PRODUCTS * (PRODUCTS - 1)) / 2;

platformTest("batch-detect with more than 1,000 pairs answers 200 with every pair stored", async (p) => {
  const team = await createTeam(p);
  await p.db.query(
    `insert into public.products (workspace_id, name, description, metadata)
     select $1, 'Oak Floor Plank 20mm', 'Solid oak plank', '{"factory": "Acme", "color": "natural"}'::jsonb
       from generate_series(1, $2::int)`,
    [team.ws, PRODUCTS],
  );
  const res = await fetch(`${aiBackendOf(p).url}/api/duplicates/batch-detect`, {
    method: "POST",
    headers: { authorization: `Bearer ${team.member.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ workspace_id: team.ws, limit: 5_000 }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body).slice(0, 500));
  assert.equal(body.duplicates_found, PAIRS);
  assert.equal(body.pairs.length, PAIRS);
  const stored = await p.db.query<{ id: string; product_id_1: string; product_id_2: string; status: string }>(
    `select id, product_id_1, product_id_2, status from public.duplicate_detection_cache where workspace_id = $1`,
    [team.ws],
  );
  assert.equal(stored.rows.length, PAIRS);
  const byPair = new Map(stored.rows.map((r) => [`${r.product_id_1}/${r.product_id_2}`, r]));
  const ids = new Set<string>();
  for (const pair of body.pairs) {
    const row = byPair.get(`${pair.product_id_1}/${pair.product_id_2}`);
    assert.ok(row, `pair ${pair.product_id_1}/${pair.product_id_2} stored`);
    assert.equal(pair.cache_id, row.id);
    assert.equal(pair.status, "pending");
    ids.add(pair.cache_id);
  }
  assert.equal(ids.size, PAIRS);

  // The stored detections list with product names (the names read in split `in` groups).
  const q = new URLSearchParams({ workspace_id: team.ws, limit: "1000", offset: "0" });
  const list = await fetch(`${aiBackendOf(p).url}/api/duplicates/cached?${q}`, {
    headers: { authorization: `Bearer ${team.viewer.accessToken}` },
  });
  const page = await list.json();
  assert.equal(list.status, 200, JSON.stringify(page).slice(0, 500));
  assert.equal(page.total, PAIRS);
  assert.equal(page.detections.length, 1000);
  assert.ok(
    page.detections.every((d: { product_name_1: string | null; product_name_2: string | null }) =>
      d.product_name_1 === "Oak Floor Plank 20mm" && d.product_name_2 === "Oak Floor Plank 20mm"
    ),
  );
});
