/**
 * What a prose rule applies to and under which conditions.
 *
 * Scope (never guessed: a rule whose scope is not recognised is reported, not applied to all):
 * - SKUs after `SKU`, `Art. No.`, `article`, `item no`, `code` (a code must contain a digit), and
 *   an article number opening the line ("MP-100: 10% off", "MZ-1 Grande 120x240: 59.00 EUR",
 *   "Aktion: VB-5614R0 ...", "Item DT-RS0612: ...") or in brackets ("Keraflex grey (MP-100)");
 * - SKU prefixes: "all SKUs / articles starting (beginning) with JOLLY-", "AC-M*";
 * - collections: "the Grande collection", "collection Grande", "Treverk series" are collections
 *   (the product name must carry the name), not manufacturers;
 * - manufacturers after a label (`manufacturer X`, `brand: X`), after `with` / `off` / `on` /
 *   `for` / `from` / `all`, at the start of a line as `X:`, or before a generic noun
 *   (`X products`). A name is a run of capitalised words; seasonal, calendar and commercial
 *   words (Spring, March, Promo, SKU, EUR, ...) are not names;
 * - a lower-case word right after a manufacturer or `all` ("Marazzi tiles", "all adhesives") is a
 *   product keyword narrowing the rule;
 * - everything: `all products / items / articles / orders`, `storewide`, `on everything`, ...
 *   ("Ceramiche Rossi S.p.A. all products" is every product of that company, never of all);
 * - company names keep their legal form and punctuation (S.p.A., S.r.l., GmbH & Co. KG, S.A.,
 *   Ltd., Inc.): the name is the company's; a legal form whose name cannot be read makes the scope
 *   unreadable (companyNotRead), so the rule is reported, never widened;
 * - customers: `customer X`, `client X`, `Kunde X`, `cliente X`, `for our customer X`, `customer
 *   no. 4711` - a contract for one customer, applied only to lookups for that customer;
 * - product groups: a category word ("Adhesives", "Fliesen", "piastrelle") is a product keyword,
 *   not a name, capitalised or not; a qualifier in parentheses ("Adhesives (cementitious)") is
 *   kept as a qualifier the product name should confirm;
 * Conditions: `above / over / more than / > N unit` (exclusive) and `from / at least / min /
 * >= N unit` (inclusive) become min_quantity; `if`, `provided`, `subject to`, `only for`,
 * `except`, `excluding`, `payment ...`, and order-value thresholds stay verbatim text.
 */
import type { RuleCondition, RuleScope } from "../entries.ts";
import { currenciesIn, isKnownUnit, normalizeUnit } from "../normalize.ts";
import { parseNumber, type SeparatorStyle } from "./amount.ts";

const NOT_NAMES = new Set(
  (
    "all every any each the this these our order orders sku skus art article articles item items code ref " +
    "eur usd gbp chf valid validity until from to for on off with promo promotion sale sales discount discounts " +
    "offer special spring summer autumn fall winter christmas easter black friday cyber monday tuesday wednesday " +
    "thursday saturday sunday january february march april may june july august september october november " +
    "december jan feb mar apr jun jul aug sep sept oct nov dec note notes contract contracts negotiated net list " +
    "price prices product products everything storewide total vat min minimum max maximum only excl incl payment " +
    "delivery free extra additional customer customers dealer dealers trade project projects new standard " +
    "general rebate rule rules terms condition conditions manufacturer brand supplier vendor quantity qty " +
    "applies apply rabatt aktion angebot alle gültig bis ab sconto sconti remise remises kunde kunden cliente " +
    "client clients condizioni konditionen sonderrabatt sonderkondition sonderkonditionen prodotti produkte " +
    "artikel tutti tutta gamma sortiment promozione offerta offre listino preisliste tarif prix prezzi prezzo " +
    "preise preis netto brutto valido valida dal al fino vom du au agreed terms special cascade"
  ).split(" "),
);
const GENERIC_NOUNS =
  /^(?:products?|items?|articles?|goods|range|ranges|lines?|collections?|catalog(?:ue)?|assortment|materials?)$/i;
