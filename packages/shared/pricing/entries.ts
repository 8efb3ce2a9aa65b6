/**
 * Structured price entries: what a Pricing KB document is parsed into at ingest.
 *
 * Every entry is a plain JSON-serialisable object (strings, numbers, booleans, null, arrays) so it
 * can be stored as jsonb next to its kb_docs row and read back unchanged. Decimal values are
 * canonical decimal strings (see ../money.ts), dates are ISO `YYYY-MM-DD`, units and currencies are
 * normalised (see normalize.ts). Each entry carries the document id, title, type, 1-based line and
 * the exact source text it came from, so any number built from it can quote its origin.
 */

export const PRICE_DOC_TYPES = ["price_list", "discount_rule", "contract_terms", "promotion"] as const;
export type PriceDocType = typeof PRICE_DOC_TYPES[number];

export function isPriceDocType(v: unknown): v is PriceDocType {
  return typeof v === "string" && (PRICE_DOC_TYPES as readonly string[]).includes(v);
}

/** A canonical decimal string, e.g. "12.5" (at most four decimals). */
export type DecimalString = string;
/** An ISO calendar date, `YYYY-MM-DD`. */
export type IsoDate = string;

/** The kb_docs row a parser reads (id is kb_docs.id). */
export interface PriceDocumentInput {
  id: string;
  title: string;
  price_doc_type: PriceDocType;
  content: string;
}

/** Where an entry (or a tier of it) came from: the document and the verbatim source line(s). */
export interface SourceRef {
  doc_id: string;
  doc_title: string;
  price_doc_type: PriceDocType;
  /** 1-based line of the first source line in the document content. */
  line: number;
  /** The source text, verbatim (trimmed); several table rows are joined with "\n". */
  snippet: string;
}

/** The SourceRef of `line` (1-based) of `doc`, quoting `snippet`. */
export function sourceRef(
  doc: Pick<PriceDocumentInput, "id" | "title" | "price_doc_type">,
  line: number,
  snippet: string,
): SourceRef {
  return { doc_id: doc.id, doc_title: doc.title, price_doc_type: doc.price_doc_type, line, snippet };
}

/** One quantity step of a list price. */
export interface PriceTier {
  /** Lower bound of the quantity this price applies from ("0" when the source gives none). */
  min_qty: DecimalString;
  /** True for "> 100" / "above 100": the bound itself is not included. */
  min_exclusive: boolean;
  /** Upper bound as written ("49" in "1-49"); informative, selection uses lower bounds only. */
  max_qty: DecimalString | null;
  price: DecimalString;
  /** The column header the price was read from, e.g. "List price" or "50+". */
  column: string;
  line: number;
  snippet: string;
}

export interface PriceListEntry {
  kind: "price_list";
  source: SourceRef;
  sku: string | null;
  product_name: string | null;
  manufacturer: string | null;
  /** ISO 4217 code, or null when neither the cell, the column nor the document states one. */
  currency: string | null;
  /** Normalised unit the price is per (m2, piece, box, ...), or null when not stated. */
  unit: string | null;
  /** Explicit minimum order quantity (a MOQ column or a note), in `unit`. */
  min_order_qty: DecimalString | null;
  /** Where a minimum order from a note (not a column) was read: line and text. */
  min_order_source?: { line: number; snippet: string } | null;
  /** The product group of the section heading the row stands under ("## Wall tiles"). */
  product_group?: string | null;
  /** Unit conversions the document states ("1 box = 1.44 m²"): 1 `unit` = factor `to_unit`. */
  conversions?: UnitConversion[];
  /** Sorted by min_qty ascending; never empty. */
  tiers: PriceTier[];
  /** Validity declared in the document ("valid from", "valid until", "as of", "updated"). */
  valid_from: IsoDate | null;
  valid_to: IsoDate | null;
  /**
   * The document line saying its prices include VAT ("incl. 19% VAT", "brutto"), when one does:
   * such a price is quoted as written, with a caveat (absent on entries stored before it existed).
   */
  vat_included?: { line: number; snippet: string } | null;
}

/**
 * What a rule applies to. An empty scope with `all` false never occurs: the parser reports a
 * rule whose scope it cannot recognise instead of guessing "everything".
 */
