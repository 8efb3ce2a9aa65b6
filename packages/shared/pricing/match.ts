/**
 * Stage 1 of a lookup: which product is asked for.
 *
 * 1. SKU: when a SKU is given and a price list has it (comparison ignores case, spaces and
 *    punctuation), that is the product. A manufacturer in the request removes same-SKU products
 *    of other manufacturers; if none is left that is a gap (manufacturer mismatch), if several
 *    are left the SKU is ambiguous (gap).
 * 2. Name, when no SKU is given or the SKU is in no price list (caveat). Score of a candidate,
 *    with Q the request's name tokens and C the candidate's name + manufacturer tokens (see
 *    normalize.ts; tokens of 5+ letters one typo apart count as equal):
 *        coverage = |Q matched in C| / |Q|,  jaccard = matched / (|Q| + |C| - matched)
 *        score    = 0.6 x coverage + 0.4 x jaccard      (0..1, rounded to 4 decimals)
 *    A requested manufacturer removes candidates with another known manufacturer first.
 *    Accepted when score >= 0.5. Ambiguous (gap, warning lists them) when another product scores
 *    within 0.1 of the best. When a SKU was asked for and the name points to a product with a
 *    different SKU, that is a gap, not a match.
 */
import { caveat, type Finding, gap, type MatchMethod } from "./confidence.ts";
import { type PriceIndex, type ProductIdentity, similarIndexTokens } from "./index.ts";
import { nameTokens, sameManufacturer, skuKey, tokensMatch } from "./normalize.ts";

const MIN_NAME_SCORE = 0.5;
const AMBIGUITY_MARGIN = 0.1;

export interface ScoredIdentity {
  identity: ProductIdentity;
  score: number;
}

export interface ProductMatch {
  method: MatchMethod;
  identity: ProductIdentity | null;
  /** 1 for a SKU match, the name score otherwise (0 when nothing matched). */
  score: number;
  /** Best name candidates (up to 5), or the same-SKU products for an ambiguous SKU. */
  candidates: ScoredIdentity[];
  candidates_considered: number;
  excluded_by_manufacturer: number;
  manufacturer_filter_applied: boolean;
  findings: Finding[];
}

/**
 * The score above. `similar`, when given, holds for each query token the tokens counted as equal
 * to it (precomputed once per lookup from the index, so scoring a candidate is set look-ups).
 */
function nameScore(
  query: readonly string[],
  candidate: readonly string[],
  similar?: ReadonlyArray<ReadonlySet<string>>,
): number {
  if (!query.length || !candidate.length) return 0;
  const matched =
    query.filter((q, i) => candidate.some((c) => (similar ? similar[i].has(c) : tokensMatch(q, c)))).length;
  const coverage = matched / query.length;
  const jaccard = matched / (query.length + candidate.length - matched);
  return Math.round((0.6 * coverage + 0.4 * jaccard) * 10_000) / 10_000;
}

function describeIdentity(id: ProductIdentity): string {
  const parts = [
    id.product_name ? `"${id.product_name}"` : null,
    id.sku ? `SKU ${id.sku}` : null,
    id.manufacturer,
  ];
  return `${parts.filter(Boolean).join(", ")} (${id.entries[0].source.doc_title})`;
}

export interface MatchRequest {
  product_name: string;
  sku: string | null;
  manufacturer: string | null;
}

