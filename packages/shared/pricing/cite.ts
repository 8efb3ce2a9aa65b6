/**
 * How the reasoning chain and warnings quote their sources: document title, kb_docs id, line and
 * the verbatim snippet, so a reader can find every number in the document it came from.
 */
import type { PriceTier, SourceRef } from "./entries.ts";

export function citeDoc(source: Pick<SourceRef, "doc_id" | "doc_title">): string {
  return `"${source.doc_title}" [doc ${source.doc_id}]`;
}

export function cite(source: SourceRef): string {
  return `${citeDoc(source)} line ${source.line}: «${source.snippet.split("\n")[0]}»`;
}

export function citeTier(source: SourceRef, tier: PriceTier): string {
  return `${citeDoc(source)} line ${tier.line}, column "${tier.column}": «${tier.snippet}»`;
}

export function describeTier(t: Pick<PriceTier, "min_qty" | "min_exclusive" | "max_qty">): string {
  if (t.max_qty !== null) return `${t.min_qty}-${t.max_qty}`;
  return t.min_exclusive ? `>${t.min_qty}` : t.min_qty === "0" ? "any quantity" : `${t.min_qty}+`;
}
