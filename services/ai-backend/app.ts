/**
 * The AI backend (/api/...): a Hono app (OpenAPIHono, so the zod schemas that validate requests
 * also describe them). Public: /health, /docs, /redoc, /openapi.json. Everything under /api
 * needs a user JWT or the service-role key (401 otherwise) and acts as the caller.
 *
 *   createAiBackendApp(cfg).fetch   - served by main.ts in production and by the local platform
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { errorHandler } from "@shared/http/errors.ts";
import type { BackendConfig } from "./config.ts";
import { type BackendEnv, callerMiddleware, requireCaller } from "./context.ts";
import { docsHtml, openApiDocument, redocHtml } from "./openapi.ts";
import { kbDocumentRoutes } from "./routes/kb_documents.ts";
import { kbCatalogRoutes } from "./routes/kb_catalog.ts";
import { kbSearchRoutes } from "./routes/kb_search.ts";
import { ragJobRoutes } from "./routes/rag_jobs.ts";
import { monitoringRoutes } from "./routes/monitoring.ts";
import { duplicateRoutes } from "./routes/duplicates.ts";
import { unbuiltRoutes } from "./routes/unbuilt.ts";

export type { BackendConfig } from "./config.ts";

export function createAiBackendApp(cfg: BackendConfig): OpenAPIHono<BackendEnv> {
  const app = new OpenAPIHono<BackendEnv>();
  app.use("*", async (c, next) => {
    const id = c.req.header("x-request-id") ?? crypto.randomUUID();
    await next();
    c.res.headers.set("x-request-id", id);
  });
  app.use("*", callerMiddleware(cfg));
  app.use("/api/*", requireCaller);
  app.onError(errorHandler);
  app.notFound((c) =>
    c.json({ error: `No route for ${c.req.method} ${new URL(c.req.url).pathname}`, code: "no_route" }, 404)
  );

  // Real routes first: the 501 routes of later groups must never shadow them.
  app.route("/", kbDocumentRoutes());
  app.route("/", kbCatalogRoutes());
  app.route("/", kbSearchRoutes());
  app.route("/", ragJobRoutes());
  app.route("/", monitoringRoutes());
  app.route("/", duplicateRoutes());
  app.route("/", unbuiltRoutes());

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A user JWT from /auth/v1/token, or the service-role key",
  });
  let doc: ReturnType<typeof openApiDocument> | null = null;
  const spec = () => (doc ??= openApiDocument(app));

  app.get("/health", (c) =>
    c.json({
      status: "healthy",
      service: "ai-backend",
      embedding_provider: cfg.embeddings.name,
      timestamp: new Date().toISOString(),
    }));
  app.get("/openapi.json", (c) => c.json(spec()));
  app.get("/docs", (c) => c.html(docsHtml(spec())));
  app.get("/redoc", (c) => c.html(redocHtml(spec())));
  return app;
}
