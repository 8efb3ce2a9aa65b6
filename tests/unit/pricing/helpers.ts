/** Pricing documents shared by the pricing unit tests (a small workspace's Pricing category). */
import assert from "node:assert/strict";
import {
  type Confidence,
  lookupPrice,
  type ParsedPriceDocument,
  parsePriceDocuments,
  type PriceDocType,
  type PriceDocumentInput,
  type PriceLookupInput,
} from "../../../packages/shared/pricing/mod.ts";

export function doc(
  id: string,
  price_doc_type: PriceDocType,
  title: string,
  content: string,
): PriceDocumentInput {
  return { id, title, price_doc_type, content };
}

export const MAPEI_LIST = doc(
  "doc-mapei",
  "price_list",
  "Mapei price list 2026",
  `# Mapei price list 2026
Manufacturer: Mapei
All prices in EUR, valid from 2026-01-01

| Art. No. | Description | Unit | 1-49 | 50+ | ≥200 |
|---|---|---|---|---|---|
| MP-100 | Keraflex Maxi S1 grey 25 kg | bag | 12,50 | 12,00 | 11,50 |
| MP-101 | Keraflex Maxi S1 white 25 kg | bag | 13,50 | 13,00 | 12,50 |
| MP-200 | Ultracolor Plus grout 5 kg | bag | 9,80 | - | - |
| MP-300 | Mapelastic waterproofing 32 kg | kit | 1.234,56 € | | |
`,
);

export const PORCELANOSA_LIST = doc(
  "doc-porc",
  "price_list",
  "Porcelanosa tiles",
  `| Item no | Product | Brand | Price (€/m²) | Min order |
|:--|--|--|--:|--|
| PO-60 | Marmol Carrara 60x60 | Porcelanosa | €45.90 | 20 |
| PO-120 | Marmol Carrara 120x120 | Porcelanosa | €89.00 | |
`,
);

export const MARAZZI_LIST = doc(
  "doc-marazzi",
  "price_list",
  "Marazzi list",
  `Brand: Marazzi
Prices in EUR

| Code | Name | UoM | Qty from | Unit price |
|---|---|---|---|---|
| MZ-1 | Grande Marble Look tiles 120x240 | sqm | 10 | 64,00 |
| MZ-1 | Grande Marble Look tiles 120x240 | sqm | 100 | 58,50 |
| MZ-2 | Treverk wood tiles 20x120 | m² | 1 | 39,90 |
`,
);

export const MAPEI_DISCOUNTS = doc(
  "doc-mapei-disc",
  "discount_rule",
  "Mapei dealer discounts",
  `# Dealer discounts
- All Mapei products 15% off
- 5% on all products`,
);

export const SKU_RULE = doc(
  "doc-sku-rule",
  "discount_rule",
  "Special article discount",
  "- 8% discount on SKU MP-200",
);

export const PORCELANOSA_CONTRACT = doc(
  "doc-porc-contract",
  "contract_terms",
  "Porcelanosa contract 2026",
  "Negotiated discount with Porcelanosa: 12% on orders above 100 m2",
);

export const SPRING_PROMO = doc(
  "doc-spring",
  "promotion",
  "Spring promo",
  "Spring promo 10% off Marazzi tiles, valid 2026-03-01 to 2026-04-30",
);

export const MP100_PROMO = doc(
  "doc-mp100-promo",
  "promotion",
  "Keraflex action",
  "- Promo price for SKU MP-100: 9,90 €/bag instead of 12,50 €, from 1 March 2026 until 30 April 2026",
);

export const WORKSPACE_DOCS: PriceDocumentInput[] = [
  MAPEI_LIST,
  PORCELANOSA_LIST,
  MARAZZI_LIST,
  MAPEI_DISCOUNTS,
  PORCELANOSA_CONTRACT,
  SPRING_PROMO,
];

export function parsed(...docs: PriceDocumentInput[]): ParsedPriceDocument[] {
  return parsePriceDocuments(docs);
}

/** The warning codes of a lookup, for asserting which rules fired. */
export function codes(findings: ReadonlyArray<{ code: string }>): string[] {
  return findings.map((f) => f.code);
}

