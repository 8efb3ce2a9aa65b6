/**
 * Storing and signing quote PDFs (generate-quote-pdf). `service` is the service role: the
 * private quote-pdfs bucket takes no user JWT's writes, so the function reads the quote as the
 * caller first (RLS) and only then stores the PDF with this client.
 */
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { renderQuotePdf } from "./pdf.ts";
import {
  pdfDecision,
  pdfFingerprint,
  QUOTE_PDF_BUCKET,
  QUOTE_PDF_URL_SECONDS,
  quotePdfPath,
} from "./storage.ts";
import type { QuoteDocument } from "./types.ts";

const storageError = (message: string) => DomainError.internal(message, "storage_error");

/**
 * The quote's PDF and a 7-day signed URL to it: the stored one unless `regenerate` is set or
 * the printed content changed since, else a newly rendered one (recorded on the quote).
 */
export async function quotePdf(
  service: SupabaseClient,
  doc: QuoteDocument,
  regenerate: boolean,
): Promise<{ path: string; url: string }> {
  const decision = pdfDecision(doc, regenerate);
  let path = decision.action === "reuse" ? decision.path : await storeQuotePdf(service, doc);
  let url = await signQuotePdf(service, path);
  if (url === null) {
    if (decision.action !== "reuse") throw storageError("Could not sign the stored PDF");
    // The recorded object is gone (removed through the storage API): render it again.
    path = await storeQuotePdf(service, doc);
    url = await signQuotePdf(service, path);
    if (url === null) throw storageError("Could not sign the stored PDF");
  }
  return { path, url };
}

/** Renders, uploads under a new name and records the PDF on the quote; returns its path. */
export async function storeQuotePdf(service: SupabaseClient, doc: QuoteDocument): Promise<string> {
  const now = new Date();
  const bytes = await renderQuotePdf(doc, now);
  const path = quotePdfPath(doc, now, crypto.randomUUID());
  const up = await service.storage.from(QUOTE_PDF_BUCKET).upload(path, bytes, {
    contentType: "application/pdf",
    upsert: false,
  });
  if (up.error) {
    console.error("quote PDF upload failed", up.error);
    throw storageError("Could not store the PDF");
  }
  const rec = await service.from("quotes").update({
    pdf_storage_path: path,
    pdf_fingerprint: pdfFingerprint(doc),
    pdf_generated_at: now.toISOString(),
  }).eq("id", doc.quote.id);
  if (rec.error) {
    console.error("recording the quote PDF failed", rec.error);
    throw DomainError.internal("Could not record the PDF on the quote", "db_error");
  }
  return path;
}

/** A 7-day signed URL, or null when the object does not exist. */
export async function signQuotePdf(service: SupabaseClient, path: string): Promise<string | null> {
  const { data, error } = await service.storage.from(QUOTE_PDF_BUCKET).createSignedUrl(
    path,
    QUOTE_PDF_URL_SECONDS,
  );
  if (!error) return data.signedUrl;
  const status = Number((error as { statusCode?: string | number }).statusCode ?? 0);
  if (status === 404) return null;
  console.error("signing the quote PDF failed", error);
  throw storageError("Could not sign the PDF");
}