export interface RuleScope {
  /** Article numbers the rule names (most specific). */
  skus: string[];
  /** Manufacturer / brand / supplier names the rule names. */
  manufacturers: string[];
  /** Product-category words next to the scope ("Marazzi tiles" -> ["tiles"]). */
  product_keywords: string[];
  /** Stated for everything ("all products", "storewide"). */
  all: boolean;
  /** Article-number families ("all SKUs starting with JOLLY-", "AC-M*"); absent on older entries. */
  sku_prefixes?: string[];
  /** Named collections / series ("the Grande collection"): the product name must carry one. */
  collections?: string[];
  /**
   * Product groups from the section heading the rule stands under ("## Adhesives and grouts" ->
   * ["adhesives", "grouts"]): the product (its name or its price list's group) must be in one.
   */
  groups?: string[];
  /** Qualifiers of a product group in parentheses ("Adhesives (cementitious)"): to be confirmed. */
  qualifiers?: string[];
  /**
   * Customers the terms were agreed for ("customer Bauhaus Weber GmbH", "customer no. 4711"): the
   * rule applies only to a lookup for one of them.
   */
  customers?: string[];
}

export interface UnitConversion {
  unit: string;
  to_unit: string;
  factor: DecimalString;
  line: number;
  snippet: string;
}

/** A condition attached to a rule. */
export type RuleCondition =
  | {
    kind: "min_quantity";
    quantity: DecimalString;
    /** "above 100" is exclusive, "from 100" / "at least 100" inclusive. */
    exclusive: boolean;
    unit: string | null;
    text: string;
  }
  /** Any other condition, kept verbatim; the engine cannot verify it and says so. */
  | { kind: "text"; text: string };

interface RuleBase {
  source: SourceRef;
  scope: RuleScope;
  conditions: RuleCondition[];
  valid_from: IsoDate | null;
  valid_to: IsoDate | null;
  /** "10% + 5%": the percents compounded into `percent` (the effective one), in order. */
  cascade?: DecimalString[];
  /** "12% instead of 10%", "was 10%, now 12%": the old or reference rate the line names. */
  replaces?: string[];
}

export interface DiscountRuleEntry extends RuleBase {
  kind: "discount_rule";
  percent: DecimalString;
}

export interface ContractTermsEntry extends RuleBase {
  kind: "contract_terms";
  percent: DecimalString;
}

/** A time-limited offer: either a percent off or a fixed price for named SKUs. */
export interface PromotionEntry extends RuleBase {
  kind: "promotion";
  percent: DecimalString | null;
  price: DecimalString | null;
  currency: string | null;
  unit: string | null;
  valid_from: IsoDate;
  valid_to: IsoDate;
}

export type RuleEntry = DiscountRuleEntry | ContractTermsEntry | PromotionEntry;

/**
 * A line of a price document that states an amount or a percentage the engine did not use: it
 * is kept with the entries so that every lookup it may concern says so (lookup.ts), naming the
 * document and line. `severity` "caveat" (the stored name): not understood - at lookup a doubt,
 * the proposal's confidence is low and its numbers only a candidate; "info": understood as something that is not part of a unit price (freight, a minimum
 * order value, a payment discount) and only mentioned.
 */
export interface UnparsedLineEntry {
  kind: "unparsed_line";
  source: SourceRef;
  code: string;
  reason: string;
  severity: "caveat" | "info";
  /** SKUs, company and group words the line names, to tell which lookups it may concern. */
  mentions: string[];
}

export type PriceEntry = PriceListEntry | RuleEntry | UnparsedLineEntry;

/** Something the parser skipped or rejected; `error` issues make validatePriceDocument fail. */
export interface ParseIssue {
  severity: "error" | "warning";
  code: string;
  message: string;
  line: number | null;
  snippet: string | null;
}

export interface ParsedPriceDocument {
  doc_id: string;
  doc_title: string;
  price_doc_type: PriceDocType;
  entries: Array<PriceListEntry | RuleEntry>;
  issues: ParseIssue[];
  /** Lines reported in `issues` as entries the lookup can warn with (stored with the entries). */
  unparsed: UnparsedLineEntry[];
}
