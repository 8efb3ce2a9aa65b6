/**
 * Quote lines and totals: the SQL rounding rule, the price commit through quotes-api and through
 * /rest/v1 (the spec's direct PATCH), and the workspace rules on lines.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, MISSING_ID, seedQuote } from "./helpers.ts";

const FN = "quotes-api";
const KB_DOC_ID = "5b1f6a0e-4c3d-4e2f-9a8b-7c6d5e4f3a2b";

/** An AI-mode price lookup's audit row (what agent-chat writes), in `workspaceId`. */
async function lookupLog(p: Platform, workspaceId: string, userId: string): Promise<string> {
  const r = await p.db.query<{ id: string }>(
    `insert into public.agent_tool_call_logs (workspace_id, user_id, tool_name) values ($1, $2, 'price_lookup')
     returning id`,
    [workspaceId, userId],
  );
  return r.rows[0].id;
}

async function setup(p: Platform) {
  const owner = await createUser(p, "qi-owner");
  const member = await createUser(p, "qi-member");
  const viewer = await createUser(p, "qi-viewer");
  const outsider = await createUser(p, "qi-out");
  const ws = await createWorkspace(p, owner.id, { [member.id]: "member", [viewer.id]: "viewer" }, "Items");
  const otherWs = await createWorkspace(p, outsider.id, {}, "Other");
  const product = await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name) values ($1, 'Porcelain tile 60x60') returning id`,
    [ws],
  );
  const quote = await seedQuote(p, ws, owner.id, [
    { description: "Mosaic", quantity: 3, unit_price: 0.335 },
    { description: "Grout", quantity: 1.5, unit: "kg", unit_price: 10.1, discounted_price: 9.99 },
    { description: "Not priced yet", quantity: 2 },
    { product_id: product.rows[0].id, quantity: 1, discounted_price: 5 },
  ]);
  return { owner, member, viewer, outsider, ws, otherWs, productId: product.rows[0].id, quote };
}

platformTest(
  "totals: each line rounded half-up to 2 decimals, then summed; unpriced lines counted",
  async (p) => {
    const s = await setup(p);
    const r = await call(p, FN, `/quotes/${s.quote.id}`, { token: s.viewer.accessToken });
    assert.equal(r.status, 200);
    const doc = r.body.data as {
      quote: { quote_number: string; currency: string };
      items: { label: string; list_total: number | null; line_total: number | null }[];
      totals: Record<string, unknown>;
      fingerprint: string;
    };
    assert.equal(doc.quote.quote_number, s.quote.quote_number);
    assert.deepEqual(doc.items.map((i) => [i.label, i.list_total, i.line_total]), [
      ["Mosaic", 1.01, 1.01], // 3 x 0.335 = 1.005 -> 1.01
      ["Grout", 15.15, 14.99], // 1.5 x 9.99 = 14.985 -> 14.99
      ["Not priced yet", null, null],
      ["Porcelain tile 60x60", 5, 5], // the product's name when the line has no description
    ]);
    assert.deepEqual(doc.totals, {
      item_count: 4,
      unpriced_item_count: 1,
      subtotal: 21.16,
      discount_total: 0.16,
      total: 21,
      currency: "EUR",
    });
    assert.match(doc.fingerprint, /^[0-9a-f]{32}$/);
    // The same figures through /rest/v1, for frontends reading the view directly.
    const view = await s.member.client.from("quote_totals").select("subtotal, discount_total, total")
      .eq("quote_id", s.quote.id).single();
    assert.deepEqual(view.data, { subtotal: 21.16, discount_total: 0.16, total: 21 });

    assert.equal((await call(p, FN, `/quotes/${s.quote.id}`, { token: s.outsider.accessToken })).status, 404);
    assert.equal((await call(p, FN, `/quotes/${MISSING_ID}`, { token: s.owner.accessToken })).status, 404);
    assert.equal((await call(p, FN, `/quotes/nope`, { token: s.owner.accessToken })).status, 400);
  },
);

platformTest(
  "PATCH /quote-items/{id}: manual pricing by members, commits by owners and admins",
  async (p) => {
    const s = await setup(p);
    const item = s.quote.items[2];
    const LOG_ID = await lookupLog(p, s.ws, s.owner.id);
    const patch = (token: string, body: unknown, id = item) =>
      call(p, FN, `/quote-items/${id}`, { method: "PATCH", token, body });

    const manual = await patch(s.member.accessToken, {
      unit_price: 12.5,
      price_source: "manual",
      notes: "as agreed",
    });
    assert.equal(manual.status, 200);
    assert.equal((manual.body.data as { unit_price: number }).unit_price, 12.5);

    const memberCommit = await patch(s.member.accessToken, {
      unit_price: 20,
      discounted_price: 18,
      price_source: `kb:ai:${LOG_ID}`,
      price_lookup_call_id: LOG_ID,
    });
    assert.equal(memberCommit.status, 403, "committing a looked-up price is for owners and admins");

    const commit = await patch(s.owner.accessToken, {
      unit_price: 20,
      discounted_price: 18,
      price_source: `kb:ai:${LOG_ID}`,
      price_lookup_call_id: LOG_ID,
      notes: "from price list 2026",
    });
    assert.equal(commit.status, 200);
    assert.deepEqual(
      (({ unit_price, discounted_price, price_source, price_lookup_call_id, notes }) => ({
        unit_price,
        discounted_price,
        price_source,
        price_lookup_call_id,
        notes,
      }))(commit.body.data as Record<string, unknown>),
      {
        unit_price: 20,
        discounted_price: 18,
        price_source: `kb:ai:${LOG_ID}`,
        price_lookup_call_id: LOG_ID,
        notes: "from price list 2026",
      },
    );
    // The audit id must be a lookup of this workspace (the agent_tool_call_logs key).
    const foreignLog = await lookupLog(p, s.otherWs, s.outsider.id);
    const foreign = await patch(s.owner.accessToken, {
      price_source: `kb:ai:${foreignLog}`,
      price_lookup_call_id: foreignLog,
    });
    assert.equal(foreign.status, 409);
    // A member may still edit the committed line's quantity.
    assert.equal((await patch(s.member.accessToken, { quantity: 4 })).status, 200);

    assert.equal((await patch(s.viewer.accessToken, { notes: "x" })).status, 403, "viewers only read");
    assert.equal((await patch(s.outsider.accessToken, { notes: "x" })).status, 404);
    assert.equal((await patch(s.owner.accessToken, { notes: "x" }, MISSING_ID)).status, 404);
    assert.equal((await patch(s.owner.accessToken, { notes: "x" }, "bad")).status, 400);
    for (
      const body of [{}, { price_source: "kb:ai:123" }, { unit_price: -1 }, { unit_price: "12" }, {
        quantity: 0,
      }, {
        price_lookup_call_id: "abc",
      }]
    ) {
      assert.equal((await patch(s.owner.accessToken, body)).status, 400, JSON.stringify(body));
    }
    assert.equal((await patch("", { notes: "x" })).status, 401);
    const row = await p.db.query(
      `select quantity::text, unit_price::text, price_source, price_lookup_call_id from public.quote_items where id = $1`,
      [item],
    );
    assert.deepEqual(row.rows, [{
      quantity: "4.0000",
      unit_price: "20.0000",
      price_source: `kb:ai:${LOG_ID}`,
      price_lookup_call_id: LOG_ID,
    }]);
  },
);

platformTest("PATCH /rest/v1/quote_items (the spec's direct commit) obeys the same rules", async (p) => {
  const s = await setup(p);
  const item = s.quote.items[0];
  const commit = {
    unit_price: 1,
    discounted_price: 0.9,
    price_source: `kb:quick:${KB_DOC_ID}`,
    notes: "quick pick",
  };
  const byMember = await s.member.client.from("quote_items").update(commit).eq("id", item).select();
  assert.equal(byMember.status, 403);
  const byOwner = await s.owner.client.from("quote_items").update(commit).eq("id", item).select().single();
  assert.equal(byOwner.error, null);
  assert.equal(byOwner.data.price_source, `kb:quick:${KB_DOC_ID}`);
  const badSource = await s.owner.client.from("quote_items").update({ price_source: "guess" }).eq("id", item);
  assert.equal(badSource.status, 400, "price_source check constraint");
  const byOutsider = await s.outsider.client.from("quote_items").update({ notes: "x" }).eq("id", item)
    .select();
  assert.deepEqual(byOutsider.data, [], "invisible to outsiders");
});

platformTest(
  "lines belong to their quote's workspace: no foreign products, no forged workspace",
  async (p) => {
    const s = await setup(p);
    const foreignProduct = await p.db.query<{ id: string }>(
      `insert into public.products (workspace_id, name) values ($1, 'Foreign') returning id`,
      [s.otherWs],
    );
    const bad = await s.member.client.from("quote_items")
      .insert({ quote_id: s.quote.id, product_id: foreignProduct.rows[0].id, quantity: 1 }).select();
    assert.equal(bad.status, 409, "a product of another workspace is not a valid reference");
    const good = await s.member.client.from("quote_items")
      .insert({ quote_id: s.quote.id, description: "Adhesive", quantity: 1, unit_price: 7 }).select()
      .single();
    assert.equal(good.error, null);
    assert.equal(good.data.workspace_id, s.ws, "the workspace comes from the quote");
    const forged = await s.member.client.from("quote_items")
      .insert({ quote_id: s.quote.id, workspace_id: s.otherWs, description: "x" });
    assert.ok(forged.error, "workspace_id is not a client column");
    const outsider = await s.outsider.client.from("quote_items").insert({
      quote_id: s.quote.id,
      description: "x",
    });
    assert.ok(outsider.error, "outsiders cannot add lines");
    const viewer = await s.viewer.client.from("quote_items").insert({
      quote_id: s.quote.id,
      description: "x",
    });
    assert.equal(viewer.status, 403);
    const noLabel = await s.member.client.from("quote_items").insert({ quote_id: s.quote.id, quantity: 1 });
    assert.equal(noLabel.status, 400, "a line needs a description or a product");
  },
);
