// Request validation of the quotes APIs: what is a 400 before anything reaches the database.
import assert from "node:assert/strict";
import {
  AnswerProposalBody,
  CreateQuoteRequestBody,
  GeneratePdfBody,
  ListQuery,
  PRICE_SOURCE_PATTERN,
  UpdateQuoteItemBody,
  UpdateQuoteRequestBody,
} from "@shared/quotes/mod.ts";

const ID = "3f2b8c1e-9a7d-4e6f-8b5a-1c2d3e4f5a6b";
const ok = (s: { safeParse(v: unknown): { success: boolean } }, v: unknown) => s.safeParse(v).success;

Deno.test("quote request statuses: pending, updated, approved, rejected only", () => {
  for (const status of ["pending", "updated", "approved", "rejected"]) {
    assert.ok(ok(UpdateQuoteRequestBody, { status }));
  }
  for (const status of ["accepted", "PENDING", "", null, 1]) {
    assert.ok(!ok(UpdateQuoteRequestBody, { status }), String(status));
  }
  assert.ok(!ok(UpdateQuoteRequestBody, {}));
});

Deno.test("proposal answers: accepted or rejected only", () => {
  for (const status of ["accepted", "rejected"]) assert.ok(ok(AnswerProposalBody, { status }));
  for (const status of ["pending", "approved", "Accepted", undefined]) {
    assert.ok(!ok(AnswerProposalBody, { status }));
  }
});

Deno.test("create quote request: uuids required, notes optional", () => {
  const cases: [unknown, boolean][] = [
    [{ quote_id: ID, workspace_id: ID }, true],
    [{ quote_id: ID, workspace_id: ID, notes: "please hurry" }, true],
    [{ quote_id: ID, workspace_id: ID, notes: null }, true],
    [{ quote_id: "not-a-uuid", workspace_id: ID }, false],
    [{ quote_id: ID }, false],
    [{ workspace_id: ID }, false],
    [{ quote_id: ID, workspace_id: ID, notes: 5 }, false],
    [{ quote_id: ID, workspace_id: ID, notes: "x".repeat(10_001) }, false],
  ];
  for (const [v, want] of cases) assert.equal(ok(CreateQuoteRequestBody, v), want, JSON.stringify(v));
});

Deno.test("price_source: manual, catalog, or kb:ai:/kb:quick:/product_price: with an id", () => {
  const cases: [string, boolean][] = [
    ["manual", true],
    ["catalog", true],
    [`kb:ai:${ID}`, true],
    [`kb:quick:${ID}`, true],
    [`product_price:${ID}`, true],
    [`KB:AI:${ID.toUpperCase()}`, true],
    ["kb:ai:", false],
    ["kb:ai:123", false],
    ["kb:other:" + ID, false],
    ["Manual ", false],
    [`manual,${ID}`, false],
  ];
  for (const [v, want] of cases) assert.equal(PRICE_SOURCE_PATTERN.test(v), want, v);
});

Deno.test("quote item update: prices numeric(14,4), quantity positive, something to update", () => {
  const cases: [unknown, boolean][] = [
    [{ unit_price: 12.5, discounted_price: 11.25, price_source: "manual", notes: "agreed" }, true],
    [{ price_lookup_call_id: ID, price_source: `kb:ai:${ID}` }, true],
    [{ unit_price: null }, true],
    [{ unit_price: 0.0001 }, true],
    [{ unit_price: 0.00001 }, false],
    [{ unit_price: -1 }, false],
    [{ unit_price: "12" }, false],
    [{ unit_price: 1e10 }, false],
    [{ quantity: 0 }, false],
    [{ quantity: 2.5 }, true],
    [{ price_lookup_call_id: "abc" }, false],
    [{ price_source: "kb:ai:abc" }, false],
    [{}, false],
  ];
  for (const [v, want] of cases) assert.equal(ok(UpdateQuoteItemBody, v), want, JSON.stringify(v));
});

Deno.test("generate-quote-pdf body and list query", () => {
  assert.ok(ok(GeneratePdfBody, { quote_id: ID }));
  assert.ok(ok(GeneratePdfBody, { quote_id: ID, regenerate: true }));
  assert.ok(!ok(GeneratePdfBody, { quote_id: ID, regenerate: "yes" }));
  assert.ok(!ok(GeneratePdfBody, {}));
  assert.deepEqual(ListQuery.parse({}), { limit: 1000, offset: 0 });
  assert.ok(!ok(ListQuery, { limit: "1001" }));
  assert.ok(!ok(ListQuery, { offset: "-1" }));
});