const KEYWORD_STOP = new Set(
  (
    "on for off until valid from to with and or is are at in the orders order discount rebate promo only all " +
    "items item products product articles goods range prices price purchases purchase net list by of get save " +
    "receive when if except excluding plus this that these everything manufacturer manufacturers brand brands " +
    "supplier suppliers vendor vendors sku skus article code item"
  ).split(" "),
);

/** Product-group words: a keyword even when capitalised ("Adhesives: 5%"), never a company. */
const CATEGORY_WORDS = new Set(
  (
    "adhesive adhesives tile tiles grout grouts primer primers sealant sealants membrane membranes profile " +
    "profiles screed screeds mortar mortars tool tools accessory accessories porcelain ceramics ceramic " +
    "stoneware mosaic mosaics paint paints insulation board boards panel panels pipe pipes fitting fittings " +
    "waterproofing cladding flooring laminate parquet sanitary trims trim underlay levelling " +
    "fliesen fliese kleber fliesenkleber fugenmörtel fugenmortel profile zubehör zubehor abdichtung grundierung " +
    "platten mörtel estrich piastrelle adesivi collanti collante stucchi stucco profili accessori gres ceramica " +
    "mosaici pavimenti rivestimenti carrelage carreaux colles colle joints profilés profiles accessoires " +
    "peintures mortiers wall floor outdoor indoor paving pavers slabs bricks cement plaster gypsum drywall " +
    "silicone silicones grouting mosaico listelli battiscopa skirting sanitaryware bathroom kitchen glue " +
    "glues putty fillers filler rasanti intonaci pflaster klebstoff dichtstoff spachtel wandfliesen " +
    "bodenfliesen feinsteinzeug"
  ).split(" "),
);

/** Whether a word names a product group (tiles, adhesives, Fliesen, piastrelle, ...). */
export function isCategoryWord(word: string): boolean {
  return CATEGORY_WORDS.has(word.toLowerCase());
}

/**
 * Legal forms written with dots or spaces, read as one word so that the name keeps them
 * ("Ceramiche Rossi S.p.A." -> "Ceramiche Rossi SpA", "Müller GmbH & Co. KG" -> "Müller GmbH & Co KG").
 */
const LEGAL_FORMS: Array<[RegExp, string]> = [
  [/,?\s+S\.\s?p\.\s?A\.?(?=\s|$|[,:;)])/gi, " SpA"],
  [/,?\s+S\.\s?r\.\s?l\.?(?=\s|$|[,:;)])/gi, " Srl"],
  [/,?\s+S\.\s?a\.\s?s\.?(?=\s|$|[,:;)])/gi, " Sas"],
  [/,?\s+S\.\s?à\s?r\.\s?l\.?(?=\s|$|[,:;)])/gi, " Sarl"],
  [/,?\s+S\.\s?A\.?(?=\s|$|[,:;)])/g, " SA"],
  [/,?\s+S\.\s?L\.?(?=\s|$|[,:;)])/g, " SL"],
  [/,?\s+B\.\s?V\.?(?=\s|$|[,:;)])/g, " BV"],
  [/,?\s+N\.\s?V\.?(?=\s|$|[,:;)])/g, " NV"],
  [/,?\s+e\.\s?K\.?(?=\s|$|[,:;)])/g, " eK"],
  [/\s+&\s+Co\.(?=\s|$|[,:;)])/g, " & Co"],
  [/,\s+(Inc|Ltd|LLC|plc|Corp|SpA|Srl|GmbH|AG|SA|SL|BV|NV|SARL|SAS)\b\.?/g, " $1"],
  [/\b(Inc|Ltd|Corp|Co)\.(?=\s|$|[,:;)])/g, "$1"],
];
const LEGAL_FORM_WORD =
  /\b(?:SpA|Srl|Sas|Sarl|SA|SL|BV|NV|eK|GmbH|AG|KG|Ltd|Limited|Inc|LLC|plc|PLC|Corp|SARL|SAS|OHG|Oy|AB|AS|A\/S)\b/;

