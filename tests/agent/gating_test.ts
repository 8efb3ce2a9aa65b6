/**
 * Every way a caller without owner/admin rights in the workspace tries to reach prices through
 * agent-chat, and tenancy: another workspace's Pricing documents never take part in a lookup.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { sqlAs, sqlState } from "../helpers/sql.ts";
import type { Platform } from "../../stack/platform.ts";
import type { PriceProposal } from "../../packages/shared/pricing/mod.ts";
import {
  askIn,
  chat,
  createPricingCategory,
  createTeam,
  gatewayOk,
  ingest,
  type Json,
  kinds,
  llm,
  MAPEI_DISCOUNT,
  MAPEI_LIST,
  only,
  textOf,
} from "./helpers.ts";

const FORCED = { toolUse: [{ name: "price_lookup", input: { product_name: "Keraflex", sku: "MP-100" } }] };

async function setup(p: Platform) {
  const t = await createTeam(p);
  const cat = await createPricingCategory(p, t.owner.accessToken, t.ws);
  const list = await ingest(p, t.owner.accessToken, t.ws, cat, MAPEI_LIST);
  const discount = await ingest(p, t.owner.accessToken, t.ws, cat, MAPEI_DISCOUNT);
  return { t, list, discount };
}

async function logCount(p: Platform, ws: string): Promise<number> {
  const r = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.agent_tool_call_logs where workspace_id = $1`,
    [ws],
  );
  return r.rows[0].n;
}

platformTest(
  "members and viewers are never offered price_lookup, and a forced call is refused",
  async (p) => {
    const { t } = await setup(p);
    for (const who of [t.member, t.viewer]) {
      const model = llm(p);
      model.reply(FORCED, "Prices are for workspace owners and admins.");
      const r = await chat(p, who.accessToken, askIn(t.ws, "What does MP-100 cost?"));
      assert.equal(r.status, 200, r.raw);
      assert.deepEqual(kinds(r.chunks), ["status", "text", "done"]);
      const progress = only(r.chunks, "tool_progress");
      assert.deepEqual(progress.map((c) => c.status), ["Refused: price_lookup is not available"]);
      assert.equal(textOf(r.chunks), "Prices are for workspace owners and admins.");

      const [first, second] = model.captures.requests().map((c) => c.body as Record<string, Json>);
      const offered = (first.tools as { name: string }[]).map((tool) => tool.name);
      assert.deepEqual(offered, ["product_search", "knowledge_base_search"]);
      const result = second.messages.at(-1).content[0];
      assert.equal(result.type, "tool_result");
      assert.equal(result.is_error, true);
      assert.match(result.content, /not available/);
      assert.ok(!JSON.stringify(second).includes("12,50"), "no price text reached the model");
    }
    assert.equal(await logCount(p, t.ws), 0, "a refused call writes no audit row");

    // The SQL gate holds on its own: no log row, no entries, no index for a member.
    const logAttempt = await t.member.client.rpc("log_agent_tool_call", {
      p_workspace_id: t.ws,
      p_tool_name: "price_lookup",
      p_tool_args: {},
      p_result_summary: {},
      p_zero_result: false,
    });
    assert.equal(logAttempt.status, 403);
    const state = await t.member.client.rpc("price_index_state", {
      p_workspace_id: t.ws,
      p_parser_version: "x",
    });
    assert.equal(state.status, 403);
    assert.deepEqual((await t.member.client.from("price_entries").select("id")).data, []);
    assert.deepEqual((await t.member.client.from("agent_tool_call_logs").select("id")).data, []);
    // Nobody writes audit rows directly, not even the owner.
    const direct = await t.owner.client.from("agent_tool_call_logs")
      .insert({ workspace_id: t.ws, tool_name: "price_lookup" });
    assert.notEqual(direct.error, null);
    assert.equal(
      await sqlState(() =>
        sqlAs(
          p,
          { role: "authenticated", userId: t.owner.id },
          `update public.agent_tool_call_logs set zero_result = true`,
        )
      ),
      "42501",
    );
  },
);

platformTest("the owner and admins are offered price_lookup; both may run it", async (p) => {
  const { t } = await setup(p);
  for (const who of [t.owner, t.admin]) {
    const model = llm(p);
    model.reply(FORCED, "Here it is.");
    const r = await chat(p, who.accessToken, askIn(t.ws, "MP-100?"));
    const offered = ((model.captures.requests()[0].body as Record<string, Json>).tools as { name: string }[])
      .map((tool) => tool.name);
    assert.deepEqual(offered, ["product_search", "knowledge_base_search", "price_lookup"]);
    assert.equal((only(r.chunks, "price_proposal") as PriceProposal[])[0].final_unit_price, 10.63);
  }
  assert.equal(await logCount(p, t.ws), 2);
});

platformTest("another workspace's Pricing documents never appear in a lookup", async (p) => {
  const { t, list, discount } = await setup(p);
  // The outsider owns another workspace with its own list for the same SKU at another price.
  const otherCat = await createPricingCategory(p, t.outsider.accessToken, t.otherWs);
  const otherList = await ingest(p, t.outsider.accessToken, t.otherWs, otherCat, {
    title: "Mapei price list 2026",
    price_doc_type: "price_list",
    content: "| SKU | Product | Manufacturer | Unit | Price |\n|---|---|---|---|---|\n" +
      "| MP-100 | Keraflex Maxi S1 grey 25 kg | Mapei | bag | 99,00 € |",
  });

  llm(p).reply(FORCED, "ok");
  const mine = await chat(p, t.admin.accessToken, askIn(t.ws, "MP-100?"));
  const [proposal] = only(mine.chunks, "price_proposal") as PriceProposal[];
  assert.deepEqual(proposal.source_doc_ids, [list, discount]);
  assert.equal(proposal.final_unit_price, 10.63);
  const [matches] = only(mine.chunks, "price_lookup_matches");
  assert.ok(matches.matches.every((m) => m.doc_id !== otherList));

  llm(p).reply(FORCED, "ok");
  const theirs = await chat(p, t.outsider.accessToken, askIn(t.otherWs, "MP-100?"));
  const [other] = only(theirs.chunks, "price_proposal") as PriceProposal[];
  assert.deepEqual(other.source_doc_ids, [otherList]);
  assert.equal(other.final_unit_price, 99);

  // Pointing the chat at a workspace one does not belong to is refused before anything runs.
  const model = llm(p);
  const foreign = await chat(
    p,
    t.admin.accessToken,
    askIn(t.otherWs, "MP-100?"),
  );
  assert.equal(foreign.status, 403);
  assert.equal(model.captures.requests().length, 0);
  // And the SQL functions refuse a foreign workspace too.
  const entries = await t.admin.client.rpc("price_index_entries", {
    p_workspace_id: t.otherWs,
    p_parser_version: "x",
  });
  assert.equal(entries.status, 403);
  const rows = await t.admin.client.from("price_entries").select("workspace_id");
  assert.ok(rows.data!.length > 0 && rows.data!.every((r) => r.workspace_id === t.ws));
});

platformTest("knowledge_base_search never returns Pricing documents, not even to the owner", async (p) => {
  const { t, list, discount } = await setup(p);
  const guides = await gatewayOk(p, t.owner.accessToken, "kb_create_category", {
    workspace_id: t.ws,
    name: "Guides",
    slug: "guides",
    access_level: "member",
  });
  const guide = await ingest(p, t.member.accessToken, t.ws, guides.id, {
    title: "Keraflex installation guide",
    content: "# Keraflex Maxi S1\nMix MP-100 Keraflex grey adhesive with 7 litres of water per 25 kg bag.",
  });
  for (const who of [t.owner, t.member]) {
    const model = llm(p);
    model.reply({
      toolUse: [{ name: "knowledge_base_search", input: { query: "Keraflex MP-100 price bag" } }],
    }, "ok");
    const r = await chat(p, who.accessToken, askIn(t.ws, "How do I use Keraflex, and what does it cost?"));
    assert.equal(r.status, 200, r.raw);
    assert.equal(only(r.chunks, "tool_call_ids")[0].mapping[0].tool_name, "knowledge_base_search");
    const second = model.captures.requests()[1].body as Record<string, Json>;
    const result = JSON.parse(second.messages.at(-1).content[0].content);
    const ids = result.passages.map((x: { doc_id: string }) => x.doc_id);
    assert.ok(ids.includes(guide), JSON.stringify(result));
    assert.ok(!ids.includes(list) && !ids.includes(discount));
    assert.ok(!second.messages.at(-1).content[0].content.includes("12,50"));
  }
});