export const KEOPE_LIST = doc(
  "doc-keope",
  "price_list",
  "Keope list",
  "| SKU | Product | Manufacturer | Price |\n|---|---|---|---|\n| K-1 | Marmol Carrara 60x60 | Keope | 39,00 € |",
);
export const SHARED_SKU = doc(
  "doc-shared",
  "price_list",
  "Shared codes",
  "| SKU | Product | Manufacturer | Unit | Price |\n|---|---|---|---|---|\n| 100 | Fix adhesive | Mapei | bag | 5,00 € |\n| 100 | Fix adhesive | Kerakoll | bag | 6,00 € |",
);
export const NAME_ONLY = doc(
  "doc-nameonly",
  "price_list",
  "Grout sheet",
  "| Product | Price | Unit |\n|---|---|---|\n| Fugenbreit grout 5 kg | 7,20 € | bag |",
);
export const x1 = (id: string, price: string, header = "") =>
  doc(
    id,
    "price_list",
    `List ${id}`,
    `${header}\n\n| SKU | Product | Unit | Price |\n|---|---|---|---|\n| X-1 | Widget | piece | ${price} |`,
  );

export interface Expect {
  method?: "sku" | "name" | "none";
  list?: number | null;
  discount?: number | null;
  final?: number | null;
  total?: number | null;
  quantity?: number | null;
  unit?: string | null;
  currency?: string;
  confidence?: Confidence;
  rule?: string | null;
  codes?: string[];
  absent?: string[];
  sources?: string[];
  through?: string | null;
  warns?: RegExp[];
}

export interface LookupCase {
  name: string;
  docs: PriceDocumentInput[];
  input: Omit<PriceLookupInput, "today"> & { today?: string };
  expect: Expect;
}

/** Registers one Deno test per lookup case; see Expect for what each may assert. */
export function lookupCases(cases: LookupCase[]): void {
  for (const c of cases) {
    Deno.test(`lookup: ${c.name}`, () => {
      const { proposal: p, hints } = lookupPrice({ today: "2026-03-15", ...c.input }, parsed(...c.docs));
      const e = c.expect;
      const ctx = JSON.stringify({ p, warnings: hints.warnings }, null, 1);
      const eq = (got: unknown, want: unknown, what: string) =>
        want !== undefined && assert.deepEqual(got, want, `${what}\n${ctx}`);
      eq(hints.match_method, e.method, "match_method");
      eq(p.list_price, e.list, "list_price");
      eq(p.discount_percent, e.discount, "discount_percent");
      eq(p.final_unit_price, e.final, "final_unit_price");
      eq(p.total, e.total, "total");
      eq(p.quantity_applied, e.quantity, "quantity_applied");
      eq(p.unit, e.unit, "unit");
      eq(p.currency, e.currency, "currency");
      eq(p.confidence, e.confidence, "confidence");
      eq(hints.rule_applied?.doc_id ?? null, e.rule, "rule_applied");
      eq(p.source_doc_ids, e.sources, "source_doc_ids");
      eq(p.effective_through, e.through, "effective_through");
      for (const code of e.codes ?? []) {
        assert.ok(codes(hints.warnings).includes(code), `expected ${code}\n${ctx}`);
      }
      for (const re of e.warns ?? []) {
        assert.ok(p.warnings.some((w) => re.test(w)), `expected a warning ${re}\n${ctx}`);
      }
      // The spec's invariant: no reliable price <=> final null <=> low, and a gap leaves no number.
      // A price stated at low confidence is a candidate only: a doubt (an unconfirmed scope) says so.
      if (p.final_unit_price === null) {
        assert.equal(p.confidence, "low");
        assert.deepEqual([p.list_price, p.discount_percent, p.total, p.quantity_applied], [
          null,
          null,
          null,
          null,
        ]);
        assert.ok(hints.warnings.some((w) => w.severity === "gap") && p.warnings.length > 0);
      } else {
        assert.equal(p.confidence === "low", hints.warnings.some((w) => w.severity === "doubt"), ctx);
        assert.ok(!hints.warnings.some((w) => w.severity === "gap"));
      }
    });
  }
}
