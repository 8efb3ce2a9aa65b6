/**
 * Quote PDF, stage two: draws layoutQuote()'s pages with pdf-lib and the standard Helvetica
 * fonts (no font files to ship; WinAnsi text, see text.ts). Deterministic apart from the
 * generation date it is given, so the same quote renders the same bytes.
 */
import { PDFDocument, type PDFFont, rgb, StandardFonts } from "pdf-lib";
import { type FontMetrics, type FontName, layoutQuote, PAGE } from "./layout.ts";
import { toFontText } from "./text.ts";
import type { QuoteDocument } from "./types.ts";

export async function renderQuotePdf(doc: QuoteDocument, generatedAt: Date): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  // Metadata strings are UTF-16 in the PDF, so the title needs no font sanitising.
  pdf.setTitle(`Quote ${doc.quote.quote_number}`);
  pdf.setCreator("generate-quote-pdf");
  pdf.setProducer("generate-quote-pdf");
  pdf.setCreationDate(generatedAt);
  pdf.setModificationDate(generatedAt);

  const fonts: Record<FontName, PDFFont> = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
  };
  const charsets: Record<FontName, Set<number>> = {
    regular: new Set(fonts.regular.getCharacterSet()),
    bold: new Set(fonts.bold.getCharacterSet()),
  };
  const metrics: FontMetrics = {
    measure: (text, font, size) => fonts[font].widthOfTextAtSize(text, size),
    sanitize: (text, font) => toFontText(text, charsets[font]),
  };

  const black = rgb(0, 0, 0);
  const grey = rgb(0.4, 0.4, 0.4);
  for (const ops of layoutQuote(doc, metrics, generatedAt)) {
    const page = pdf.addPage([PAGE.width, PAGE.height]);
    for (const op of ops) {
      if (op.kind === "rule") {
        page.drawLine({
          start: { x: op.x1, y: op.y },
          end: { x: op.x2, y: op.y },
          thickness: 0.5,
          color: grey,
        });
        continue;
      }
      if (op.text === "") continue;
      const width = op.align === "right" ? fonts[op.font].widthOfTextAtSize(op.text, op.size) : 0;
      page.drawText(op.text, {
        x: op.x - width,
        y: op.y,
        size: op.size,
        font: fonts[op.font],
        color: op.muted ? grey : black,
      });
    }
  }
  return await pdf.save();
}
