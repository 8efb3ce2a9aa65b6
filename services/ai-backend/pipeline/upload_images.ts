/**
 * Stage 2, upload-images (progress 20-30): each kept image, encoded as PNG, goes to the public
 * bucket material-images at {document_id}/{filename}, five at a time (spec: 5 parallel uploads).
 * Uploads overwrite (upsert), so a re-run stores the same objects once.
 */
import { encodePng } from "@shared/images/png.ts";
import { STAGE_LIMITS } from "./config.ts";
import type { StageContext } from "./context.ts";
import type { ClassifiedImage } from "./classify_images.ts";
import { mapLimited } from "@shared/concurrency.ts";

export const IMAGE_BUCKET = "material-images";

export interface UploadedImage {
  filename: string;
  storage_url: string;
  page_number: number;
  width: number;
  height: number;
  category: string;
  confidence: number;
}
export interface UploadOutput {
  uploaded_images: UploadedImage[];
}

export async function uploadImages(
  ctx: StageContext,
  input: { material_images: ClassifiedImage[] },
): Promise<UploadOutput> {
  const pdf = await ctx.pdf();
  const pixels = new Map(pdf.images.map((im) => [im.filename, im]));
  const bucket = ctx.db.storage.from(IMAGE_BUCKET);
  const uploaded = await mapLimited(input.material_images, STAGE_LIMITS.parallelUploads, async (image) => {
    const raster = pixels.get(image.filename);
    if (!raster) throw new Error(`upload-images: ${image.filename} is not in the PDF`);
    const path = `${ctx.documentId}/${image.filename}`;
    const res = await bucket.upload(path, await encodePng(raster), {
      contentType: "image/png",
      upsert: true,
    });
    if (res.error) throw new Error(`upload-images: storing ${path} failed: ${res.error.message}`);
    return {
      filename: image.filename,
      storage_url: bucket.getPublicUrl(path).data.publicUrl,
      page_number: image.page_number,
      width: image.width,
      height: image.height,
      category: image.category,
      confidence: image.confidence,
    };
  });
  return { uploaded_images: uploaded };
}
