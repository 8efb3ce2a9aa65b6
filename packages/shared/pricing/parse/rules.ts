/**
 * discount_rule, contract_terms and promotion documents -> RuleEntry[].
 *
 * Each prose line (bullets, headings and emphasis stripped) that states a percent - or, in a
 * promotion, a price with a currency - yields one rule per percent/price; a line with several
 * ("10% on Mapei, 15% on Kerakoll") is cut between them, and a piece without its own scope takes
 * the line's. Not separate rules: a cascade ("10% + 5%", "50+10%") is one rule whose percent is
 * the compounded one (amount.ts findDiscounts); the old rate of a comparison ("12% instead of
 * 10%", "was 10%, now 12%", "statt", "invece del", "au lieu de") is kept as `replaces`, so the
 * line's conditions ("for orders from 50 bags") belong to its one rule; a payment discount
 * ("2% Skonto", "cash discount", "sconto cassa") and a VAT rate are not price discounts (the line
 * is reported as such). A section heading ("## Adhesives and grouts", "**Mapei**") gives the
 * rules under it its product groups or manufacturer when they name none; "Customer: X" gives
 * them their customer. Scope and conditions: see scope.ts. Validity: the piece's own date range, else the
 * line's, else the document's declaration (nearest above, else first below; see price_list.ts).
 * Tables with a manufacturer or SKU column and a discount (or, for promotions, price) column
 * yield one rule per row.
 *
 * A promotion must have an effective date range with both ends; a line without one is skipped with
 * a warning naming it (validatePriceDocument rejects the document only when no line is usable). A
 * fixed promotion price must name its SKUs: a line keyed by an article number ("MP-100: 10% off,
 * valid ...", "MZ-1 Grande 120x240: 59.00 EUR per m2, valid ...") names it.
 */
import {
  type DecimalString,
  type ParseIssue,
  type PriceDocumentInput,
  type RuleEntry,
  type RuleScope,
  type SourceRef,
  sourceRef,
} from "../entries.ts";
import { currenciesIn, normalizeUnit } from "../normalize.ts";
import {
  detectSeparatorStyle,
  findDiscounts,
  findPercents,
  findReferencePercents,
  MONEY_PATTERN as MONEY,
  parseAmount,
  parsePercentCell,
  REFERENCE_WORDS,
  type SeparatorStyle,
} from "./amount.ts";
import { dateSpans, findDateRange, parseDate } from "./dates.ts";
import { declarationAt, readDocumentContext, sectionOf } from "./context.ts";
import { companyNotRead, extractConditions, extractScope, isCategoryWord, isEmptyScope } from "./scope.ts";
import { classifyColumns, column, isBlankCell, readMarkdownTables } from "./table.ts";

interface Piece {
  start: number;
  text: string;
  percent: DecimalString | null;
  money: string | null;
  cascade?: DecimalString[];
}

interface Draft {
  source: SourceRef;
  scope: RuleScope;
  conditionsText: string;
  percent: DecimalString | null;
  money: string | null;
  from: string | null;
  to: string | null;
  cascade?: DecimalString[];
  replaces?: string[];
  /** A company with a legal form the scope reader could not place: reported, never widened. */
  unreadCompany?: string | null;
}

/** "2% Skonto", "3% cash discount", "sconto cassa 2%", "escompte 2 %": a payment term, not a price discount. */
const PAYMENT_TERM =
  /\b(?:skonto|cash discount|early[- ]payment discount|prompt[- ]payment discount|sconto cassa|escompte)\b/i;
/** "IVA 22%", "VAT 20%", "MwSt. 19 %", "TVA 20 %": a tax rate. */
const TAX_WORDS = /\b(?:vat|iva|mwst|ust|tva|gst|sales tax|mehrwertsteuer)\b/i;

/** Percents of a line that are payment terms or tax rates (their offsets). */
function nonDiscountPercents(line: string): Array<{ index: number; length: number }> {
  return findPercents(line).filter((p) => {
    const around = line.slice(Math.max(0, p.index - 25), p.index + p.length + 25);
    return PAYMENT_TERM.test(around) || TAX_WORDS.test(around);
  });
}

/** Blanks out spans so that later extractors do not read their digits or words again. */
function blank(text: string, spans: Array<{ index: number; length: number }>): string {
  let out = text;
  for (const s of spans) out = out.slice(0, s.index) + " ".repeat(s.length) + out.slice(s.index + s.length);
  return out;
}

