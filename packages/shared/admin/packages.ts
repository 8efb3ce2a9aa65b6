/**
 * The packages the backend runs with (GET /api/admin/packages/status): the npm packages of the
 * import map with the versions the lock file resolves them to, the runtime, and which providers
 * are configured (names only, never keys).
 */
import denoConfig from "../../../deno.json" with { type: "json" };
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import { chosenProvider, llmFromEnv, type Settings as Secrets } from "../llm/mod.ts";
import type { Json } from "./support.ts";

interface Lock {
  version?: string;
  specifiers?: Record<string, string>;
  npm?: Record<string, unknown>;
}

/**
 * The npm packages of the import map (deno.json, bundled with the backend) with the version the
 * lock file resolves each to, the runtime, and which providers are configured (names only, never
 * keys). The lock file is read from disk next to deno.json; where it is not deployed, the
 * packages are reported with the import map's pinned versions and `lock.available: false`.
 */
export async function packagesStatus(
  embeddings: EmbeddingProvider,
  secrets: Secrets,
  readLock: () => Promise<string> = () => Deno.readTextFile(new URL("../../../deno.lock", import.meta.url)),
): Promise<Json> {
  let lock: Lock | null = null;
  let lockError: string | null = null;
  try {
    lock = JSON.parse(await readLock()) as Lock;
  } catch (err) {
    lockError = (err as Error).message;
  }
  const imports = (denoConfig as { imports: Record<string, string> }).imports;
  const packages = Object.entries(imports)
    .filter(([, spec]) => spec.startsWith("npm:"))
    .map(([alias, spec]) => {
      // npm:name@version[/subpath] or npm:/name@version/
      const m = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)/.exec(spec);
      const name = m?.[1] ?? spec.slice(4);
      const requested = m?.[2] ?? null;
      const resolved = lock?.specifiers?.[`npm:${name}@${requested}`];
      return {
        alias,
        name,
        requested,
        version: resolved ? resolved.split("_")[0] : requested,
        source: resolved ? "deno.lock" : "deno.json",
      };
    })
    // Subpath aliases (hono/, pkg/contrib/x) repeat a package.
    .filter((p, i, all) => all.findIndex((q) => q.name === p.name) === i)
    .sort((a, b) => a.name.localeCompare(b.name));
  const provider = chosenProvider(secrets);
  return {
    runtime: { deno: Deno.version.deno, v8: Deno.version.v8, typescript: Deno.version.typescript },
    packages,
    lock: lock
      ? {
        available: true,
        version: lock.version ?? null,
        npm_packages_total: Object.keys(lock.npm ?? {}).length,
      }
      : { available: false, error: lockError },
    providers: {
      llm: {
        provider: provider ?? "none",
        configured: llmFromEnv(secrets).configured,
        base_url: secrets(provider === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL")
          ? "custom"
          : "default",
      },
      text_embeddings: {
        provider: embeddings.name,
        model: embeddings.model,
        dimensions: embeddings.dimensions,
        local: embeddings.name === "local",
      },
      image_embeddings: { provider: "local", model: "local-pixel-features-768", dimensions: 768 },
    },
  };
}
