/**
 * The Pricing workflow on the knowledge base: the admin-only Pricing category, ingest of a price
 * list, a discount rule and a promotion, quick-pick search with exactly the spec's fields, and
 * every way a caller without owner/admin rights tries to reach pricing data.
 */
import assert from "node:assert/strict";
import { QUICK_PICK_FIELDS } from "../../packages/shared/kb/search.ts";
import { platformTest } from "../helpers/platform.ts";
import { sqlAs } from "../helpers/sql.ts";
import { createTeam, gateway, ok, pricingCategory, type Team } from "./helpers.ts";
import type { Platform } from "../../stack/platform.ts";

const PRICE_LIST = `# Mapei price list 2026
Manufacturer: Mapei
All prices in EUR, valid from 2026-01-01

| Art. No. | Description | Unit | Price |
|---|---|---|---|
${
  Array.from({ length: 30 }, (_, i) =>
    `| MP-${100 + i} | Keraflex variant ${i} adhesive 25 kg | bag | ${12 + i},50 |`).join("\n")
}
| MP-200 | Ultracolor Plus grout anthracite 5 kg | bag | 9,80 |
`;
const DISCOUNT = `# Dealer discounts
- All Mapei products 15% off for registered dealers`;
const PROMOTION = `# Spring promotion
Spring promo 10% off Marazzi Grande marble look tiles, valid 2026-03-01 to 2026-04-30`;

async function ingest(p: Platform, t: Team) {
  const cat = await pricingCategory(p, t);
  const docs: Record<string, string> = {};
  for (
    const [title, type, content, who] of [
      ["Mapei price list 2026", "price_list", PRICE_LIST, t.owner],
      ["Mapei dealer discounts", "discount_rule", DISCOUNT, t.admin],
      ["Marazzi spring promotion", "promotion", PROMOTION, t.owner],
    ] as const
  ) {
    const d = await ok(p, who.accessToken, "kb_create_document", {
      workspace_id: t.ws,
      title,
      category_id: cat,
      price_doc_type: type,
      content,
    });
    assert.equal(d.created, true);
    assert.equal(d.re_embedded, true);
    docs[type] = d.id;
  }
  return { cat, docs };
}

const quickPick = (
  p: Platform,
  token: string,
  ws: string,
  query: string,
  extra: Record<string, unknown> = {},
) =>
  gateway(p, token, "search_knowledge_base", { workspace_id: ws, query, category_slug: "pricing", ...extra });

