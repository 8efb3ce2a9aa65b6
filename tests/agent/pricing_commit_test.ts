/**
 * Committing a looked-up price to the per-product cache (product_prices, the spec's
 * merge-duplicates POST), who may, and the 30-day observability figures.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { PriceProposal } from "../../packages/shared/pricing/mod.ts";
import { askIn, chat, gatewayOk, llm, only, pricingSetup } from "./helpers.ts";

platformTest(
  "a promotion's SKU price wins, and product_prices upserts on (workspace, product)",
  async (p) => {
    const { t, docs } = await pricingSetup(p);
    const grout = await t.admin.client.from("products")
      .insert({ workspace_id: t.ws, name: "Ultracolor Plus grout 5 kg", sku: "MP-200" }).select("id")
      .single();
    llm(p).reply(
      {
        toolUse: [{
          name: "price_lookup",
          input: { product_name: "Ultracolor Plus grout", sku: "MP-200", quantity: 10 },
        }],
      },
      "The grout is on promotion.",
    );
    const r = await chat(p, t.owner.accessToken, askIn(t.ws, "Price of the grout, 10 bags?"));
    const [proposal] = only(r.chunks, "price_proposal") as PriceProposal[];
    assert.equal(proposal.list_price, 9.8);
    assert.equal(proposal.final_unit_price, 7.9);
    assert.equal(proposal.discount_percent, 19.39);
    assert.equal(proposal.total, 79);
    assert.deepEqual(proposal.source_doc_ids, [docs.list, docs.promotion]);
    assert.match(proposal.effective_through!, /^\d{4}-\d{2}-\d{2}$/);
    const logId = only(r.chunks, "tool_call_ids")[0].mapping[0].log_id;

    // The spec's commit: POST /rest/v1/product_prices, Prefer resolution=merge-duplicates.
    const row = {
      workspace_id: t.ws,
      product_id: grout.data!.id,
      list_price: proposal.list_price,
      discount_price: proposal.final_unit_price,
      discount_percent: proposal.discount_percent,
      currency: proposal.currency,
      unit: proposal.unit,
      source_kb_doc_ids: proposal.source_doc_ids,
      source_snippet: proposal.reasoning_chain[2],
      price_lookup_call_id: logId,
      confirmed_by: t.member.id, // overwritten: the confirmer is always the writer
    };
    const upsert = (body: Record<string, unknown>) =>
      fetch(`${p.url}/rest/v1/product_prices`, {
        method: "POST",
        headers: {
          apikey: p.config.anonKey,
          authorization: `Bearer ${t.owner.accessToken}`,
          "content-type": "application/json",
          prefer: "resolution=merge-duplicates,return=representation",
        },
        body: JSON.stringify(body),
      });
    const first = await upsert(row);
    assert.equal(first.status, 201);
    const [created] = await first.json();
    assert.equal(created.confirmed_by, t.owner.id);
    assert.equal(created.discount_price, 7.9);
    const second = await upsert({ ...row, discount_price: 7.5, notes: "rounded down for a good customer" });
    assert.equal(second.status, 200, "the second POST merges into the same row");
    const [merged] = await second.json();
    assert.equal(merged.id, created.id);
    assert.equal(merged.discount_price, 7.5);
    const count = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.product_prices where workspace_id = $1`,
      [t.ws],
    );
    assert.equal(count.rows[0].n, 1);

    // Members see no product_prices and cannot write them (admin-only by RLS).
    const seen = await t.member.client.from("product_prices").select("*");
    assert.deepEqual(seen.data, []);
    const byMember = await t.member.client.from("product_prices").upsert({ ...row, discount_price: 1 });
    assert.notEqual(byMember.error, null);
    // A source that is not a document of the workspace is refused.
    const bogus = await t.owner.client.from("product_prices")
      .upsert({ ...row, source_kb_doc_ids: [crypto.randomUUID()] });
    assert.equal(bogus.error?.code, "23503");

    // Observability: 1 lookup, committed; the stats are for owners and admins only.
    const stats = await t.admin.client.rpc("price_lookup_stats", { p_workspace_id: t.ws });
    assert.deepEqual(
      (({ lookups, committed, commit_rate, zero_result_count }) => ({
        lookups,
        committed,
        commit_rate,
        zero_result_count,
      }))(
        stats.data,
      ),
      { lookups: 1, committed: 1, commit_rate: 1, zero_result_count: 0 },
    );
    const denied = await t.member.client.rpc("price_lookup_stats", { p_workspace_id: t.ws });
    assert.equal(denied.status, 403);

    // Quick pick (the KB search without a model) writes no audit row.
    const quick = await gatewayOk(p, t.admin.accessToken, "search_knowledge_base", {
      workspace_id: t.ws,
      query: "Ultracolor grout MP-200",
      category_slug: "pricing",
    });
    assert.ok(quick.chunks.length > 0);
    const after = await t.admin.client.rpc("price_lookup_stats", { p_workspace_id: t.ws });
    assert.equal(after.data.lookups, 1);
    const logs = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.agent_tool_call_logs where workspace_id = $1`,
      [t.ws],
    );
    assert.equal(logs.rows[0].n, 1);
  },
);
