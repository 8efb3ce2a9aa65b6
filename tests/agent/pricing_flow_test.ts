/**
 * The pricing workflow end to end, as the spec's frontend drives it: an admin sets up the Pricing
 * category and ingests a price list, a manufacturer discount rule and a promotion; agent-chat
 * (the LLM stand-in scripted to call price_lookup) streams the engine's proposal; the admin
 * commits it through /rest/v1 and the audit joins find the lookup.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";
import type { PriceProposal } from "../../packages/shared/pricing/mod.ts";
import { askIn, chat, type Json, kinds, llm, only, pricingSetup, textOf } from "./helpers.ts";

async function logRow(p: Platform, id: string) {
  const r = await p.db.query<Record<string, unknown>>(
    `select * from public.agent_tool_call_logs where id = $1`,
    [id],
  );
  return r.rows[0];
}

platformTest(
  "admin: status -> tool_call_ids -> matches -> proposal -> text -> done; commit and audit join",
  async (p) => {
    const { t, docs, productId } = await pricingSetup(p);
    const model = llm(p);
    model.reply(
      {
        toolUse: [{
          name: "price_lookup",
          input: {
            product_name: "Keraflex Maxi S1 grey",
            sku: "MP-100",
            manufacturer: "Mapei",
            quantity: 60,
            unit: "bag",
            product_id: productId,
          },
        }],
      },
      // The model "claims" another price: what counts is the proposal, computed by the engine.
      "Keraflex Maxi S1 grey costs 5.00 EUR per bag for you.",
    );
    const r = await chat(p, t.admin.accessToken, askIn(t.ws, "What does MP-100 cost for 60 bags?"));
    assert.equal(r.status, 200, r.raw);
    assert.match(r.headers.get("content-type")!, /^application\/x-ndjson/);
    assert.deepEqual(kinds(r.chunks), [
      "status",
      "tool_call_ids",
      "price_lookup_matches",
      "price_proposal",
      "text",
      "done",
    ]);
    // Every line is one JSON object, the last one done.
    assert.ok(r.raw.endsWith('{"type":"done"}\n'));
    assert.equal(r.raw.split("\n").filter(Boolean).length, r.chunks.length);

    const [ids] = only(r.chunks, "tool_call_ids");
    assert.equal(ids.mapping.length, 1);
    assert.equal(ids.mapping[0].tool_name, "price_lookup");
    const logId = ids.mapping[0].log_id;

    const [proposal] = only(r.chunks, "price_proposal") as PriceProposal[];
    assert.deepEqual(
      {
        product_id: proposal.product_id,
        list_price: proposal.list_price,
        discount_percent: proposal.discount_percent,
        final_unit_price: proposal.final_unit_price,
        currency: proposal.currency,
        unit: proposal.unit,
        quantity_applied: proposal.quantity_applied,
        total: proposal.total,
        confidence: proposal.confidence,
        effective_through: proposal.effective_through,
        warnings: proposal.warnings,
        source_doc_ids: proposal.source_doc_ids,
        source_titles: proposal.source_titles,
      },
      {
        product_id: productId,
        list_price: 12,
        discount_percent: 15,
        final_unit_price: 10.2,
        currency: "EUR",
        unit: "bag",
        quantity_applied: 60,
        total: 612,
        confidence: "high",
        effective_through: null,
        warnings: [],
        source_doc_ids: [docs.list, docs.discount],
        source_titles: ["Mapei price list 2026", "Mapei dealer discount"],
      },
    );
    assert.ok(proposal.reasoning_chain.some((s) => s.includes("tier 50+") && s.includes(docs.list)));
    assert.ok(
      proposal.reasoning_chain.some((s) => s.includes("15%") && s.includes("All Mapei products 15% off")),
    );
    assert.ok(proposal.reasoning_chain.some((s) => s.includes("12.00 x (1 - 15/100)")));
    assert.equal(textOf(r.chunks), "Keraflex Maxi S1 grey costs 5.00 EUR per bag for you.");

    const [matches] = only(r.chunks, "price_lookup_matches");
    assert.ok(matches.matches.length >= 2);
    const used = matches.matches.filter((m) => m.used);
    assert.deepEqual(used.map((m) => m.doc_id).sort(), [docs.list, docs.discount].sort());
    assert.ok(used.every((m) => m.snippet.length > 0));
    assert.equal(matches.hints.match_method, "sku");
    assert.equal(matches.hints.rule_applied?.doc_id, docs.discount);

    // The model was offered price_lookup, and got the engine's proposal as the tool result.
    const [first, second] = model.captures.requests().map((c) => c.body as Record<string, unknown>);
    assert.ok((first.tools as { name: string }[]).some((tool) => tool.name === "price_lookup"));
    const toolResult = JSON.stringify((second.messages as { content: unknown }[]).at(-1));
    assert.ok(toolResult.includes('\\"final_unit_price\\":10.2'));

    // The audit row: the model's arguments as sent, match count, hints, timing.
    const log = await logRow(p, logId);
    assert.equal(log.tool_name, "price_lookup");
    assert.equal(log.workspace_id, t.ws);
    assert.equal(log.user_id, t.admin.id);
    assert.equal(log.zero_result, false);
    assert.equal(log.conversation_id, r.headers.get("x-conversation-id"));
    assert.deepEqual(log.tool_args, {
      product_name: "Keraflex Maxi S1 grey",
      sku: "MP-100",
      manufacturer: "Mapei",
      quantity: 60,
      unit: "bag",
      product_id: productId,
    });
    const summary = log.result_summary as Record<string, Json>;
    assert.equal(summary.match_count, matches.matches.length);
    assert.deepEqual(summary.hints, matches.hints);
    assert.equal(typeof summary.timing_ms.total, "number");
    assert.equal(summary.proposal.final_unit_price, 10.2);

    // Commit through /rest/v1, as the spec shows.
    const quote = await t.admin.client.from("quotes").insert({ workspace_id: t.ws, title: "Bathroom" })
      .select("id").single();
    assert.equal(quote.error, null);
    const item = await t.admin.client.from("quote_items")
      .insert({ quote_id: quote.data!.id, product_id: productId, quantity: 60, unit: "bag" }).select("id")
      .single();
    assert.equal(item.error, null);
    const commit = await t.admin.client.from("quote_items").update({
      unit_price: proposal.list_price,
      discounted_price: proposal.final_unit_price,
      price_source: `kb:ai:${logId}`,
      price_lookup_call_id: logId,
      notes: proposal.reasoning_chain.join("\n"),
    }).eq("id", item.data!.id).select();
    assert.equal(commit.status, 200, JSON.stringify(commit.error));
    assert.equal(commit.data![0].price_source, `kb:ai:${logId}`);

    // The audit join, as an admin reads it through /rest/v1.
    const committed = await t.admin.client.from("quote_items").select(
      "id, discounted_price, price_lookup_call_id",
    )
      .eq("id", item.data!.id).single();
    const audit = await t.admin.client.from("agent_tool_call_logs").select(
      "id, tool_name, tool_args, zero_result",
    )
      .eq("id", committed.data!.price_lookup_call_id).single();
    assert.equal(audit.data?.tool_name, "price_lookup");
    assert.equal(audit.data?.tool_args.sku, "MP-100");
    const joined = await p.db.query(
      `select q.discounted_price::text, l.tool_name from public.quote_items q
         join public.agent_tool_call_logs l on l.id = q.price_lookup_call_id where q.id = $1`,
      [item.data!.id],
    );
    assert.deepEqual(joined.rows, [{ discounted_price: "10.2000", tool_name: "price_lookup" }]);

    // The conversation was saved: the user's question and the model's answer with the proposal.
    const messages = await t.admin.client.from("agent_chat_messages").select("role, content, metadata")
      .eq("conversation_id", r.headers.get("x-conversation-id")).order("created_at");
    assert.deepEqual(messages.data!.map((m) => m.role), ["user", "assistant"]);
    assert.equal(messages.data![1].metadata.price_proposals[0].final_unit_price, 10.2);
    assert.deepEqual(messages.data![1].metadata.tool_calls, [{
      tool_name: "price_lookup",
      log_id: logId,
      is_error: false,
    }]);
  },
);

platformTest(
  "no reliable price: final_unit_price null, confidence low, warnings; a zero_result log",
  async (p) => {
    const { t } = await pricingSetup(p);
    llm(p).reply(
      { toolUse: [{ name: "price_lookup", input: { product_name: "Unobtainium marble slab" } }] },
      "I could not find a price for it.",
    );
    const r = await chat(p, t.admin.accessToken, askIn(t.ws, "How much is the unobtainium slab?"));
    const [proposal] = only(r.chunks, "price_proposal") as PriceProposal[];
    assert.equal(proposal.final_unit_price, null);
    assert.equal(proposal.list_price, null);
    assert.equal(proposal.total, null);
    assert.equal(proposal.confidence, "low");
    assert.ok(proposal.warnings.length > 0);
    const [matches] = only(r.chunks, "price_lookup_matches");
    assert.deepEqual(matches.matches, []);
    const logId = only(r.chunks, "tool_call_ids")[0].mapping[0].log_id;
    const log = await p.db.query<{ zero_result: boolean }>(
      `select zero_result from public.agent_tool_call_logs where id = $1`,
      [logId],
    );
    assert.equal(log.rows[0].zero_result, true);
    const stats = await t.owner.client.rpc("price_lookup_stats", { p_workspace_id: t.ws });
    assert.equal(stats.data.zero_result_count, 1);
    assert.equal(stats.data.commit_rate, 0);

    // A kb:ai commit must name a real lookup of this workspace, and agree with price_lookup_call_id.
    const quote = await t.admin.client.from("quotes").insert({ workspace_id: t.ws }).select("id").single();
    const item = await t.admin.client.from("quote_items").insert({
      quote_id: quote.data!.id,
      description: "Slab",
    })
      .select("id").single();
    const fake = crypto.randomUUID();
    const unknown = await t.admin.client.from("quote_items")
      .update({ price_source: `kb:ai:${fake}`, price_lookup_call_id: fake, unit_price: 1 }).eq(
        "id",
        item.data!.id,
      );
    assert.equal(unknown.error?.code, "23503");
    const mismatch = await t.admin.client.from("quote_items")
      .update({ price_source: `kb:ai:${fake}`, price_lookup_call_id: logId, unit_price: 1 }).eq(
        "id",
        item.data!.id,
      );
    assert.equal(mismatch.error?.code, "23514");
  },
);