platformTest("quick pick returns the right chunks, each with exactly the spec's fields", async (p) => {
  const t = await createTeam(p);
  const { cat, docs } = await ingest(p, t);
  const chunks = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_doc_chunks where doc_id = $1`,
    [
      docs.price_list,
    ],
  );
  assert.ok(chunks.rows[0].n >= 3, "the price list spans several chunks");

  for (
    const [query, type, mustContain] of [
      [
        "MP-117 Keraflex variant 17",
        "price_list",
        "| MP-117 | Keraflex variant 17 adhesive 25 kg | bag | 29,50 |",
      ],
      ["Ultracolor Plus grout anthracite", "price_list", "MP-200"],
      ["Mapei dealer discount", "discount_rule", "15% off"],
      ["Marazzi marble spring promo", "promotion", "2026-03-01 to 2026-04-30"],
    ] as const
  ) {
    const r = await quickPick(p, t.admin.accessToken, t.ws, query);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { mode, chunks: results } = r.body.data;
    assert.equal(mode, "quick_pick");
    assert.ok(results.length > 0, query);
    for (const hit of results) {
      assert.deepEqual(Object.keys(hit).sort(), [...QUICK_PICK_FIELDS].sort());
      assert.equal(hit.category_slug, "pricing");
      assert.equal(hit.category_name, "Pricing");
      assert.equal(typeof hit.relevance_score, "number");
      assert.ok(Object.values(docs).includes(hit.id), "id is the kb_docs id");
    }
    const scores = results.map((h: { relevance_score: number }) => h.relevance_score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), "ordered by relevance_score");
    assert.equal(results[0].id, docs[type], `${query}: top hit from the ${type}`);
    assert.equal(results[0].price_doc_type, type);
    assert.ok(results[0].content.includes(mustContain), `${query}: ${results[0].content}`);
  }

  // The price_doc_type filter narrows to one type.
  const promos = await quickPick(p, t.owner.accessToken, t.ws, "Mapei Marazzi", {
    price_doc_type: "promotion",
  });
  assert.ok(
    promos.body.data.chunks.every((h: { price_doc_type: string }) => h.price_doc_type === "promotion"),
  );

  // kb_search carries the category fields on every result too.
  const kb = await ok(p, t.owner.accessToken, "kb_search", {
    workspace_id: t.ws,
    query: "Keraflex",
    category_id: cat,
  });
  assert.ok(kb.results.length > 0);
  for (const h of kb.results) {
    assert.equal(h.category_slug, "pricing");
    assert.equal(h.category_name, "Pricing");
    assert.equal(h.price_doc_type, "price_list");
  }
});

platformTest(
  "pricing data is for owners and admins: members get 403, other workspaces nothing",
  async (p) => {
    const t = await createTeam(p);
    const { cat, docs } = await ingest(p, t);

    for (const who of [t.member, t.viewer]) {
      const r = await quickPick(p, who.accessToken, t.ws, "Keraflex");
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(
        (await gateway(p, who.accessToken, "kb_get_document", { doc_id: docs.price_list })).status,
        403,
      );
      const search = await gateway(p, who.accessToken, "kb_search", {
        workspace_id: t.ws,
        query: "Keraflex",
        category_id: cat,
      });
      assert.equal(search.status, 403);
      const typed = await gateway(p, who.accessToken, "kb_search", {
        workspace_id: t.ws,
        query: "Keraflex",
        price_doc_type: "price_list",
      });
      assert.equal(typed.status, 403);
      // An unfiltered search simply has no pricing chunks in it.
      const open = await ok(p, who.accessToken, "kb_search", {
        workspace_id: t.ws,
        query: "Keraflex Mapei",
        match_threshold: -1,
      });
      assert.deepEqual(open.results, []);
      const cats = await ok(p, who.accessToken, "kb_list_categories", { workspace_id: t.ws });
      assert.deepEqual(cats.categories, []);
    }
    const write = await gateway(p, t.member.accessToken, "kb_create_document", {
      workspace_id: t.ws,
      title: "Sneaky list",
      category_id: cat,
      price_doc_type: "price_list",
      content: PRICE_LIST,
    });
    assert.equal(write.status, 403);
    assert.equal(
      (await gateway(p, t.member.accessToken, "kb_create_category", {
        workspace_id: t.ws,
        name: "Pricing",
        slug: "pricing",
      }))
        .status,
      403,
    );

    // A user of another workspace: 404 for the workspace and its documents, nothing in their own.
    const out = t.outsider.accessToken;
    assert.equal((await quickPick(p, out, t.ws, "Keraflex")).status, 404);
    assert.equal((await gateway(p, out, "kb_get_document", { doc_id: docs.price_list })).status, 404);
    const own = await gateway(p, out, "search_knowledge_base", {
      workspace_id: t.otherWs,
      query: "Keraflex",
      category_slug: "pricing",
    });
    assert.equal(own.status, 200);
    assert.deepEqual(own.body.data.chunks, []);
    assert.equal((await gateway(p, out, "kb_list_categories", { workspace_id: t.ws })).status, 404);

    // Underneath, RLS hides the Pricing category, documents and chunks from members and outsiders.
    for (const who of [t.member, t.viewer, t.outsider]) {
      for (const table of ["kb_categories", "kb_docs", "kb_doc_chunks"]) {
        const rows = await sqlAs(
          p,
          { role: "authenticated", userId: who.id },
          `select 1 from public.${table}`,
        );
        assert.equal(rows.length, 0, `${table} as ${who.email}`);
      }
    }
    const ownerSees = await sqlAs(
      p,
      { role: "authenticated", userId: t.admin.id },
      `select 1 from public.kb_doc_chunks`,
    );
    assert.ok(ownerSees.length >= 3);
  },
);

platformTest(
  "pricing documents are validated: promotions need dates, types need the Pricing category",
  async (p) => {
    const t = await createTeam(p);
    const cat = await pricingCategory(p, t);
    const promo = await gateway(p, t.owner.accessToken, "kb_create_document", {
      workspace_id: t.ws,
      title: "Undated promo",
      category_id: cat,
      price_doc_type: "promotion",
      content: "Summer promo 10% off Marazzi tiles",
    });
    assert.equal(promo.status, 400);
    assert.match(promo.body.error, /content is not a valid promotion: .*date/i);
    assert.equal(promo.body.details[0].path[0], "content");

    const other = await ok(p, t.owner.accessToken, "kb_create_category", {
      workspace_id: t.ws,
      name: "Manuals",
    });
    const misplaced = await gateway(p, t.owner.accessToken, "kb_create_document", {
      workspace_id: t.ws,
      title: "List in the wrong place",
      category_id: other.id,
      price_doc_type: "price_list",
      content: PRICE_LIST,
    });
    assert.equal(misplaced.status, 400);
    assert.match(misplaced.body.error, /Pricing category/);

    const forced = await gateway(p, t.owner.accessToken, "kb_create_category", {
      workspace_id: t.otherWs,
      name: "Pricing",
      slug: "pricing",
    });
    assert.equal(forced.status, 404, "the owner of one workspace cannot create categories in another");
    const wrongLevel = await gateway(p, t.outsider.accessToken, "kb_create_category", {
      workspace_id: t.otherWs,
      name: "Pricing",
      slug: "pricing",
      access_level: "member",
    });
    assert.equal(wrongLevel.status, 400);
    const dup = await gateway(p, t.owner.accessToken, "kb_create_category", {
      workspace_id: t.ws,
      name: "Pricing",
      slug: "pricing",
    });
    assert.equal(dup.status, 409);
    const created = await ok(p, t.outsider.accessToken, "kb_create_category", {
      workspace_id: t.otherWs,
      name: "Pricing",
      slug: "pricing",
    });
    assert.equal(created.access_level, "admin");
  },
);
