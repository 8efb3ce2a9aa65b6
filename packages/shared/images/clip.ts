/**
 * The CLIP embedding actions (gateway group Embeddings, routes/clip.ts in the AI backend): an
 * image or a text as one 768-dimension unit vector in the joint space of the configured provider
 * (embeddings/clip.ts: Jina's API with CLIP_API_KEY, else the local deterministic provider).
 *
 * Failures: a misconfigured provider is 503 `clip_misconfigured`, a provider failure 502
 * `embedding_failed` (with the provider's status), a bad image 400 `invalid_image`.
 */
import { DomainError } from "../errors.ts";
import { clipFromEnv, type ClipProvider } from "../embeddings/clip.ts";
import { EmbeddingError } from "../embeddings/provider.ts";
import { asImageInput, type ImageSource, loadImage, type Settings } from "./source.ts";

/** The CLIP provider of the backend's settings (a misconfiguration is a 503). */
export function clipProvider(settings: Settings): ClipProvider {
  try {
    return clipFromEnv(settings);
  } catch (err) {
    throw DomainError.unavailable(
      `CLIP embeddings are misconfigured: ${(err as Error).message}`,
      "clip_misconfigured",
    );
  }
}

/** Runs a CLIP call, mapping provider failures to 502 and bad images to 400. */
export async function clipCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await asImageInput(fn);
  } catch (err) {
    if (err instanceof EmbeddingError) {
      throw new DomainError("upstream", "embedding_failed", `CLIP embedding failed: ${err.message}`, {
        provider_status: err.status,
      });
    }
    throw err;
  }
}

/** clip_image_embedding: the embedding of a named or inline image. */
export async function clipImage(settings: Settings, src: ImageSource) {
  const clip = clipProvider(settings);
  const img = await loadImage(src, settings);
  const embedding = await clipCall(() => clip.embedImage(img.bytes));
  return {
    embedding,
    dimensions: embedding.length,
    model: clip.model,
    provider: clip.name,
    input_type: "image" as const,
    media_type: img.mediaType,
  };
}

/** clip_text_embedding: the embedding of a text. */
export async function clipText(settings: Settings, text: string) {
  const clip = clipProvider(settings);
  const embedding = await clipCall(() => clip.embedText(text));
  return {
    embedding,
    dimensions: embedding.length,
    model: clip.model,
    provider: clip.name,
    input_type: "text" as const,
  };
}
