/**
 * The price index past PostgREST's max_rows: price_index_entries returns one row per priced
 * document, and a set-returning RPC is cut at 1,000 rows without an error, so a workspace with
 * more priced documents must still get prices from every one of them (the index reads the RPC in
 * pages ordered by kb_doc_id).
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { createPricingCategory, createTeam, ingest, MAPEI_LIST } from "../agent/helpers.ts";
import { lookupWorkspacePrice } from "../../packages/shared/pricing/store.ts";

const DOCS = 1_100;

platformTest(
  "a workspace with 1,100 priced documents gets prices from documents past the first 1,000",
  async (p) => {
    const t = await createTeam(p);
    const cat = await createPricingCategory(p, t.owner.accessToken, t.ws);
    // One document ingested as a client would (its entries parsed by the ingest hook), then
    // copied in SQL: each copy is a published price list with current entries (source doc_id, SKU and
    // name its own).
    const template = await ingest(p, t.owner.accessToken, t.ws, cat, MAPEI_LIST);
    const parsed = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.price_entries where kb_doc_id = $1 and entries::text like '%MP-100%'`,
      [template],
    );
    assert.equal(parsed.rows[0].n, 1, "the template's entries carry MP-100");
    await p.db.query(
      `with docs as (
       insert into public.kb_docs (workspace_id, category_id, title, content, content_hash, status, price_doc_type)
       select d.workspace_id, d.category_id, d.title || ' #' || g, d.content, d.content_hash, 'published',
              d.price_doc_type
         from public.kb_docs d, generate_series(1, $2::int) g
        where d.id = $1
       returning id, split_part(title, '#', 2) as n
     )
     insert into public.price_entries (workspace_id, kb_doc_id, price_doc_type, content_hash, parser_version,
                                       entries, issues)
     select e.workspace_id, docs.id, e.price_doc_type, e.content_hash, e.parser_version,
            replace(replace(replace(e.entries::text, 'MP-100', 'QX-' || docs.n || '-Z'), 'Keraflex', 'Flex' || docs.n),
                    $1::text, docs.id::text)::jsonb,
            e.issues
       from docs, public.price_entries e
      where e.kb_doc_id = $1`,
      [template, DOCS - 1],
    );
    // The documents in price_index_entries' order; the last is the 1,100th, past one response.
    const order = await p.db.query<{ id: string; title: string }>(
      `select id, title from public.kb_docs
      where workspace_id = $1 and price_doc_type is not null order by id`,
      [t.ws],
    );
    assert.equal(order.rows.length, DOCS);

    const today = new Date().toISOString().slice(0, 10);
    for (const at of [0, 999, 1000, DOCS - 1]) {
      const doc = order.rows[at];
      const n = doc.title.split("#")[1];
      const sku = doc.id === template ? "MP-100" : `QX-${n}-Z`;
      const r = await lookupWorkspacePrice(t.owner.client, t.ws, {
        product_name: `${doc.id === template ? "Keraflex" : `Flex${n}`} Maxi S1 grey 25 kg`,
        sku,
        today,
      });
      assert.equal(r.documents, DOCS);
      assert.deepEqual(r.result.proposal.source_doc_ids, [doc.id], `document #${at + 1} (${sku})`);
      assert.equal(r.result.proposal.final_unit_price, 12.5, `document #${at + 1} (${sku})`);
      assert.ok(r.result.matches.some((m) => m.doc_id === doc.id && m.matched_on === "sku"));
    }
  },
);
