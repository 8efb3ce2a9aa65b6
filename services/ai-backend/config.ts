/**
 * What the AI backend needs to run: where the platform is (its REST, auth and storage APIs),
 * the keys, and the embedding provider. The local platform passes its own values; production
 * (main.ts) reads them from the environment.
 */
import { type EmbeddingProvider, embeddingsFromEnv } from "@shared/embeddings/mod.ts";
import type { SupabaseConfig } from "@shared/env.ts";

export interface BackendConfig {
  /** The Supabase project (its REST, auth and storage APIs) and its keys. */
  supabase: SupabaseConfig;
  embeddings: EmbeddingProvider;
  /** Largest PDF accepted by kb_create_from_pdf, in bytes. */
  maxPdfBytes?: number;
  /** Largest file accepted by upload-async, in bytes (the bucket's own limit also applies). */
  maxUploadBytes?: number;
  /**
   * Where server secrets are read (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL for the PDF pipeline's
   * model calls); the local platform passes its own function environment. Default: process env.
   */
  secrets?: (name: string) => string | undefined;
}

/**
 * The backend's one settings reader (secrets such as ANTHROPIC_API_KEY, CLIP_API_KEY, and settings
 * such as IMAGE_FETCH_ALLOWED_HOSTS, SCRAPER_*): `cfg.secrets` when the platform passes its
 * own, else the process env. Every route hands this reader to the domain code that needs it.
 */
export function settingsOf(cfg: BackendConfig): (name: string) => string | undefined {
  return cfg.secrets ?? ((n) => Deno.env.get(n));
}

export function configFromEnv(
  get: (n: string) => string | undefined = (n) => Deno.env.get(n),
): BackendConfig {
  const need = (n: string) => {
    const v = get(n);
    if (!v) throw new Error(`${n} is not configured`);
    return v;
  };
  return {
    supabase: {
      url: need("SUPABASE_URL"),
      anonKey: need("SUPABASE_ANON_KEY"),
      serviceRoleKey: need("SUPABASE_SERVICE_ROLE_KEY"),
      jwtSecret: get("JWT_SECRET") || undefined,
    },
    embeddings: embeddingsFromEnv(get),
  };
}
