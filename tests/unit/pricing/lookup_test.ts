import assert from "node:assert/strict";
import { lookupPrice } from "../../../packages/shared/pricing/mod.ts";
import {
  KEOPE_LIST,
  type LookupCase,
  lookupCases,
  MAPEI_DISCOUNTS,
  MAPEI_LIST,
  MARAZZI_LIST,
  NAME_ONLY,
  PORCELANOSA_LIST,
  SHARED_SKU,
} from "./helpers.ts";

const cases: LookupCase[] = [
  // SKU vs name
  {
    name: "SKU match, tier 50+, manufacturer discount beats the all-products rule",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "Keraflex", sku: "MP-100", quantity: 60 },
    expect: {
      method: "sku",
      list: 12,
      discount: 15,
      final: 10.2,
      total: 612,
      quantity: 60,
      unit: "bag",
      currency: "EUR",
      confidence: "high",
      rule: "doc-mapei-disc",
      sources: ["doc-mapei", "doc-mapei-disc"],
    },
  },
  {
    name: "SKU comparison ignores case, spaces and dashes; 10.625 rounds to 10.63",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "x", sku: "mp 100", quantity: 10 },
    expect: { method: "sku", list: 12.5, final: 10.63, total: 106.3, confidence: "high" },
  },
  {
    name: "name match (no SKU) is medium",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "Keraflex Maxi S1 grey", quantity: 10 },
    expect: { method: "name", final: 10.63, confidence: "medium", codes: ["matched_by_name"] },
  },
  {
    name: "name match tolerates one typo in a long word",
    docs: [MAPEI_LIST],
    input: { product_name: "Keraflx Maxi S1 grey", quantity: 1 },
    expect: { method: "name", final: 12.5, confidence: "medium" },
  },
  {
    name: "two products scoring alike are ambiguous: no price, both named",
    docs: [MAPEI_LIST],
    input: { product_name: "Keraflex Maxi S1" },
    expect: {
      final: null,
      list: null,
      total: null,
      confidence: "low",
      codes: ["ambiguous_product"],
      warns: [/grey 25 kg/, /white 25 kg/],
    },
  },
  {
    name: "without a manufacturer the same name from two brands is ambiguous",
    docs: [PORCELANOSA_LIST, KEOPE_LIST],
    input: { product_name: "Marmol Carrara 60x60" },
    expect: { final: null, confidence: "low", codes: ["ambiguous_product"] },
  },
  {
    name: "the manufacturer narrows name candidates",
    docs: [PORCELANOSA_LIST, KEOPE_LIST],
    input: { product_name: "Marmol Carrara 60x60", manufacturer: "Keope" },
    expect: {
      method: "name",
      final: 39,
      confidence: "medium",
      sources: ["doc-keope"],
      codes: ["matched_by_name", "unit_not_stated"],
    },
  },
  {
    name: "a SKU listed only for another manufacturer is a gap",
    docs: [PORCELANOSA_LIST],
    input: { product_name: "x", sku: "PO-60", manufacturer: "Mapei" },
    expect: { final: null, confidence: "low", codes: ["manufacturer_mismatch"] },
  },
  {
    name: "one SKU used by two manufacturers is ambiguous",
    docs: [SHARED_SKU],
    input: { product_name: "Fix adhesive", sku: "100" },
    expect: { final: null, confidence: "low", codes: ["ambiguous_product"] },
  },
  {
    name: "one SKU used by two manufacturers: the manufacturer picks one",
    docs: [SHARED_SKU],
    input: { product_name: "Fix adhesive", sku: "100", manufacturer: "KERAKOLL S.p.A." },
    expect: { method: "sku", final: 6, discount: 0, confidence: "high" },
  },
  {
    name: "unknown SKU whose name matches another article is a gap",
    docs: [MAPEI_LIST],
    input: { product_name: "Keraflex Maxi S1 grey 25 kg", sku: "MP-999" },
    expect: { final: null, confidence: "low", codes: ["sku_not_found", "sku_mismatch"] },
  },
  {
    name: "unknown SKU, name matches an entry without SKU; unknown manufacturer leaves only the general rule",
    docs: [NAME_ONLY, MAPEI_DISCOUNTS],
    input: { product_name: "Fugenbreit grout", sku: "FG-1", quantity: 2 },
    expect: {
      method: "name",
      list: 7.2,
      discount: 5,
      final: 6.84,
      total: 13.68,
      // A Mapei rule could not be checked: the general rule's price is only a candidate.
      confidence: "low",
      codes: ["sku_not_found", "matched_by_name", "manufacturer_unknown"],
      warns: [/manufacturer-specific rule\(s\) could not be checked - check before quoting/],
    },
  },
  {
    name: "nothing matches: no base price",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "Garden hose reel", quantity: 3 },
    expect: {
      method: "none",
      list: null,
      discount: null,
      final: null,
      total: null,
      quantity: null,
      confidence: "low",
      codes: ["no_base_price"],
      sources: [],
    },
  },
  // tiers and minimum order
  {
    name: "tier boundary: 49 is still 1-49",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "x", sku: "MP-100", quantity: 49 },
    expect: { list: 12.5, final: 10.63, total: 520.87 },
  },
  {
    name: "tier boundary: 50 starts 50+",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "x", sku: "MP-100", quantity: 50 },
    expect: { list: 12, final: 10.2, total: 510 },
  },
  {
    name: "tier ≥200 at 200; 9.775 rounds to 9.78",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "x", sku: "MP-100", quantity: 200 },
    expect: { list: 11.5, final: 9.78, total: 1956 },
  },
  {
    name: "a decimal quantity between tiers takes the lower tier; total 526.185 -> 526.19",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "x", sku: "MP-100", quantity: 49.5 },
    expect: { list: 12.5, total: 526.19 },
  },
  {
    name: "no quantity on a tiered price: first tier, caveat",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "x", sku: "MP-100" },
    expect: {
      list: 12.5,
      final: 10.63,
      total: null,
      quantity: null,
      confidence: "medium",
      codes: ["quantity_missing"],
    },
  },
  {
    name: "below an explicit minimum order is a gap",
    docs: [PORCELANOSA_LIST],
    input: { product_name: "x", sku: "PO-60", quantity: 19, unit: "m2" },
    expect: { final: null, confidence: "low", codes: ["below_minimum_order"] },
  },
  {
    name: "exactly the minimum order is fine",
    docs: [PORCELANOSA_LIST],
    input: { product_name: "x", sku: "PO-60", quantity: 20, unit: "m2" },
    expect: { final: 45.9, total: 918, confidence: "high", through: null },
  },
  {
    name: "below a first tier starting at 10 is below the minimum order",
    docs: [MARAZZI_LIST],
    input: { product_name: "x", sku: "MZ-1", quantity: 5 },
    expect: { final: null, confidence: "low", codes: ["below_minimum_order"] },
  },
  {
    name: "below a first tier starting at 1 uses that tier",
    docs: [MARAZZI_LIST],
    input: { product_name: "x", sku: "MZ-2", quantity: 0.5 },
    expect: { final: 39.9, total: 19.95, confidence: "high", codes: ["below_first_tier"] },
  },
  {
    name: "above the last tier's upper bound: that tier with a caveat",
    docs: [MAPEI_LIST],
    input: { product_name: "x", sku: "MP-200", quantity: 60 },
    expect: { list: 9.8, final: 9.8, confidence: "medium", codes: ["quantity_above_tiers"] },
  },
];

lookupCases(cases);

Deno.test("lookup: the clock is injected; a malformed today is a programming error", () => {
  assert.throws(() => lookupPrice({ product_name: "x", today: "15.03.2026" }, []), RangeError);
  assert.throws(() => lookupPrice({ product_name: "x", today: "2026-02-30" }, []), RangeError);
});
