/**
 * The lookup's view of a workspace's parsed Pricing documents, built once and reused for many
 * lookups.
 *
 * Price-list entries are grouped into product identities:
 * - entries with a SKU group by SKU key and manufacturer (one SKU used by two manufacturers is two
 *   products; an entry without a manufacturer joins the SKU's only manufacturer group);
 * - entries without a SKU group by name tokens and manufacturer, and join a SKU identity whose
 *   name tokens are identical when exactly one such identity exists (caveat: joined by name).
 * Name tokens are indexed for candidate generation; rules are kept as a list.
 */
import type {
  ParsedPriceDocument,
  PriceEntry,
  PriceListEntry,
  RuleEntry,
  UnparsedLineEntry,
} from "./entries.ts";
import { manufacturerTokens, nameTokens, sameManufacturer, skuKey, tokensMatch } from "./normalize.ts";

export interface ProductIdentity {
  key: string;
  sku: string | null;
  product_name: string | null;
  manufacturer: string | null;
  entries: PriceListEntry[];
  /** Name and manufacturer tokens, for fuzzy matching. */
  tokens: readonly string[];
  /** Entries without a SKU were attached to this SKU by identical name. */
  joined_by_name: boolean;
}

export interface PriceIndex {
  readonly identities: readonly ProductIdentity[];
  readonly bySku: ReadonlyMap<string, readonly ProductIdentity[]>;
  readonly postings: ReadonlyMap<string, readonly number[]>;
  /** Index tokens of 5+ letters by length, for one-typo lookups. */
  readonly fuzzyVocabulary: ReadonlyMap<number, readonly string[]>;
  readonly rules: readonly RuleEntry[];
  /** Lines the parser did not understand (or does not use in prices), for the lookup's warnings. */
  readonly unparsed: readonly UnparsedLineEntry[];
  /** Tokens of every manufacturer the documents name (to tell a line about another company). */
  readonly companyTokens: ReadonlySet<string>;
}

function isParsedDocument(x: ParsedPriceDocument | PriceEntry): x is ParsedPriceDocument {
  return "entries" in x && Array.isArray(x.entries);
}

function identityOf(e: PriceListEntry, key: string): ProductIdentity {
  return {
    key,
    sku: e.sku,
    product_name: e.product_name,
    manufacturer: e.manufacturer,
    entries: [e],
    tokens: [],
    joined_by_name: false,
  };
}

export function buildPriceIndex(source: readonly (ParsedPriceDocument | PriceEntry)[]): PriceIndex {
  const entries: PriceEntry[] = source.flatMap((x) =>
    isParsedDocument(x) ? [...x.entries, ...(x.unparsed ?? [])] : [x]
  );
  const lists = entries.filter((e): e is PriceListEntry => e.kind === "price_list");
  const rules = entries.filter((e): e is RuleEntry => e.kind !== "price_list" && e.kind !== "unparsed_line");
  const unparsed = entries.filter((e): e is UnparsedLineEntry => e.kind === "unparsed_line");
  const companyTokens = new Set<string>();
  for (const e of lists) for (const t of manufacturerTokens(e.manufacturer ?? "")) companyTokens.add(t);
  for (const r of rules) {
    for (const m of [...r.scope.manufacturers, ...(r.scope.customers ?? [])]) {
      for (const t of manufacturerTokens(m)) companyTokens.add(t);
    }
  }

  const bySku = new Map<string, ProductIdentity[]>();
  const nameOnly = new Map<string, ProductIdentity>();
  const withoutManufacturer: PriceListEntry[] = [];
  for (const e of lists) {
    if (!e.sku) continue;
    if (!e.manufacturer) {
      withoutManufacturer.push(e);
      continue;
    }
    const k = skuKey(e.sku);
    const groups = bySku.get(k) ?? [];
    const same = groups.find((g) => sameManufacturer(g.manufacturer!, e.manufacturer!));
    if (same) same.entries.push(e);
    else groups.push(identityOf(e, `sku:${k}|${manufacturerTokens(e.manufacturer).join(" ")}`));
    bySku.set(k, groups);
  }
  for (const e of withoutManufacturer) {
    const k = skuKey(e.sku!);
    const groups = bySku.get(k) ?? [];
    if (groups.length === 1) groups[0].entries.push(e);
    else groups.push(identityOf(e, `sku:${k}|?${groups.length}`));
    bySku.set(k, groups);
  }
  const skuIdentities = [...bySku.values()].flat();
  const nameKey = (name: string | null) => [...nameTokens(name ?? "")].sort().join(" ");
  const skuByName = new Map<string, ProductIdentity[]>();
  for (const id of skuIdentities) {
    const k = nameKey(id.product_name);
    if (!k) continue;
    const list = skuByName.get(k);
    if (list) list.push(id);
    else skuByName.set(k, [id]);
  }
  for (const e of lists) {
    if (e.sku) continue;
    const nk = nameKey(e.product_name);
    const compatible = (skuByName.get(nk) ?? []).filter((id) =>
      !e.manufacturer || !id.manufacturer || sameManufacturer(e.manufacturer, id.manufacturer)
    );
    if (compatible.length === 1) {
      compatible[0].entries.push(e);
      compatible[0].joined_by_name = true;
      continue;
    }
    const k = `name:${nk}|${manufacturerTokens(e.manufacturer ?? "").join(" ")}`;
    const existing = nameOnly.get(k);
    if (existing) existing.entries.push(e);
    else nameOnly.set(k, identityOf(e, k));
  }

  const identities = [...skuIdentities, ...nameOnly.values()];
  const postings = new Map<string, number[]>();
  identities.forEach((id, i) => {
    id.manufacturer ??= id.entries.find((e) => e.manufacturer)?.manufacturer ?? null;
    id.tokens = [
      ...new Set([...nameTokens(id.product_name ?? ""), ...manufacturerTokens(id.manufacturer ?? "")]),
    ];
    for (const t of id.tokens) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
  });
  const fuzzyVocabulary = new Map<number, string[]>();
  for (const t of postings.keys()) {
    if (t.length < 5 || /\d/.test(t)) continue;
    const list = fuzzyVocabulary.get(t.length);
    if (list) list.push(t);
    else fuzzyVocabulary.set(t.length, [t]);
  }
  return { identities, bySku, postings, fuzzyVocabulary, rules, unparsed, companyTokens };
}

/** Index tokens equal to a query token or one typo away from it. */
export function similarIndexTokens(index: PriceIndex, token: string): string[] {
  const out = index.postings.has(token) ? [token] : [];
  if (token.length < 5 || /\d/.test(token)) return out;
  for (let len = token.length - 1; len <= token.length + 1; len++) {
    for (const t of index.fuzzyVocabulary.get(len) ?? []) {
      if (t !== token && tokensMatch(token, t)) out.push(t);
    }
  }
  return out;
}
