/**
 * Where quote PDFs live and when a stored one can be served again.
 *
 * Every generation writes a new object (never overwriting), so a signed URL already handed out
 * keeps serving the PDF it was made for until it expires; the quote row points at the latest.
 */
import type { QuoteDocument } from "./types.ts";

export const QUOTE_PDF_BUCKET = "quote-pdfs";

/** The spec's "Quote PDF signed URL validity": 7 days. */
export const QUOTE_PDF_URL_SECONDS = 7 * 24 * 60 * 60;

/**
 * <workspace_id>/<quote_id>/<quote number>-<UTC stamp>-<nonce>.pdf. The workspace folder is what
 * the bucket's read policy checks; the quote number is reduced to characters safe in a key.
 */
export function quotePdfPath(doc: Pick<QuoteDocument, "quote">, at: Date, nonce: string): string {
  const number = doc.quote.quote_number.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 64) || "quote";
  const stamp = at.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const safeNonce = nonce.replace(/[^A-Za-z0-9]/g, "").slice(0, 12);
  return `${doc.quote.workspace_id}/${doc.quote.id}/${number}-${stamp}-${safeNonce}.pdf`;
}

/**
 * Bumped whenever layout.ts or pdf.ts changes what a PDF looks like, so that PDFs rendered by an
 * older layout are not served as current.
 */
export const PDF_LAYOUT_VERSION = 1;

/** What quotes.pdf_fingerprint records: the layout version and the content's fingerprint. */
export function pdfFingerprint(doc: Pick<QuoteDocument, "fingerprint">): string {
  return `v${PDF_LAYOUT_VERSION}:${doc.fingerprint}`;
}

export type PdfDecision =
  | { action: "reuse"; path: string }
  | { action: "render"; reason: "requested" | "missing" | "changed" };

/**
 * Reuse the stored PDF unless regeneration was asked for, there is none, or the quote (its
 * header, lines or totals) or the layout changed since it was rendered.
 */
export function pdfDecision(
  doc: Pick<QuoteDocument, "fingerprint" | "pdf">,
  regenerate: boolean,
): PdfDecision {
  if (regenerate) return { action: "render", reason: "requested" };
  if (!doc.pdf.storage_path) return { action: "render", reason: "missing" };
  if (doc.pdf.fingerprint !== pdfFingerprint(doc)) return { action: "render", reason: "changed" };
  return { action: "reuse", path: doc.pdf.storage_path };
}
