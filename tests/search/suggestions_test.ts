/**
 * Search suggestions through ai-gateway (group Search): autocomplete over product names and
 * recent queries, typo correction from the product-name vocabulary, query expansion from the
 * seeded building-materials synonyms, analytics and trending from the search log, recommendations
 * and click tracking - every result limited to the caller's workspaces.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";
import { createTeam, type Team } from "../helpers/team.ts";
import { gateway, ok } from "../ai/helpers.ts";

let shared: { t: Team; ids: Record<string, string> } | null = null;

async function setup(p: Platform) {
  if (shared) return shared;
  const t = await createTeam(p, { prefix: "search", credits: 0 });
  const ids: Record<string, string> = {};
  const add = async (ws: string, name: string, category: string) => {
    const r = await p.db.query<{ id: string }>(
      `insert into public.products (workspace_id, name, category) values ($1, $2, $3) returning id`,
      [ws, name, category],
    );
    ids[name] = r.rows[0].id;
  };
  for (
    const [name, cat] of [
      ["Porcelain tile 60x60 grey", "tiles"],
      ["Porcelain tile 30x60 white", "tiles"],
      ["Tile adhesive C2TE 25 kg", "adhesives"],
      ["Oak parquet 14 mm", "flooring"],
      ["Plasterboard 12.5 mm", "drywall"],
      ["Pl", "misc"],
    ]
  ) await add(t.ws, name, cat);
  await add(t.otherWs, "Porcelain secret slab", "tiles");
  await add(t.otherWs, "Zebrawood veneer", "wood");
  shared = { t, ids };
  return shared;
}

const texts = (xs: { text: string }[]) => xs.map((x) => x.text);

platformTest(
  "autocomplete: recent queries first, then product names, only the caller's workspaces",
  async (p) => {
    const { t, ids } = await setup(p);
    for (const q of ["Porcelain tile", "porcelain  TILE ", "porcelain slab"]) {
      await ok(p, t.member.accessToken, "search_analytics", {
        workspace_id: t.ws,
        query: q,
        results_count: 2,
      });
    }
    const a = await ok(p, t.viewer.accessToken, "autocomplete", { query: "porc", limit: 6 });
    assert.equal(a.query, "porc");
    assert.equal(typeof a.took_ms, "number");
    assert.deepEqual(a.suggestions.slice(0, 2), [
      { text: "porcelain tile", type: "query", count: 2 },
      { text: "porcelain slab", type: "query", count: 1 },
    ]);
    const products = a.suggestions.filter((s: { type: string }) => s.type === "product");
    assert.deepEqual(texts(products).sort(), ["Porcelain tile 30x60 white", "Porcelain tile 60x60 grey"]);
    assert.equal(products[0].workspace_id, t.ws);
    assert.ok(products.every((s: { product_id: string }) => Object.values(ids).includes(s.product_id)));

    // A word inside the name, and the trigram order: starts-with before contains.
    const tile = await ok(p, t.member.accessToken, "autocomplete", { query: "tile", limit: 10 });
    const names = texts(tile.suggestions.filter((s: { type: string }) => s.type === "product"));
    assert.equal(names[0], "Tile adhesive C2TE 25 kg");
    assert.deepEqual(names.slice(1).sort(), ["Porcelain tile 30x60 white", "Porcelain tile 60x60 grey"]);
    // Two characters: starts-with through the btree index, shortest first.
    const pl = await ok(p, t.member.accessToken, "autocomplete", { query: "PL" });
    assert.deepEqual(texts(pl.suggestions), ["Pl", "Plasterboard 12.5 mm"]);
    // Wildcards are literal.
    assert.deepEqual((await ok(p, t.member.accessToken, "autocomplete", { query: "%" })).suggestions, []);

    // The outsider sees their own catalog only, never the team's products or queries.
    const out = await ok(p, t.outsider.accessToken, "autocomplete", { query: "porc" });
    assert.deepEqual(texts(out.suggestions), ["Porcelain secret slab"]);
    const narrowed = await gateway(p, t.outsider.accessToken, "autocomplete", {
      query: "porc",
      workspace_id: t.ws,
    });
    assert.equal(narrowed.status, 404);
    const one = await ok(p, t.owner.accessToken, "autocomplete", { query: "oak", workspace_id: t.ws });
    assert.deepEqual(texts(one.suggestions), ["Oak parquet 14 mm"]);

    const empty = await gateway(p, t.member.accessToken, "autocomplete", { query: "  " });
    assert.equal(empty.status, 400);
    assert.match(JSON.stringify(empty.body), /query must not be empty/);
    assert.equal((await gateway(p, null, "autocomplete", { query: "porc" })).status, 401);
    const service = await gateway(p, p.config.serviceRoleKey, "autocomplete", { query: "porc" });
    assert.equal(service.status, 400);
    assert.match(JSON.stringify(service.body), /workspace_id is required/);
  },
);

platformTest(
  "typo correction from the workspace vocabulary; query expansion from the synonyms",
  async (p) => {
    const { t } = await setup(p);
    const fix = await ok(p, t.member.accessToken, "typo_correction", {
      query: "porcelian plasterbord adhesive 60x60",
    });
    assert.equal(fix.corrected_query, "porcelain plasterboard adhesive 60x60");
    assert.equal(fix.has_corrections, true);
    assert.deepEqual(
      fix.corrections.map((c: { original: string; suggestion: string }) => [c.original, c.suggestion]),
      [
        ["porcelian", "porcelain"],
        ["plasterbord", "plasterboard"],
      ],
    );
    assert.ok(fix.corrections.every((c: { similarity: number }) => c.similarity >= 0.3 && c.similarity < 1));
    // Another workspace's vocabulary is not used.
    const foreign = await ok(p, t.member.accessToken, "typo_correction", { query: "zebrawod" });
    assert.equal(foreign.has_corrections, false);
    assert.equal(foreign.corrected_query, "zebrawod");
    assert.equal(
      (await ok(p, t.outsider.accessToken, "typo_correction", { query: "zebrawod" })).corrected_query,
      "zebrawood",
    );
    // A renamed product changes the vocabulary (kept by the products trigger).
    const renamed = await p.db.query<{ id: string }>(
      `insert into public.products (workspace_id, name) values ($1, 'Travertine') returning id`,
      [t.ws],
    );
    assert.equal(
      (await ok(p, t.member.accessToken, "typo_correction", { query: "travertin" })).corrected_query,
      "travertine",
    );
    await p.db.query(`delete from public.products where id = $1`, [renamed.rows[0].id]);
    assert.equal(
      (await ok(p, t.member.accessToken, "typo_correction", { query: "travertin" })).has_corrections,
      false,
    );

    const drywall = await ok(p, t.member.accessToken, "query_expansion", { query: "Drywall" });
    assert.equal(drywall.original_query, "Drywall");
    assert.deepEqual(drywall.synonyms.drywall.sort(), [
      "gypsum board",
      "plasterboard",
      "sheetrock",
      "wallboard",
    ]);
    assert.ok(drywall.related_terms.includes("joint compound"));
    assert.ok(drywall.expanded_terms.includes("plasterboard"));
    assert.equal(
      drywall.expanded_query,
      'drywall OR "gypsum board" OR plasterboard OR sheetrock OR wallboard',
    );
    const pair = await ok(p, t.member.accessToken, "query_expansion", { query: "roof tile adhesive" });
    assert.ok(pair.synonyms["roof tile"].includes("roofing tile"));
    assert.ok(pair.synonyms.tile.includes("ceramic tile"));
    assert.ok(pair.synonyms.adhesive.includes("glue"));
    assert.ok(pair.related_terms.includes("grout"));
    const none = await ok(p, t.member.accessToken, "query_expansion", { query: "zzqx" });
    assert.deepEqual([none.synonyms, none.related_terms, none.expanded_terms], [{}, [], ["zzqx"]]);

    // A workspace's own synonyms: owners and admins manage them, they apply to that workspace only.
    const byMember = await t.member.client.from("search_synonyms")
      .insert({ workspace_id: t.ws, term: "zzqx", synonyms: ["floor tile"] });
    assert.ok(byMember.error, "members do not manage synonyms");
    const byAdmin = await t.admin.client.from("search_synonyms")
      .insert({ workspace_id: t.ws, term: "zzqx", synonyms: ["floor tile"] });
    assert.equal(byAdmin.error, null);
    assert.deepEqual((await ok(p, t.member.accessToken, "query_expansion", { query: "zzqx" })).synonyms, {
      zzqx: ["floor tile"],
    });
    assert.deepEqual(
      (await ok(p, t.outsider.accessToken, "query_expansion", { query: "zzqx" })).synonyms,
      {},
    );
    const global = await t.admin.client.from("search_synonyms").update({ synonyms: ["x"] }).eq("term", "tile")
      .is("workspace_id", null).select("id");
    assert.deepEqual(global.data, [], "global entries are the platform's");
  },
);

platformTest(
  "analytics, trending, clicks and recommendations from the search log, per workspace",
  async (p) => {
    const { t, ids } = await setup(p);
    const ws = t.otherWs; // the outsider's own workspace: a clean log for exact figures
    const u = t.outsider.accessToken;
    for (const [q, n] of [["gravel", 0], ["oak parquet", 3], ["oak parquet", 4], ["cement", 0]] as const) {
      const r = await ok(p, u, "search_analytics", { workspace_id: ws, query: q, results_count: n });
      assert.match(r.recorded.id, /^[0-9a-f-]{36}$/);
    }
    // Searches of the week before, for growth.
    await p.db.query(
      `insert into public.search_queries (workspace_id, user_id, query, created_at)
     values ($1, $2, 'gravel', now() - interval '10 days'), ($1, $2, 'gravel', now() - interval '9 days'),
            ($1, $2, 'oak parquet', now() - interval '8 days')`,
      [ws, t.outsider.id],
    );
    const trend = await ok(p, u, "trending_searches", { workspace_id: ws, days: 7, limit: 5 });
    assert.equal(trend.days, 7);
    assert.deepEqual(
      trend.trending.map((
        x: Record<string, unknown>,
      ) => [x.query, x.count, x.previous_count, x.growth_percent]),
      [["oak parquet", 2, 1, 100], ["cement", 1, 0, null], ["gravel", 1, 2, -50]],
    );

    const clicked = await gateway(p, u, "track_suggestion_click", {
      workspace_id: ws,
      query: "zebra",
      suggestion: "Zebrawood veneer",
      suggestion_type: "product",
      product_id: ids["Zebrawood veneer"],
      position: 0,
    });
    assert.equal(clicked.status, 201);
    assert.equal(clicked.body.data.tracked, true);
    // Another workspace's product, another workspace, a bad type: refused.
    const foreignProduct = await gateway(p, u, "track_suggestion_click", {
      workspace_id: ws,
      query: "oak",
      suggestion: "Oak",
      suggestion_type: "product",
      product_id: ids["Oak parquet 14 mm"],
    });
    assert.equal(foreignProduct.status, 404);
    assert.equal(
      (await gateway(p, u, "track_suggestion_click", {
        workspace_id: t.ws,
        query: "x",
        suggestion: "x",
        suggestion_type: "query",
      }))
        .status,
      404,
    );
    const badType = await gateway(p, u, "track_suggestion_click", {
      workspace_id: ws,
      query: "x",
      suggestion: "x",
      suggestion_type: "ad",
    });
    assert.equal(badType.status, 400);
    assert.match(JSON.stringify(badType.body), /suggestion_type must be one of/);

    const a = await ok(p, u, "search_analytics", { workspace_id: ws, days: 7 });
    assert.equal(a.recorded, null);
    assert.equal(a.analytics.total_searches, 4);
    assert.equal(a.analytics.unique_queries, 3);
    assert.equal(a.analytics.zero_result_searches, 2);
    assert.equal(a.analytics.suggestion_clicks, 1);
    assert.equal(a.analytics.click_through_rate, 0.25);
    assert.deepEqual(a.analytics.top_queries[0], { query: "oak parquet", count: 2 });
    assert.deepEqual(a.analytics.zero_result_queries.map((x: { query: string }) => x.query), [
      "cement",
      "gravel",
    ]);
    assert.deepEqual(a.analytics.clicks_by_type, { product: 1 });
    const noWs = await gateway(p, u, "search_analytics", { query: "x" });
    assert.equal(noWs.status, 400);
    assert.match(JSON.stringify(noWs.body), /workspace_id is required to record a search/);

    const rec = await ok(p, u, "search_recommendations", { limit: 5 });
    assert.deepEqual(texts(rec.recent).sort(), ["cement", "gravel", "oak parquet"]);
    assert.deepEqual(
      rec.products.map((x: { product_id: string; clicks: number }) => [x.product_id, x.clicks]),
      [
        [ids["Zebrawood veneer"], 1],
      ],
    );
    // The team's members never see the outsider's searches, and vice versa.
    const team = await ok(p, t.member.accessToken, "trending_searches", {});
    assert.ok(
      team.trending.every((x: { query: string }) => !["gravel", "cement", "oak parquet"].includes(x.query)),
    );
    const memberRec = await ok(p, t.member.accessToken, "search_recommendations", {});
    assert.ok(
      [...memberRec.recent, ...memberRec.popular].every((x: { text: string }) =>
        x.text.startsWith("porcelain")
      ),
    );
    const teamStats = await ok(p, t.viewer.accessToken, "search_analytics", {});
    assert.ok(
      teamStats.analytics.top_queries.every((x: { query: string }) => x.query.startsWith("porcelain")),
    );
    // Through /rest/v1 too: the team's member reads none of the outsider's log, clicks or vocabulary.
    for (
      const table of ["search_queries", "search_query_stats", "search_suggestion_clicks", "search_terms"]
    ) {
      const r = await t.member.client.from(table).select("workspace_id").eq("workspace_id", ws);
      assert.deepEqual(r.data, [], table);
      const own = await t.outsider.client.from(table).select("workspace_id").eq("workspace_id", ws).limit(1);
      assert.equal(own.data!.length, 1, table);
    }
  },
);
