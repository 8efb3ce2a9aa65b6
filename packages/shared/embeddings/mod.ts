/**
 * Embedding providers and the choice among them, from the environment:
 *
 * | variable            | meaning                                             | default                        |
 * |---------------------|-----------------------------------------------------|--------------------------------|
 * | EMBEDDINGS_PROVIDER | `openai` (any OpenAI-compatible API), `voyage`, `local` | `openai` with a key, else `local` |
 * | EMBEDDINGS_API_KEY  | bearer key of the hosted API                        | none                           |
 * | EMBEDDINGS_BASE_URL | API base including /v1                              | the provider's public base     |
 * | EMBEDDINGS_MODEL    | model id (must support 1024 dimensions)             | text-embedding-3-small / voyage-3.5 |
 *
 * Without a key the local deterministic provider is used, never a silent fallback after a
 * remote failure: a configured provider that fails makes the write or search fail.
 */
import { LocalHashEmbeddings } from "./local.ts";
import { OpenAICompatibleEmbeddings, VoyageEmbeddings } from "./remote.ts";
import type { EmbeddingProvider } from "./provider.ts";

export * from "./provider.ts";
export { hashEmbed, LocalHashEmbeddings } from "./local.ts";
export { OpenAICompatibleEmbeddings, VoyageEmbeddings } from "./remote.ts";

export function embeddingsFromEnv(
  get: (name: string) => string | undefined = (n) => Deno.env.get(n),
): EmbeddingProvider {
  const value = (n: string) => {
    const v = get(n);
    return v === undefined || v === "" ? undefined : v;
  };
  const key = value("EMBEDDINGS_API_KEY");
  const kind = value("EMBEDDINGS_PROVIDER") ?? (key ? "openai" : "local");
  if (kind === "local") return new LocalHashEmbeddings();
  if (!key) throw new Error(`EMBEDDINGS_PROVIDER=${kind} needs EMBEDDINGS_API_KEY`);
  if (kind === "openai") {
    return new OpenAICompatibleEmbeddings({
      baseUrl: value("EMBEDDINGS_BASE_URL") ?? "https://api.openai.com/v1",
      apiKey: key,
      model: value("EMBEDDINGS_MODEL") ?? "text-embedding-3-small",
    });
  }
  if (kind === "voyage") {
    return new VoyageEmbeddings({
      baseUrl: value("EMBEDDINGS_BASE_URL") ?? "https://api.voyageai.com/v1",
      apiKey: key,
      model: value("EMBEDDINGS_MODEL") ?? "voyage-3.5",
    });
  }
  throw new Error(`unknown EMBEDDINGS_PROVIDER ${kind} (openai, voyage or local)`);
}
