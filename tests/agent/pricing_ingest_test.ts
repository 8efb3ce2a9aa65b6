/**
 * Ingest and freshness: the KB's ingest parses Pricing documents into price_entries as they are
 * written, and any change - through the KB, around it, or a status change - reaches the next
 * lookup (re-parse of stale documents, per-workspace index cache invalidated by its counter).
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { PriceProposal } from "../../packages/shared/pricing/mod.ts";
import { askIn, chat, llm, MAPEI_LIST, only, pricingSetup } from "./helpers.ts";

platformTest(
  "edits to a Pricing document reach the next lookup (entries re-parsed, cache refreshed)",
  async (p) => {
    const { t, docs } = await pricingSetup(p);
    // The KB ingest parsed each document into its price_entries row as it was written.
    const current = () =>
      p.db.query<{ kb_doc_id: string; fresh: boolean }>(
        `select e.kb_doc_id, e.content_hash = d.content_hash as fresh
         from public.price_entries e join public.kb_docs d on d.id = e.kb_doc_id
        where e.workspace_id = $1 order by e.kb_doc_id`,
        [t.ws],
      );
    assert.deepEqual(
      (await current()).rows,
      Object.values(docs).sort().map((kb_doc_id) => ({ kb_doc_id, fresh: true })),
    );
    const lookup = async () => {
      llm(p).reply({
        toolUse: [{ name: "price_lookup", input: { product_name: "Keraflex", sku: "MP-100" } }],
      }, "ok");
      const r = await chat(p, t.admin.accessToken, askIn(t.ws, "MP-100?"));
      return (only(r.chunks, "price_proposal") as PriceProposal[])[0];
    };
    assert.equal((await lookup()).final_unit_price, 10.63); // 12.50 x 0.85 = 10.625 -> 10.63
    const entries = await p.db.query<{ entry_count: number; parser_version: string }>(
      `select entry_count, parser_version from public.price_entries where kb_doc_id = $1`,
      [docs.list],
    );
    assert.equal(entries.rows[0].entry_count, 2, "the price list was parsed into entries");

    const changed = MAPEI_LIST.content.replace("| 12,50 | 12,00 |", "| 14,00 | 13,00 |");
    const res = await fetch(`${p.url}/functions/v1/ai-gateway`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${t.admin.accessToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        action: "kb_update_document",
        payload: { doc_id: docs.list, content: changed },
      }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.ok((await current()).rows.every((r) => r.fresh), "the update re-parsed the document");
    assert.equal((await lookup()).final_unit_price, 11.9); // 14.00 x 0.85

    // A document written around the KB (here: straight into the table) is parsed before the next
    // lookup rather than silently left out.
    const raw = MAPEI_LIST.content.replace("| 12,50 | 12,00 |", "| 16,00 | 15,00 |");
    await p.db.query(
      `update public.kb_docs set content = $2, content_hash = encode(extensions.digest($2, 'sha256'), 'hex') where id = $1`,
      [docs.list, raw],
    );
    assert.ok(!(await current()).rows.every((r) => r.fresh));
    assert.equal((await lookup()).final_unit_price, 13.6); // 16.00 x 0.85
    assert.ok((await current()).rows.every((r) => r.fresh));

    // Unpublishing the discount rule takes it out of the next lookup.
    await p.db.query(`update public.kb_docs set status = 'draft' where id = $1`, [docs.discount]);
    const proposal = await lookup();
    assert.equal(proposal.final_unit_price, 16);
    assert.equal(proposal.discount_percent, 0);
  },
);

platformTest(
  "deleting a workspace takes its Pricing documents, entries and audit rows with it",
  async (p) => {
    const { t, docs } = await pricingSetup(p);
    llm(p).reply(
      { toolUse: [{ name: "price_lookup", input: { product_name: "Keraflex", sku: "MP-100" } }] },
      "ok",
    );
    const r = await chat(p, t.admin.accessToken, askIn(t.ws, "MP-100?"));
    const logId = only(r.chunks, "tool_call_ids")[0].mapping[0].log_id;
    const quote = await t.owner.client.from("quotes").insert({ workspace_id: t.ws }).select("id").single();
    await t.owner.client.from("quote_items").insert({
      quote_id: quote.data!.id,
      description: "Keraflex",
      unit_price: 12.5,
      discounted_price: 10.63,
      price_source: `kb:ai:${logId}`,
      price_lookup_call_id: logId,
    });
    // An audit row a committed line points to cannot be removed on its own.
    await assert.rejects(p.db.query(`delete from public.agent_tool_call_logs where id = $1`, [logId]));
    const gone = await t.owner.client.from("workspaces").delete().eq("id", t.ws).select("id");
    assert.equal(gone.error, null);
    assert.equal(gone.data?.length, 1);
    const left = await p.db.query<{ n: number }>(
      `select (select count(*) from public.kb_docs where id = $1) + (select count(*) from public.price_entries
       where kb_doc_id = $1) + (select count(*) from public.agent_tool_call_logs where id = $2)
       + (select count(*) from public.price_index_versions where workspace_id = $3) as n`,
      [docs.list, logId, t.ws],
    );
    assert.equal(Number(left.rows[0].n), 0);
  },
);
