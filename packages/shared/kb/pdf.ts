/**
 * Text of a PDF for kb_create_from_pdf, with unpdf (pdf.js, serverless build: no workers, no
 * canvas). Pages are joined by blank lines, so the chunker treats a page break as a paragraph
 * break. A file that is not a PDF is the caller's error (400); a PDF without a text layer
 * (a scan) is 422, since OCR belongs to the processing pipeline.
 */
import { extractText, getDocumentProxy, getMeta } from "unpdf";
import { DomainError } from "../errors.ts";

export interface PdfText {
  text: string;
  pages: number;
  title: string | null;
}

/** Decodes base64 (optionally a data: URL); bad base64 is a 400. */
export function decodeBase64(b64: string, maxBytes: number): Uint8Array {
  const body = b64.replace(/^data:[^,]*,/, "").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(body)) throw DomainError.invalid("pdf_base64 is not valid base64");
  if (Math.floor(body.length * 3 / 4) > maxBytes) {
    throw new DomainError("too_large", "payload_too_large", `The PDF is larger than ${maxBytes} bytes`);
  }
  const bin = atob(body.replaceAll("-", "+").replaceAll("_", "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  if (bytes.length < 5 || new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-") {
    throw DomainError.invalid("pdf_base64 is not a PDF file (no %PDF- header)");
  }
  let pdf;
  try {
    pdf = await getDocumentProxy(bytes);
  } catch (err) {
    throw DomainError.invalid(`The PDF could not be read: ${(err as Error).message}`);
  }
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    // The info dictionary only supplies a default title; a PDF whose metadata cannot be read
    // still has its text, so that failure is not the caller's problem.
    const meta = await getMeta(pdf).catch(() => null);
    const info = (meta?.info ?? {}) as Record<string, unknown>;
    const joined = (text as string[]).map((t) => t.trim()).filter(Boolean).join("\n\n");
    if (!joined) {
      throw new DomainError(
        "unprocessable",
        "no_text",
        "The PDF has no extractable text (a scan needs OCR, which this endpoint does not do)",
      );
    }
    const title = typeof info.Title === "string" && info.Title.trim() ? info.Title.trim() : null;
    return { text: joined, pages: totalPages, title };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
