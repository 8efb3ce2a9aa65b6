/**
 * A real multi-page catalogue PDF for the pipeline tests, made with pdf-lib: an index page,
 * then products over several pages with text long enough for several chunks, and embedded PNG
 * images (material swatches and a logo) drawn on the product pages.
 */
import { PDFDocument, StandardFonts } from "pdf-lib";
import { encodePng } from "@shared/images/png.ts";

/** A w x h RGB swatch: a base colour with a deterministic texture. */
export function swatch(w: number, h: number, rgb: [number, number, number], grain = 24): Promise<Uint8Array> {
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const n = ((x * 7 + y * 13) % 5 - 2) * (grain / 2) + (y % 4 === 0 ? grain : 0);
      for (let c = 0; c < 3; c++) data[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, rgb[c] + n));
    }
  }
  return encodePng({ width: w, height: h, channels: 3, data });
}

export interface PageSpec {
  lines: string[];
  images?: Uint8Array[];
}

function wrap(text: string, width = 90): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if ((line + " " + word).trim().length > width) {
      out.push(line.trim());
      line = word;
    } else line += " " + word;
  }
  if (line.trim()) out.push(line.trim());
  return out;
}

export async function makeCatalogue(pages: PageSpec[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const spec of pages) {
    const page = pdf.addPage([612, 792]);
    let y = 740;
    for (const para of spec.lines) {
      for (const l of wrap(para)) {
        page.drawText(l, { x: 50, y, size: 10, font });
        y -= 14;
      }
      y -= 8;
    }
    let x = 50;
    for (const png of spec.images ?? []) {
      const img = await pdf.embedPng(png);
      page.drawImage(img, { x, y: 60, width: 120, height: 120 });
      x += 140;
    }
  }
  return await pdf.save();
}

const OAK =
  "Oak Floor Natur is a solid European oak plank, brushed and oiled, 20 mm thick with a 6 mm wear layer. " +
  "It is laid floating or glued on screed with underfloor heating. Every plank is 180 mm wide and 1800 mm long. " +
  "The natural oil finish can be renewed locally; the surface is graded rustic with knots up to 30 mm. ";
const SLATE = "Slate Tile Anthracite is a natural cleft slate tile for floors and walls, frost resistant, " +
  "60 x 30 cm and 10 mm thick, calibrated on the back. It suits terraces, bathrooms and kitchens. " +
  "The tiles are impregnated at the factory and carry CE marking under EN 12057. ";

/** Four pages: index, Oak Floor (page 2), Slate Tile (pages 3-4), with three images. */
export async function sampleCatalogue(): Promise<Uint8Array> {
  return makeCatalogue([
    { lines: ["Contents", "Oak Floor Natur ........ 2", "Slate Tile Anthracite ........ 3"] },
    { lines: ["Oak Floor Natur", OAK, OAK.toUpperCase()], images: [await swatch(48, 48, [150, 100, 60])] },
    {
      lines: ["Slate Tile Anthracite", SLATE],
      images: [await swatch(40, 40, [60, 62, 66]), await swatch(24, 24, [220, 30, 30], 0)],
    },
    { lines: ["Slate Tile Anthracite - laying and care", SLATE, SLATE.toLowerCase()] },
  ]);
}

/** What the discovery model finds in the sample catalogue. */
export const DISCOVERY = {
  products: [
    { name: "Oak Floor Natur", page_start: 2, page_end: 2 },
    { name: "Slate Tile Anthracite", page_start: 3, page_end: 4 },
  ],
  index_pages: [1],
};
/** The same as JSON text (tests/ai_services scripts it for its own calls). */
export const DISCOVERY_REPLY = JSON.stringify(DISCOVERY);

/** A product's metadata as the metadata model answers it. */
export const metadataOf = (material: string) => ({
  materials: [material],
  colors: ["natural"],
  certifications: [],
  dimensions: ["varies"],
});
export const metadataReply = (material: string) => JSON.stringify(metadataOf(material));
