/**
 * Reading the PDF once per run, with unpdf (pdf.js): the text of every page and the images
 * embedded in every page (decoded pixels, which the pipeline encodes as PNG and embeds). A file
 * that is not a PDF fails the job with the reason; a scan (no text) still yields its images.
 */
import { extractImages, extractText, getDocumentProxy } from "unpdf";
import { DomainError } from "@shared/errors.ts";
import type { RasterImage } from "@shared/embeddings/image.ts";

export interface PdfImage extends RasterImage {
  /** Stable name within the document: page-<n>-image-<k>.png (the storage file name). */
  filename: string;
  page_number: number;
}

export interface ParsedPdf {
  /** Text per page; pages[0] is page 1. */
  pages: string[];
  images: PdfImage[];
}

/** Images smaller than this on either side are rules, bullets and spacers, not pictures. */
const MIN_IMAGE_SIDE = 16;

export async function parsePdf(bytes: Uint8Array): Promise<ParsedPdf> {
  if (bytes.length < 5 || new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-") {
    throw new DomainError("invalid", "not_a_pdf", "The document is not a PDF file (no %PDF- header)");
  }
  let pdf;
  try {
    // pdf.js takes ownership of the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(bytes.slice());
  } catch (err) {
    throw new DomainError(
      "invalid",
      "pdf_unreadable",
      `The PDF could not be read: ${(err as Error).message}`,
    );
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    const pages = (text as string[]).map((t) => t.trim());
    const images: PdfImage[] = [];
    for (let page = 1; page <= pdf.numPages; page++) {
      const found = await extractImages(pdf, page);
      let k = 0;
      for (const img of found) {
        if (img.width < MIN_IMAGE_SIDE || img.height < MIN_IMAGE_SIDE) continue;
        k++;
        images.push({
          filename: `page-${page}-image-${k}.png`,
          page_number: page,
          width: img.width,
          height: img.height,
          channels: img.channels,
          data: img.data,
        });
      }
    }
    return { pages, images };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
