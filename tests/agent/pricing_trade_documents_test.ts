/**
 * Issue 32 over HTTP, the path an admin and the agent take: price documents as manufacturers and
 * distributors write them are ingested through ai-gateway kb_create_document, whose answer lists
 * every line not understood (`unparsed_lines`), and looked up through agent-chat's price_lookup
 * (a scripted model), where contract terms for one customer apply only when the lookup names it
 * and a line not understood is named in the warnings. The table-driven corpus is
 * tests/unit/pricing/corpus_test.ts (tests/fixtures/pricing_corpus/10_* onwards).
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import type { PriceProposal } from "../../packages/shared/pricing/mod.ts";
import { askIn, chat, createPricingCategory, createTeam, gatewayOk, llm, only } from "./helpers.ts";

const LIST = {
  title: "Listino Ceramiche Rossi 2026",
  price_doc_type: "price_list",
  content: `Manufacturer: Ceramiche Rossi S.p.A.
All prices in EUR per m2
| Code | Product | Price |
|---|---|---|
| CR-P60 | Pietra grey porcelain tiles 60x60 | 40,00 |
Dealers receive 3% on every order.
Freight: 45,00 € per pallet
`,
};
const RULES = {
  title: "Dealer and customer terms",
  price_doc_type: "contract_terms",
  content: `- Ceramiche Rossi S.p.A. all products: 10% + 5%
- Customer Bauhaus Weber GmbH: 20% on all Ceramiche Rossi products
`,
};

platformTest(
  "trade documents: ingest lists the lines not understood; customer terms apply to that customer only",
  async (p) => {
    const t = await createTeam(p);
    const cat = await createPricingCategory(p, t.admin.accessToken, t.ws);
    const ingest = (doc: typeof LIST) =>
      gatewayOk(p, t.admin.accessToken, "kb_create_document", {
        workspace_id: t.ws,
        category_id: cat,
        status: "published",
        ...doc,
      });
    const list = await ingest(LIST);
    assert.deepEqual(list.unparsed_lines, [
      {
        line: 6,
        text: "Dealers receive 3% on every order.",
        reason:
          "a percentage in a price list is not applied (put discounts in a discount_rule, contract_terms or promotion document)",
      },
      {
        line: 7,
        text: "Freight: 45,00 € per pallet",
        reason:
          "an order-level amount (freight, minimum order value, surcharge), not part of a unit price; not used in prices",
      },
    ]);
    assert.equal(list.warnings.length, 2);
    const rules = await ingest(RULES);
    assert.deepEqual(rules.unparsed_lines, []);

    const lookup = async (input: Record<string, unknown>) => {
      llm(p).reply({ toolUse: [{ name: "price_lookup", input }] }, "ok");
      const r = await chat(p, t.admin.accessToken, askIn(t.ws, "Price of CR-P60?"));
      assert.equal(r.status, 200, r.raw);
      return only(r.chunks, "price_proposal")[0] as PriceProposal;
    };
    // No customer: the cascade (10% + 5% = 14.5%) of the company's rule, not widened to all.
    const general = await lookup({ product_name: "Pietra grey", sku: "CR-P60", quantity: 10 });
    assert.equal(general.discount_percent, 14.5);
    assert.equal(general.final_unit_price, 34.2);
    assert.equal(general.total, 342);
    // The price list's "Dealers receive 3%" is not understood: the price is a candidate only.
    assert.equal(general.confidence, "low", "the discount sentence of the price list is not understood");
    assert.ok(general.reasoning_chain.some((s) => s.includes("Cascade 10% + 5% compounded")));
    assert.ok(general.warnings.some((w) => w.includes("line 6") && w.includes("Dealers receive 3%")));
    assert.ok(general.warnings.some((w) => w.includes("agreed for Bauhaus Weber GmbH only")));
    // For the customer: its contract.
    const forCustomer = await lookup({
      product_name: "Pietra grey",
      sku: "CR-P60",
      quantity: 10,
      customer: "Bauhaus Weber GmbH",
    });
    assert.equal(forCustomer.discount_percent, 20);
    assert.equal(forCustomer.final_unit_price, 32);
    const log = await p.db.query<{ tool_args: { customer?: string } }>(
      `select tool_args from public.agent_tool_call_logs where workspace_id = $1 and tool_name = 'price_lookup'
      order by created_at desc limit 1`,
      [t.ws],
    );
    assert.equal(log.rows[0].tool_args.customer, "Bauhaus Weber GmbH");
  },
);