/** The text with legal forms written as one word (offsets change; names are read from it). */
export function normalizeLegalForms(text: string): string {
  return LEGAL_FORMS.reduce((t, [re, to]) => t.replace(re, to), text);
}

const NAME = String.raw`([\p{Lu}][\p{L}\p{N}&'’-]*(?:\s+(?:&\s+)?[\p{Lu}][\p{L}\p{N}&'’-]*)*)`;
const NAME_LIST = String
  .raw`${NAME}((?:\s*(?:,|\band\b|&|\bor\b)\s*[\p{Lu}][\p{L}\p{N}&'’-]*(?:\s+[\p{Lu}][\p{L}\p{N}&'’-]*)*)*)`;
// No "i" flag here: under /iu, \p{Lu} would match lower-case letters too, so the trigger words
// spell out their capitalised forms instead.
const cap = (words: string) =>
  words.split("|").map((w) => `[${w[0].toUpperCase()}${w[0]}]${w.slice(1)}`).join("|");
const NAME_TRIGGERS = [
  new RegExp(
    String.raw`\b(?:${
      cap("manufacturer|brand|supplier|vendor|hersteller|marke")
    })s?\s*[:\-–]?\s*${NAME_LIST}`,
    "gu",
  ),
  new RegExp(
    String.raw`\b(?:${
      cap("with|off|on|for|from|of|su|sui|sulla|per|di|dei|auf|für|von|sur|pour|sconto")
    })\s+(?:all\s+|the\s+|tutti\s+i\s+prodotti\s+|tutta\s+la\s+gamma\s+|alle\s+|tous\s+les\s+produits\s+|toute\s+la\s+gamme\s+)?${NAME_LIST}`,
    "gu",
  ),
  new RegExp(String.raw`\b[Aa]ll\s+${NAME_LIST}`, "gu"),
  new RegExp(String.raw`^\s*${NAME}\s*:`, "gu"),
  new RegExp(String.raw`${NAME}\s+(?=(?:products?|items?|articles?|goods|range|collection)\b)`, "gu"),
  // "Ceramiche Rossi SpA all products: 10%", "Mapei adhesives: 12%", "Fliesen Müller GmbH, all items".
  new RegExp(
    String
      .raw`^\s*${NAME}(?![\p{L}\p{N}&'’-])(?=\s*[,:;–-]?\s*(?:all|every|alle|tutti|tutta|tous|toutes?)\b|\s+\p{Ll}[\p{L}-]+(?:\s+\p{Ll}[\p{L}-]+)?\s*[:–-])`,
    "gu",
  ),
];
const ALL_SCOPE =
  /\b(?:all|every|any|entire|whole)\s+(?:products|items|articles|goods|orders|purchases|catalog(?:ue)?|range|assortment|materials)\b|\bstorewide\b|\bsitewide\b|\bacross the board\b|\bon everything\b|\beverything\b|\bgeneral discount\b|\ball manufacturers\b|\balle\s+(?:Produkte|Artikel)\b|\bgesamte[sn]?\s+Sortiment\b|\btutti\s+i\s+prodotti\b|\btutta\s+la\s+gamma\b|\btous\s+les\s+produits\b|\btoute\s+la\s+gamme\b/i;
