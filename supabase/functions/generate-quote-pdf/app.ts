/**
 * POST /functions/v1/generate-quote-pdf {quote_id, regenerate?}
 *   -> {success, quote_number, pdf_url (signed, 7 days), pdf_storage_path}
 *
 * The caller must be able to read the quote (RLS, as themselves); the PDF is then written by the
 * service role into the private quote-pdfs bucket, which no user JWT may write. A stored PDF is
 * served again unless regenerate is set or the quote's printed content changed since (the
 * fingerprint quote_document() computes).
 */
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { parseJson } from "@shared/http/validate.ts";
import { db, requireAuthenticated } from "@shared/auth/context.ts";
import { serviceClient, type SupabaseClient } from "@shared/supabase/clients.ts";
import { one } from "@shared/supabase/postgrest.ts";
import {
  GeneratePdfBody,
  pdfDecision,
  pdfFingerprint,
  QUOTE_PDF_BUCKET,
  QUOTE_PDF_URL_SECONDS,
  type QuoteDocument,
  quotePdfPath,
  renderQuotePdf,
} from "@shared/quotes/mod.ts";

const app = createFunctionApp("generate-quote-pdf");

app.post("/", async (c) => {
  requireAuthenticated(c);
  const body = await parseJson(c, GeneratePdfBody);
  const r = await db(c).rpc("quote_document", { p_quote_id: body.quote_id });
  const doc = one<QuoteDocument>({ ...r, data: r.data as QuoteDocument | null }, "Quote");

  const service = serviceClient();
  const decision = pdfDecision(doc, body.regenerate === true);
  let path = decision.action === "reuse" ? decision.path : await store(service, doc);
  let pdfUrl = await sign(service, path);
  if (pdfUrl === null) {
    if (decision.action !== "reuse") {
      throw new HttpError(500, "storage_error", "Could not sign the stored PDF");
    }
    // The recorded object is gone (removed through the storage API): render it again.
    path = await store(service, doc);
    pdfUrl = await sign(service, path);
    if (pdfUrl === null) throw new HttpError(500, "storage_error", "Could not sign the stored PDF");
  }
  return c.json({
    success: true,
    quote_number: doc.quote.quote_number,
    pdf_url: pdfUrl,
    pdf_storage_path: path,
  });
});

/** Renders, uploads under a new name and records the PDF on the quote; returns its path. */
async function store(service: SupabaseClient, doc: QuoteDocument): Promise<string> {
  const now = new Date();
  const bytes = await renderQuotePdf(doc, now);
  const path = quotePdfPath(doc, now, crypto.randomUUID());
  const up = await service.storage.from(QUOTE_PDF_BUCKET).upload(path, bytes, {
    contentType: "application/pdf",
    upsert: false,
  });
  if (up.error) {
    console.error("quote PDF upload failed", up.error);
    throw new HttpError(500, "storage_error", "Could not store the PDF");
  }
  const rec = await service.from("quotes").update({
    pdf_storage_path: path,
    pdf_fingerprint: pdfFingerprint(doc),
    pdf_generated_at: now.toISOString(),
  }).eq("id", doc.quote.id);
  if (rec.error) {
    console.error("recording the quote PDF failed", rec.error);
    throw new HttpError(500, "db_error", "Could not record the PDF on the quote");
  }
  return path;
}

/** A 7-day signed URL, or null when the object does not exist. */
async function sign(service: SupabaseClient, path: string): Promise<string | null> {
  const { data, error } = await service.storage.from(QUOTE_PDF_BUCKET).createSignedUrl(
    path,
    QUOTE_PDF_URL_SECONDS,
  );
  if (!error) return data.signedUrl;
  const status = Number((error as { statusCode?: string | number }).statusCode ?? 0);
  if (status === 404) return null;
  console.error("signing the quote PDF failed", error);
  throw new HttpError(500, "storage_error", "Could not sign the PDF");
}

export default app;
