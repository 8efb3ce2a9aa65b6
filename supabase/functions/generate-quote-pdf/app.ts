/**
 * POST /functions/v1/generate-quote-pdf {quote_id, regenerate?}
 *   -> {success, quote_number, pdf_url (signed, 7 days), pdf_storage_path}
 *
 * The caller must be able to read the quote (RLS, as themselves); the PDF is then written by the
 * service role into the private quote-pdfs bucket, which no user JWT may write. A stored PDF is
 * served again unless regenerate is set or the quote's printed content changed since (the
 * fingerprint quote_document() computes). Domain: packages/shared/quotes/pdf_store.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { db, serviceDb, signedIn } from "@shared/auth/context.ts";
import { GeneratePdfBody } from "@shared/quotes/mod.ts";
import { quoteDocument } from "@shared/quotes/requests.ts";
import { quotePdf } from "@shared/quotes/pdf_store.ts";
import { GeneratedPdf } from "@shared/quotes/responses.ts";

const app = createFunctionApp("generate-quote-pdf");

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Quote PDFs"],
    summary: "Render (or reuse) a quote's PDF and sign a 7-day URL to it",
    middleware: signedIn,
    request: jsonBody(GeneratePdfBody),
    responses: {
      ...okJson("The PDF's signed URL and storage path", 200, GeneratedPdf),
      ...errorResponses,
      500: { description: "Storing or signing the PDF failed: {error, code: storage_error | db_error}" },
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const doc = await quoteDocument(db(c), body.quote_id);
    const { path, url } = await quotePdf(serviceDb(c), doc, body.regenerate === true);
    return c.json({
      success: true as const,
      quote_number: doc.quote.quote_number,
      pdf_url: url,
      pdf_storage_path: path,
    }, 200);
  },
);

export default app;