const SKU_LIST =
  /\b(?:skus?|art(?:icle)?s?\.?\s*(?:no|nr|number)?s?\.?|item\s*(?:no|nr|number|code)s?\.?|product\s+codes?|codes?)\s*[:#]?\s*([A-Z0-9][\w./-]*\d[\w./-]*(?:\s*(?:,|\band\b|&)\s*[A-Z0-9][\w./-]*\d[\w./-]*)*)/gi;

/** A proper name without leading/trailing non-name words ("All Mapei Products" -> "Mapei"). */
function cleanName(raw: string): string | null {
  const words = raw.trim().split(/\s+/);
  while (words.length && NOT_NAMES.has(words[0].toLowerCase())) words.shift();
  while (words.length && (NOT_NAMES.has(words.at(-1)!.toLowerCase()) || GENERIC_NOUNS.test(words.at(-1)!))) {
    words.pop();
  }
  const name = words.join(" ").replace(/[’'-]+$/, "");
  if (words.length && words.every((w) => CATEGORY_WORDS.has(w.toLowerCase()))) return null;
  return name && !/^\d/.test(name) ? name : null;
}

// "for our customer Bauhaus Weber GmbH", "Kunde: Müller Bau GmbH", "cliente Edil Rossi Srl",
// "customer no. 4711": a contract for one customer.
const CUSTOMER = new RegExp(
  String
    .raw`\b(?:[Ff]or\s+|[Ww]ith\s+|[Ff]ür\s+|[Pp]er\s+(?:il\s+)?|[Pp]our\s+(?:le\s+)?|[Aa]greed with\s+)?(?:(?:our|unseren?|il nostro|notre)\s+)?(?:${
    cap("customer|cliente|client|kunden|kunde|buyer|abnehmer")
  })(?![\p{L}])(?:\s*(?:no\.?|nr\.?|number|#|nummer)\s*[:#]?\s*([A-Z0-9][\w-]*\d[\w-]*))?\s*[:\-–]?\s*(?:${NAME})?(?:\s*\(\s*(?:${
    cap("customer|client|kunde|kunden|cliente")
  })?\s*(?:no\.?|nr\.?|number|#|nummer)?\s*[:#]?\s*([A-Z0-9][\w-]*\d[\w-]*)\s*\))?`,
  "gu",
);

/** Customers a text names, and the text with them blanked (so they are not read as manufacturers). */
export function extractCustomers(text: string): { customers: string[]; rest: string } {
  const customers: string[] = [];
  const rest = text.replace(
    CUSTOMER,
    (m, id1: string | undefined, name: string | undefined, id2: string | undefined) => {
      const found = [name ? cleanName(name) : null, id1, id2].filter((v): v is string => !!v);
      for (const v of found) if (!customers.includes(v)) customers.push(v);
      return found.length ? " ".repeat(m.length) : m;
    },
  );
  return { customers, rest };
}

/** An article number as suppliers write one: capitals/digits, with a digit and a letter or dash. */
export function isSkuShaped(token: string): boolean {
  const t = token.replace(/[.,:;]+$/, "");
  if (t.length < 3 || !/^[A-Z0-9][A-Z0-9._/-]*$/.test(t)) return false;
  if (/^\d{4}$/.test(t) || /^\d+[.,]\d+$/.test(t)) return false;
  const hasDigit = /\d/.test(t);
  const hasLetter = /[A-Z]/.test(t);
  return (hasDigit && (hasLetter || t.includes("-"))) || (t.includes("-") && hasLetter) ||
    /^\d{5,}$/.test(t);
}

// "MP-100: 10% off", "MZ-1 Grande Marble: 59.00 EUR per m2", "Aktion: VB-5614R0 Subway ...": a
// line that starts with an article number (after at most one "Word:" label) is keyed by it.
const LEADING_SKU =
  /^(\s*(?:[\p{L}]+\s*:\s*|(?:item|article|art\.|sku|code|ref\.?|product)\s*(?:no\.?|nr\.?|#)?\s*)?)([A-Z0-9][A-Z0-9._/-]*[A-Z0-9])/iu;
/** After an unlabelled leading article number: its ":" (directly or after the product name) or a dash. */
const KEYED_BY_LEADING = /^(?:\s*:|\s+\S[^:]*:|\s*[-–—]\s)/;
// "all SKUs starting with JOLLY-", "articles beginning with AC-M", "AC-M*".
const SKU_PREFIX = new RegExp(
  String
    .raw`(?:\b(?:all|every|any)\s+)?\b(?:skus?|articles?|art(?:icle)?\.?\s*(?:no|nr)s?\.?|items?|item numbers?|item codes?|codes?|product codes?|artikel(?:nummern)?)\s+(?:starting|beginning|that start|which start)\s+with\s+([A-Z0-9][A-Z0-9./-]*)|\b([A-Z0-9][A-Z0-9./-]*)\*`,
  "gi",
);
// "the Grande collection", "collection Grande", "Treverk series": a collection is named in the
// product names, not a manufacturer.
const COLLECTION = new RegExp(
  String
    .raw`\b(?:the\s+)?${NAME}\s+(?:collection|series|kollektion|serie)\b|\b(?:collection|series|kollektion|serie)\s*:?\s*"?${NAME}`,
  "gu",
);

export function extractScope(input: string): RuleScope {
  const { customers, rest: text0 } = extractCustomers(normalizeLegalForms(input));
  let text = text0;
  const skus = new Set<string>();
  const qualifiers: string[] = [];
  const parenGroups: string[] = [];
  const prefixes: string[] = [];
  const collections: string[] = [];
  const lead = LEADING_SKU.exec(text);
  if (lead && isSkuShaped(lead[2]) && (lead[1].trim() || KEYED_BY_LEADING.test(text.slice(lead[0].length)))) {
    skus.add(lead[2]);
    text = text.slice(0, lead[1].length) + " ".repeat(lead[2].length) + text.slice(lead[0].length);
  }
  // "Keraflex grey (MP-100): 10% off": an article number in brackets.
  text = text.replace(/\(\s*([A-Z0-9][A-Z0-9._/-]*)\s*\)/g, (m, sku: string) => {
    if (!isSkuShaped(sku)) return m;
    skus.add(sku);
    return " ".repeat(m.length);
  });
  // "Adhesives (cementitious): 5%": the group is the word before, the bracket qualifies it.
  text = text.replace(
    /([\p{L}][\p{L}-]+)\s*\(([^()%€$£\d][^()]*)\)/gu,
    (m, group: string, q: string) => {
      if (!CATEGORY_WORDS.has(group.toLowerCase())) return m;
      parenGroups.push(group.toLowerCase());
      qualifiers.push(q.trim().toLowerCase());
      return group + " ".repeat(m.length - group.length);
    },
  );
  text = text.replace(SKU_PREFIX, (m, a: string | undefined, b: string | undefined) => {
    prefixes.push((a ?? b)!);
    return " ".repeat(m.length);
  });
  text = text.replace(COLLECTION, (m, a: string | undefined, b: string | undefined) => {
    const name = cleanName((a ?? b)!);
    if (!name) return m;
    collections.push(name.toLowerCase());
    return " ".repeat(m.length);
  });
  for (const m of text.matchAll(SKU_LIST)) {
    for (const s of m[1].split(/\s*(?:,|\band\b|&)\s*/)) {
      const sku = s.replace(/[.,]+$/, "");
      if (/\d/.test(sku)) skus.add(sku);
    }
  }
  const withoutSkus = text.replace(SKU_LIST, " ");
  const manufacturers: string[] = [];
  const ends: number[] = [];
  for (const re of NAME_TRIGGERS) {
    for (const m of withoutSkus.matchAll(re)) {
      const names = [m[1], ...(m[2] ?? "").split(/\s*(?:,|\band\b|&|\bor\b)\s*/)];
      for (const n of names) {
        const name = n ? cleanName(n) : null;
        if (name && !manufacturers.some((x) => x.toLowerCase() === name.toLowerCase())) {
          manufacturers.push(name);
          ends.push(withoutSkus.indexOf(name, m.index) + name.length);
        }
      }
    }
  }
  const keywords = new Set<string>();
  const after = (pos: number) => /^\s+([a-z][a-z-]{2,})\b/.exec(withoutSkus.slice(pos))?.[1];
  for (const end of ends) {
    const w = after(end);
    if (w && !KEYWORD_STOP.has(w) && !GENERIC_NOUNS.test(w)) keywords.add(w);
  }
  for (const m of withoutSkus.matchAll(/\b(?:all|on|off|for)\s+(?:all\s+)?([a-z][a-z-]{2,})\b/gi)) {
    const w = m[1];
    if (/^[a-z]/.test(w) && !KEYWORD_STOP.has(w) && !GENERIC_NOUNS.test(w)) keywords.add(w);
  }
  // A capitalised group word ("Adhesives: 5%", "Fliesen - 8%") is a keyword too.
  const inNames = new Set(manufacturers.flatMap((n) => n.toLowerCase().split(/\s+/)));
  for (const m of withoutSkus.matchAll(/[\p{L}]+/gu)) {
    const w = m[0].toLowerCase();
    if (
      CATEGORY_WORDS.has(w) && /^\p{Lu}/u.test(m[0]) && !inNames.has(w) &&
      !["wall", "floor", "indoor", "outdoor"].includes(w)
    ) {
      keywords.add(w);
    }
  }
  for (const g of parenGroups) keywords.add(g);
  return {
    skus: [...skus],
    manufacturers,
    product_keywords: [...keywords],
    all: ALL_SCOPE.test(withoutSkus),
    ...(prefixes.length ? { sku_prefixes: prefixes } : {}),
    ...(collections.length ? { collections } : {}),
    ...(customers.length ? { customers } : {}),
    ...(qualifiers.length ? { qualifiers } : {}),
  };
}

/**
 * A company named with a legal form ("... S.p.A.", "... GmbH") that was read neither as a
 * manufacturer nor as a customer: the scope is not understood (reported, never widened).
 */
export function companyNotRead(text: string, scope: RuleScope): string | null {
  const t = normalizeLegalForms(text);
  const m = LEGAL_FORM_WORD.exec(t);
  if (!m) return null;
  const names = [...scope.manufacturers, ...(scope.customers ?? [])];
  const start = Math.max(0, t.lastIndexOf(" ", Math.max(0, m.index - 2)) - 30);
  const around = t.slice(start, m.index + m[0].length).trim();
  return names.some((n) => n.includes(m[0])) ? null : around;
}

export function isEmptyScope(s: RuleScope): boolean {
  return !s.all && !s.skus.length && !s.manufacturers.length && !s.product_keywords.length &&
    !s.sku_prefixes?.length && !s.collections?.length && !s.groups?.length;
}

const MIN_QTY =
  /(?:\b|(?<=\s)|^)(above|over|more than|exceeding|from|at least|min(?:imum)?(?:\s+of)?|ab|mindestens|über|da|almeno|oltre|sopra i|dès|à partir de|a partire da|au moins|plus de|>=|≥|>)\s*(\d[\d.,]*)(?:\s*([\p{L}²³][\p{L}\p{N}²³]*))?/giu;
const TEXT_CONDITION =
  /\b(?:if|provided(?: that)?|subject to|only (?:for|when|if|with|on)|when|except|excluding|excl\.|not valid|not applicable|not combinable|payment|upon)\b[^.;]*/gi;

/** Conditions stated in a rule's text (dates already removed by the caller). */
export function extractConditions(text: string, style: SeparatorStyle | null): RuleCondition[] {
  const out: RuleCondition[] = [];
  for (const m of text.matchAll(MIN_QTY)) {
    const unitWord = m[3];
    if (unitWord && currenciesIn(unitWord).length) {
      out.push({ kind: "text", text: m[0].trim() });
      continue;
    }
    const n = parseNumber(m[2].replace(/[.,]$/, ""), style);
    if (!n.ok) continue;
    const unit = unitWord && isKnownUnit(unitWord) ? normalizeUnit(unitWord) : null;
    const exclusive = /^(?:above|over|more than|exceeding|über|oltre|sopra i|plus de|>)$/i.test(m[1]);
    out.push({ kind: "min_quantity", quantity: n.value, exclusive, unit, text: m[0].trim() });
  }
  // A currency before the amount ("orders above €5,000") is an order-value threshold.
  for (
    const m of text.matchAll(
      /\b(?:above|over|more than|exceeding|from|at least|min(?:imum)?)\s*(?:€|\$|£|EUR|USD|GBP|CHF)\s*\d[\d.,]*/gi,
    )
  ) {
    out.push({ kind: "text", text: m[0].trim() });
  }
  for (const m of text.matchAll(TEXT_CONDITION)) out.push({ kind: "text", text: m[0].trim() });
  return out;
}