/** Cuts a line so that each piece holds one percent or price. */
function splitPieces(line: string, isPromotion: boolean): Piece[] {
  const excluded = nonDiscountPercents(line);
  const marks = [
    ...findDiscounts(line).filter((p) =>
      !excluded.some((x) => x.index >= p.index && x.index < p.index + p.length)
    )
      .map((p) => ({ index: p.index, length: p.length, percent: p.value, money: null, cascade: p.cascade })),
    // "9,90 € instead of 12,50 €": the reference price is not an offer of its own.
    ...(isPromotion ? [...line.matchAll(MONEY)] : []).filter((m) =>
      !REFERENCE_WORDS.test(line.slice(0, m.index))
    ).map((m) => ({
      index: m.index!,
      length: m[0].length,
      percent: null,
      money: m[0],
      cascade: undefined,
    })),
  ].sort((a, b) => a.index - b.index);
  const pieces: Piece[] = [];
  let start = 0;
  marks.forEach((m, i) => {
    const next = marks[i + 1];
    let end = line.length;
    if (next) {
      const between = line.slice(m.index + m.length, next.index);
      const sep = Math.max(between.lastIndexOf(";"), between.lastIndexOf(","), between.lastIndexOf(" and "));
      end = sep >= 0 ? m.index + m.length + sep : next.index;
    }
    pieces.push({
      start,
      text: line.slice(start, end),
      percent: m.percent,
      money: m.money,
      ...(m.cascade ? { cascade: m.cascade } : {}),
    });
    start = end;
  });
  return pieces;
}

