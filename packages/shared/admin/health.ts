/**
 * Health: whether what the backend depends on answers, each probed for real and timed.
 *
 * - `backendHealth` (GET /api/monitoring/health, anyone): one round trip to Postgres, the
 *   embedding provider in use, uptime.
 * - `systemHealth` (GET /api/admin/system/health, platform admins): the database, storage, the
 *   language model, the embedding provider and the job queue.
 */
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import type { Llm } from "../llm/mod.ts";
import { type Db, type Json, timed } from "./support.ts";

/** The text embedding provider in use, as the health answers name it. */
export function embeddingProviderInfo(e: EmbeddingProvider) {
  return { name: e.name, model: e.model, dimensions: e.dimensions, local: e.name === "local" };
}

export interface DatabaseProbe {
  reachable: boolean;
  latency_ms: number;
  error?: string;
}

/** One timed round trip through the REST API to Postgres. */
export async function probeDatabase(db: Db): Promise<DatabaseProbe> {
  const t0 = performance.now();
  const { error } = await db.from("gateway_action_costs").select("cost_key", { head: true, count: "exact" });
  const latency_ms = Math.round((performance.now() - t0) * 10) / 10;
  return error ? { reachable: false, latency_ms, error: error.message } : { reachable: true, latency_ms };
}

/** The public health report; `status` is unhealthy when the database does not answer. */
export async function backendHealth(db: Db, embeddings: EmbeddingProvider, startedAt: number) {
  const database = await probeDatabase(db);
  return {
    status: database.reachable ? "healthy" : "unhealthy",
    database,
    embedding_provider: embeddingProviderInfo(embeddings),
    uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
    timestamp: new Date().toISOString(),
  };
}

export interface HealthDeps {
  /** The service-role client. */
  db: Db;
  embeddings: EmbeddingProvider;
  /** The model layer's client (not configured: the probe is skipped and the check says so). */
  llm: Llm;
  llmModel: string;
  /** A processing job whose heartbeat is older than this counts as stale in the job queue. */
  staleAfterMs: number;
}

/**
 * Reachability of what the backend depends on, each probed for real and timed: the database (a
 * query), storage (listing the buckets), the language model (a one-token text call through the
 * model layer, which works with either provider), the embedding provider (one short query
 * embedding), and the job queue's state.
 */
export async function systemHealth(d: HealthDeps): Promise<Json> {
  const staleBefore = new Date(Date.now() - d.staleAfterMs).toISOString();
  const [database, storage, llm, embeddings] = await Promise.all([
    timed(async () => {
      const r = await d.db.rpc("admin_job_queue", { p_stale_before: staleBefore });
      if (r.error) throw new Error(r.error.message);
      return r.data as Json;
    }),
    timed(async () => {
      const r = await d.db.storage.listBuckets();
      if (r.error) throw new Error(r.error.message);
      return r.data.map((b) => b.name).sort();
    }),
    d.llm.configured
      ? timed(() =>
        d.llm.text({ model: d.llmModel, prompt: "health check", maxTokens: 1, purpose: "Health check" })
      )
      : null,
    timed(() => d.embeddings.embed(["health check"], "query")),
  ]);
  const out = {
    database: database.ok
      ? { reachable: true, latency_ms: database.ms }
      : { reachable: false, latency_ms: database.ms, error: database.error },
    storage: storage.ok
      ? { reachable: true, latency_ms: storage.ms, buckets: storage.value }
      : { reachable: false, latency_ms: storage.ms, error: storage.error },
    llm: llm === null
      ? {
        configured: false,
        reachable: false,
        error:
          "No model provider is configured (ANTHROPIC_API_KEY, or LLM_PROVIDER=openai with OPENAI_BASE_URL)",
      }
      : llm.ok
      ? { configured: true, reachable: true, latency_ms: llm.ms, model: d.llm.modelId(d.llmModel) }
      : {
        configured: true,
        reachable: false,
        latency_ms: llm.ms,
        model: d.llm.modelId(d.llmModel),
        error: llm.error,
      },
    embeddings: embeddings.ok
      ? {
        provider: d.embeddings.name,
        model: d.embeddings.model,
        dimensions: d.embeddings.dimensions,
        reachable: embeddings.value[0]?.length === d.embeddings.dimensions,
        latency_ms: embeddings.ms,
      }
      : {
        provider: d.embeddings.name,
        model: d.embeddings.model,
        reachable: false,
        latency_ms: embeddings.ms,
        error: embeddings.error,
      },
    job_queue: database.ok ? database.value : null,
  };
  const healthy = out.database.reachable && out.storage.reachable && out.llm.reachable &&
    out.embeddings.reachable;
  return {
    status: !out.database.reachable ? "unhealthy" : healthy ? "healthy" : "degraded",
    checks: out,
    timestamp: new Date().toISOString(),
  };
}