export function matchProduct(index: PriceIndex, req: MatchRequest): ProductMatch {
  const filterOn = req.manufacturer !== null && req.manufacturer.trim() !== "";
  const keeps = (id: ProductIdentity) =>
    !filterOn || !id.manufacturer || sameManufacturer(id.manufacturer, req.manufacturer!);
  const base = { manufacturer_filter_applied: filterOn, excluded_by_manufacturer: 0 };

  if (req.sku) {
    const all = index.bySku.get(skuKey(req.sku)) ?? [];
    const kept = all.filter(keeps);
    const excluded = all.length - kept.length;
    const candidates = kept.map((identity) => ({ identity, score: 1 }));
    if (kept.length === 1) {
      return {
        ...base,
        method: "sku",
        identity: kept[0],
        score: 1,
        candidates,
        candidates_considered: all.length,
        excluded_by_manufacturer: excluded,
        findings: [],
      };
    }
    if (kept.length > 1) {
      return {
        ...base,
        method: "sku",
        identity: null,
        score: 1,
        candidates,
        candidates_considered: all.length,
        excluded_by_manufacturer: excluded,
        findings: [
          gap(
            "ambiguous_product",
            `SKU ${req.sku} is listed for several products: ${
              kept.map(describeIdentity).join("; ")
            }; name the manufacturer`,
          ),
        ],
      };
    }
    if (excluded > 0) {
      return {
        ...base,
        method: "sku",
        identity: null,
        score: 0,
        candidates: [],
        candidates_considered: all.length,
        excluded_by_manufacturer: excluded,
        findings: [
          gap(
            "manufacturer_mismatch",
            `SKU ${req.sku} is listed only for ${
              all.map((a) => a.manufacturer).join(", ")
            }, not for ${req.manufacturer}`,
          ),
        ],
      };
    }
  }

  const byName = matchByName(index, req.product_name, keeps);
  const findings: Finding[] = [];
  if (req.sku) {
    findings.push(
      caveat("sku_not_found", `SKU ${req.sku} is in no price list; the product was looked up by name`),
    );
  }
  const { best, runnerUps } = byName;
  if (!best || best.score < MIN_NAME_SCORE) {
    const near = best
      ? `; closest: ${describeIdentity(best.identity)} scored ${best.score} (< ${MIN_NAME_SCORE})`
      : "";
    findings.push(
      gap(
        "no_base_price",
        `No price list entry matches ${req.sku ? `SKU ${req.sku} or ` : ""}"${req.product_name}"${
          filterOn ? ` from ${req.manufacturer}` : ""
        }${near}`,
      ),
    );
    return {
      ...base,
      ...byName.counts,
      method: "none",
      identity: null,
      score: best?.score ?? 0,
      candidates: byName.top,
      findings,
    };
  }
  if (runnerUps.length) {
    const listed = [best, ...runnerUps].map((c) => `${describeIdentity(c.identity)} scored ${c.score}`).join(
      "; ",
    );
    findings.push(
      gap(
        "ambiguous_product",
        `"${req.product_name}" is ambiguous: ${listed}; give the SKU or a more specific name`,
      ),
    );
    return {
      ...base,
      ...byName.counts,
      method: "name",
      identity: null,
      score: best.score,
      candidates: byName.top,
      findings,
    };
  }
  if (req.sku && best.identity.sku && skuKey(best.identity.sku) !== skuKey(req.sku)) {
    findings.push(
      gap(
        "sku_mismatch",
        `The name matches ${
          describeIdentity(best.identity)
        }, which is a different article than the requested SKU ${req.sku}`,
      ),
    );
    return {
      ...base,
      ...byName.counts,
      method: "name",
      identity: null,
      score: best.score,
      candidates: byName.top,
      findings,
    };
  }
  findings.push(
    caveat(
      "matched_by_name",
      `Product identified by name (score ${best.score}), not by SKU: ${describeIdentity(best.identity)}`,
    ),
  );
  return {
    ...base,
    ...byName.counts,
    method: "name",
    identity: best.identity,
    score: best.score,
    candidates: byName.top,
    findings,
  };
}

/** Within the margin, compared in whole basis points so float noise cannot move the boundary. */
function closeTo(best: number, other: number): boolean {
  return Math.round(best * 10_000) - Math.round(other * 10_000) < Math.round(AMBIGUITY_MARGIN * 10_000);
}

function matchByName(index: PriceIndex, productName: string, keeps: (id: ProductIdentity) => boolean) {
  const query = nameTokens(productName);
  const similar = query.map((q) => new Set(similarIndexTokens(index, q)));
  const ids = new Set<number>();
  for (const set of similar) {
    for (const t of set) for (const i of index.postings.get(t) ?? []) ids.add(i);
  }
  let excluded = 0;
  const scored: ScoredIdentity[] = [];
  for (const i of ids) {
    const identity = index.identities[i];
    if (!keeps(identity)) {
      excluded++;
      continue;
    }
    scored.push({ identity, score: nameScore(query, identity.tokens, similar) });
  }
  // Deterministic order: score, then the identity key.
  scored.sort((a, b) => b.score - a.score || (a.identity.key < b.identity.key ? -1 : 1));
  const best = scored[0] ?? null;
  const runnerUps = best && best.score >= MIN_NAME_SCORE
    ? scored.slice(1).filter((c) => c.score >= MIN_NAME_SCORE && closeTo(best.score, c.score))
    : [];
  return {
    best,
    runnerUps,
    top: scored.slice(0, 5),
    counts: { candidates_considered: ids.size, excluded_by_manufacturer: excluded },
  };
}