export function parseRuleDocument(doc: PriceDocumentInput): { entries: RuleEntry[]; issues: ParseIssue[] } {
  const lines = doc.content.split(/\r?\n/);
  const tables = readMarkdownTables(lines);
  const tableLines = new Set<number>();
  for (const t of tables) {
    [t.header_line, t.header_line + 1, ...t.rows.map((r) => r.line)].forEach((l) => tableLines.add(l));
  }
  const ctx = readDocumentContext(lines, tableLines);
  const isPromotion = doc.price_doc_type === "promotion";
  const style = detectSeparatorStyle([...doc.content.matchAll(MONEY)].map((m) => m[0]));
  const drafts: Draft[] = [];
  const source = (line: number, snippet: string) => sourceRef(doc, line, snippet);

  // Section headings: "## Adhesives and grouts" (groups), "## Mapei" (a manufacturer).
  let section: RuleScope | null = null;
  const sectionAt = new Map<number, RuleScope | null>();
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (tableLines.has(line) || !raw.trim()) return;
    const head = /^\s*(#{1,6})\s+(.+?)\s*#*\s*$/.exec(raw) ?? /^\s*(\*\*|__)([^*_]+?)\1\s*:?\s*$/.exec(raw);
    if (head && !findPercents(head[2]).length && !matchSpans(head[2], MONEY).length) {
      section = readSection(head[2]);
    }
    sectionAt.set(line, section);
  });

  lines.forEach((raw, i) => {
    const line = i + 1;
    if (tableLines.has(line) || !raw.trim()) return;
    const plain = raw.replace(/\*\*|__|`/g, "").replace(/^\s*(?:#+|[-*+>]|\d+[.)])\s+/, "");
    const dates = dateSpans(plain);
    const undated = blank(plain, dates);
    const pieces = splitPieces(undated, isPromotion);
    if (!pieces.length) return;
    const lineRange = findDateRange(plain);
    const amounts = (t: string) => [...findPercents(t), ...matchSpans(t, MONEY)];
    const lineCleaned = blank(undated, amounts(undated));
    const lineScope = extractScope(lineCleaned);
    const sectionScope = sectionAt.get(line) ?? null;
    for (const p of pieces) {
      const cleaned = blank(p.text, amounts(p.text));
      let scope = extractScope(cleaned);
      if (isEmptyScope(scope)) scope = { ...lineScope, customers: scope.customers ?? lineScope.customers };
      if (!scope.customers && lineScope.customers) scope = { ...scope, customers: lineScope.customers };
      if (!scope.customers) delete scope.customers;
      if (sectionScope) scope = withSection(scope, sectionScope);
      // blank() keeps lengths, so the piece's offsets in `undated` are its offsets in `plain`.
      const ownRange = findDateRange(plain.slice(p.start, p.start + p.text.length));
      const range = ownRange ?? lineRange ?? declarationAt(ctx.validity, line)?.value ?? null;
      drafts.push({
        source: source(line, raw.trim()),
        scope,
        // Only the piece's own price is blanked here: "on orders above €5,000" stays a condition.
        conditionsText: blank(p.text, [
          ...findPercents(p.text),
          ...matchSpans(p.text, MONEY).filter((m) =>
            p.money !== null && p.text.substr(m.index, m.length) === p.money
          ),
        ]),
        percent: p.percent,
        money: p.money,
        from: range?.from ?? null,
        to: range?.to ?? null,
        ...(p.cascade ? { cascade: p.cascade } : {}),
        replaces: findReferencePercents(p.text).map((r) => `${r.value}%`),
        unreadCompany: companyNotRead(cleaned, scope) ?? companyNotRead(lineCleaned, scope),
      });
    }
  });

  for (const t of tables) {
    const cols = classifyColumns(t.headers);
    const mfrCol = column(cols, "manufacturer");
    const skuCol = column(cols, "sku");
    const pctCol = column(cols, "discount");
    const priceCol = isPromotion ? column(cols, "price") : undefined;
    if ((!mfrCol && !skuCol) || (!pctCol && !priceCol)) continue;
    const cell = (r: { cells: string[] }, c: typeof mfrCol) =>
      c && !isBlankCell(r.cells[c.index]) ? r.cells[c.index].trim() : null;
    for (const r of t.rows) {
      const mfr = cell(r, mfrCol);
      const sku = cell(r, skuCol);
      const everything = mfr !== null && /^(?:all|any|\*|alle)$/i.test(mfr);
      const from = cell(r, column(cols, "valid_from"));
      const to = cell(r, column(cols, "valid_to"));
      const validity = cell(r, column(cols, "validity"));
      const rowRange = validity
        ? findDateRange(validity)
        : (from || to)
        ? { from: from ? parseDate(from) : null, to: to ? parseDate(to) : null }
        : null;
      const range = rowRange ?? declarationAt(ctx.validity, r.line)?.value ?? null;
      const minQty = cell(r, column(cols, "tier_qty"));
      drafts.push({
        source: source(r.line, r.raw),
        scope: {
          skus: sku ? [sku] : [],
          manufacturers: mfr && !everything ? [mfr] : [],
          product_keywords: [],
          all: everything,
        },
        conditionsText: minQty ? `from ${minQty}` : "",
        ...tablePercent(pctCol ? cell(r, pctCol) : null),
        money: priceCol ? cell(r, priceCol) : null,
        from: range?.from ?? null,
        to: range?.to ?? null,
      });
    }
  }
  return finish(doc, drafts, ctx, style, isPromotion);
}

/** A discount cell: "15 %", "15", "10 + 5 %" (a cascade: the effective percent, parts kept). */
function tablePercent(text: string | null): { percent: DecimalString | null; cascade?: DecimalString[] } {
  if (!text) return { percent: null };
  const found = findDiscounts(text);
  if (found.length === 1 && found[0].cascade) return { percent: found[0].value, cascade: found[0].cascade };
  return { percent: parsePercentCell(text) };
}

/** A section heading's scope: manufacturers it names, else the product groups it names. */
function readSection(heading: string): RuleScope | null {
  const text = heading.replace(/\*\*|__|`/g, "").replace(/[([].*?[)\]]/g, " ").replace(/[:–—-]+\s*$/, "")
    .trim();
  const group = sectionOf(`## ${text}`);
  const grouped = group !== null && group !== undefined && group.split(/[\s,&/]+/).some(isCategoryWord);
  const scope = extractScope(`${text}:`);
  if (scope.manufacturers.length || scope.collections?.length) {
    return { ...scope, product_keywords: [], all: false, skus: [] };
  }
  if (!group || !grouped) return null;
  const groups = group.split(/\s*(?:,|&|\/|\band\b|\bund\b|\be\b|\bet\b|\bor\b|\boder\b|\bo\b|\bou\b)\s*/)
    .filter((g) => g.length > 2);
  return groups.length ? { skus: [], manufacturers: [], product_keywords: [], all: false, groups } : null;
}

/** A rule under a section heading takes the heading's manufacturer or groups when it names none. */
function withSection(scope: RuleScope, section: RuleScope): RuleScope {
  const out = { ...scope };
  const ownProducts = scope.skus.length || scope.sku_prefixes?.length || scope.collections?.length;
  if (!ownProducts && !scope.manufacturers.length && section.manufacturers.length) {
    out.manufacturers = section.manufacturers;
    if (section.collections?.length) out.collections = section.collections;
    out.all = false;
  }
  if (!ownProducts && !scope.product_keywords.length && section.groups?.length) {
    out.groups = section.groups;
    out.all = false;
  }
  return out;
}

function matchSpans(text: string, re: RegExp) {
  return [...text.matchAll(re)].map((m) => ({ index: m.index!, length: m[0].length }));
}

function finish(
  doc: PriceDocumentInput,
  drafts: Draft[],
  ctx: ReturnType<typeof readDocumentContext>,
  style: SeparatorStyle | null,
  isPromotion: boolean,
): { entries: RuleEntry[]; issues: ParseIssue[] } {
  const entries: RuleEntry[] = [];
  const issues: ParseIssue[] = [];
  for (const d of drafts) {
    const issue = (severity: ParseIssue["severity"], code: string, message: string) =>
      issues.push({ severity, code, message, line: d.source.line, snippet: d.source.snippet });
    let scope = d.scope;
    if (
      isEmptyScope(scope) ||
      (!scope.manufacturers.length && !scope.skus.length && scope.customers?.length && !scope.all)
    ) {
      const declared = declarationAt(ctx.manufacturer, d.source.line);
      if (declared) scope = { ...scope, manufacturers: [declared.value] };
    }
    if (!scope.customers?.length) {
      const customer = declarationAt(ctx.customer, d.source.line);
      if (customer) {
        const named = extractScope(`customer ${customer.value}`).customers ?? [customer.value];
        scope = { ...scope, customers: named };
      }
    }
    if (d.unreadCompany) {
      issue(
        "warning",
        "scope_not_recognised",
        `names a company ("${d.unreadCompany}") that could not be read as a manufacturer or a customer; skipped rather than applied to all products (write e.g. "Manufacturer: Ceramiche Rossi S.p.A." above the rule)`,
      );
      continue;
    }
    if (d.percent === null && d.money === null) {
      issue("warning", "no_amount", "row has no discount percent or price; skipped");
      continue;
    }
    if (isEmptyScope(scope)) {
      issue(
        "warning",
        "scope_not_recognised",
        "cannot tell which products this applies to (name a manufacturer, SKU, or 'all products'); skipped",
      );
      continue;
    }
    const conditions = extractConditions(d.conditionsText, style);
    const base = {
      source: d.source,
      scope,
      conditions,
      ...(d.cascade ? { cascade: d.cascade } : {}),
      ...(d.replaces?.length ? { replaces: d.replaces } : {}),
    };
    if (!isPromotion) {
      entries.push({
        ...base,
        kind: doc.price_doc_type === "contract_terms" ? "contract_terms" : "discount_rule",
        percent: d.percent!,
        valid_from: d.from,
        valid_to: d.to,
      });
      continue;
    }
    if (!d.from || !d.to) {
      // Skipped, not guessed; the document is refused only when nothing else in it is usable.
      issue(
        "warning",
        "promotion_without_date_range",
        "promotion has no effective date range with a start and an end date; skipped (write e.g. 'valid 2026-03-01 to 2026-04-30')",
      );
      continue;
    }
    let price: string | null = null;
    let currency: string | null = null;
    let unit: string | null = null;
    if (d.money !== null) {
      const a = parseAmount(d.money, style);
      if (!a.ok) {
        issue("warning", "bad_price", `${a.reason}; skipped`);
        continue;
      }
      if (!scope.skus.length) {
        issue("warning", "price_without_sku", "a fixed promotion price must name the SKU it is for; skipped");
        continue;
      }
      price = a.value;
      currency = a.currency ?? (currenciesIn(d.source.snippet)[0] ?? null);
      unit = a.unit ? normalizeUnit(a.unit) : null;
    }
    entries.push({
      ...base,
      kind: "promotion",
      percent: d.percent,
      price,
      currency,
      unit,
      valid_from: d.from,
      valid_to: d.to,
    });
  }
  return { entries, issues };
}
