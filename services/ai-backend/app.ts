/**
 * The AI backend (/api/...): a root app from the shared HTTP core (packages/shared/http/app.ts:
 * request id, caller resolution, one error shape, one 404, zod 400s), with the service's own
 * config. Public: /health, /docs, /redoc, /openapi.json. Everything under /api needs a user JWT
 * or the service-role key (401 otherwise) and acts as the caller.
 *
 *   createAiBackendApp(cfg).fetch   - served by main.ts in production and by the local platform
 *   jobRunnerOf(app).start()        - the job runner that processes accepted uploads (and sweeps
 *                                     for queued jobs a crash or a restart left behind); main.ts
 *                                     and the local platform start it; until then an accepted
 *                                     upload stays queued for a started runner's sweep
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createApp } from "@shared/http/app.ts";
import { signedIn } from "@shared/auth/context.ts";
import { serveApiDocs } from "@shared/http/docs.ts";
import type { BackendConfig } from "./config.ts";
import type { BackendEnv } from "./env.ts";
import { API_INFO } from "./openapi.ts";
import { kbDocumentRoutes } from "./routes/kb_documents.ts";
import { kbCatalogRoutes } from "./routes/kb_catalog.ts";
import { kbSearchRoutes } from "./routes/kb_search.ts";
import { ragJobRoutes, runAcceptedUploads } from "./routes/rag_jobs.ts";
import { pipelineRoutes } from "./routes/pipeline.ts";
import { adminJobRoutes } from "./routes/admin_jobs.ts";
import { adminPromptRoutes } from "./routes/admin_prompts.ts";
import { adminSystemRoutes } from "./routes/admin_system.ts";
import { ragDocumentRoutes } from "./routes/rag_documents.ts";
import { monitoringRoutes } from "./routes/monitoring.ts";
import { duplicateRoutes } from "./routes/duplicates.ts";
import { searchRoutes } from "./routes/search.ts";
import { agentRunRoutes } from "./routes/agent_runs.ts";
import { ragSearchRoutes } from "./routes/rag_search.ts";
import { scrapingRoutes } from "./routes/scraping.ts";
import { imageRoutes } from "./routes/images.ts";
import { clipRoutes } from "./routes/clip.ts";
import { aiServiceRoutes } from "./routes/ai_services.ts";
import { llmRoutes } from "./routes/llm.ts";
import { applyBilling } from "./billing.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { KB_BATCH_MAX_BYTES } from "@shared/kb/schemas.ts";
import { UPLOAD_ASYNC } from "@shared/gateway/mod.ts";
import { createServiceClient } from "@shared/supabase/clients.ts";
import { JobRunner } from "./pipeline/runner.ts";
import { pipelineDeps } from "./pipeline/jobs.ts";

export type { BackendConfig } from "./config.ts";

const runners = new WeakMap<object, JobRunner>();

/** The job runner of an app made by createAiBackendApp (not started until start()). */
export function jobRunnerOf(app: OpenAPIHono<BackendEnv>): JobRunner {
  const runner = runners.get(app);
  if (!runner) throw new Error("not an AI backend app");
  return runner;
}

export function createAiBackendApp(cfg: BackendConfig): OpenAPIHono<BackendEnv> {
  const app = createApp<BackendEnv>({ supabase: cfg.supabase, cors: true });
  app.use("*", async (c, next) => {
    c.set("cfg", cfg);
    await next();
  });
  app.use("/api/*", signedIn);
  // Before billing, which reads the body: a batch import over the cap is refused unread (413).
  app.use("/api/kb/documents/batch", limitBody(KB_BATCH_MAX_BYTES, "batch of documents"));
  // Before billing, so it runs after billing has linked an accepted upload's debit to its job.
  const runner = new JobRunner(pipelineDeps(cfg, createServiceClient(cfg.supabase)));
  app.use(UPLOAD_ASYNC.path, runAcceptedUploads(runner));
  // The one billing point: every billable route debits a user caller (billing.ts).
  applyBilling(app);

  app.route("/", kbDocumentRoutes());
  app.route("/", kbCatalogRoutes());
  app.route("/", kbSearchRoutes());
  app.route("/", ragJobRoutes());
  app.route("/", pipelineRoutes());
  app.route("/", adminJobRoutes());
  app.route("/", adminPromptRoutes());
  app.route("/", adminSystemRoutes());
  app.route("/", ragDocumentRoutes());
  app.route("/", monitoringRoutes());
  app.route("/", duplicateRoutes());
  app.route("/", searchRoutes());
  app.route("/", agentRunRoutes());
  app.route("/", ragSearchRoutes());
  app.route("/", scrapingRoutes());
  app.route("/", imageRoutes());
  app.route("/", clipRoutes());
  app.route("/", aiServiceRoutes());
  app.route("/", llmRoutes());

  app.get("/health", (c) =>
    c.json({
      status: "healthy",
      service: "ai-backend",
      embedding_provider: cfg.embeddings.name,
      timestamp: new Date().toISOString(),
    }));
  serveApiDocs(app, API_INFO);
  runners.set(app, runner);
  return app;
}
