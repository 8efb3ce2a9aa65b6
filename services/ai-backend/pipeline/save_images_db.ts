/**
 * Stage 3, save-images-db (progress 30-50): one document_images row per uploaded image with its
 * five 768-dimension unit embeddings (visual, color, texture, style, material) from the image
 * embedding provider, upserted on (document_id, filename).
 */
import { toPgVector } from "@shared/embeddings/provider.ts";
import { check, type StageContext } from "./context.ts";
import type { UploadedImage } from "./upload_images.ts";

export interface SavedImage {
  id: string;
  filename: string;
  page_number: number;
}
export interface SaveImagesOutput {
  images: SavedImage[];
}

export async function saveImagesDb(
  ctx: StageContext,
  input: { uploaded_images: UploadedImage[] },
): Promise<SaveImagesOutput> {
  if (input.uploaded_images.length === 0) return { images: [] };
  const pdf = await ctx.pdf();
  const pixels = new Map(pdf.images.map((im) => [im.filename, im]));
  const rows = [];
  for (const image of input.uploaded_images) {
    const raster = pixels.get(image.filename);
    if (!raster) throw new Error(`save-images-db: ${image.filename} is not in the PDF`);
    const e = await ctx.imageEmbeddings.embedImage(raster);
    rows.push({
      document_id: ctx.documentId,
      filename: image.filename,
      storage_url: image.storage_url,
      page_number: image.page_number,
      width: image.width,
      height: image.height,
      category: image.category,
      confidence: image.confidence,
      visual_slig_768: toPgVector(e.visual),
      color_slig_768: toPgVector(e.color),
      texture_slig_768: toPgVector(e.texture),
      style_slig_768: toPgVector(e.style),
      material_slig_768: toPgVector(e.material),
    });
  }
  const saved = check(
    await ctx.db.from("document_images").upsert(rows, { onConflict: "document_id,filename" })
      .select("id, filename, page_number"),
    "Saving document images",
  ) as SavedImage[];
  return { images: saved.sort((a, b) => a.filename.localeCompare(b.filename)) };
}
