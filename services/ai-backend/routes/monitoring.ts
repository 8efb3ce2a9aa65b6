/**
 * Health and monitoring with real figures: whether the database answers (and how fast), what
 * the knowledge base and the upload store hold, and which embedding provider is in use.
 * Platform-wide figures (supabase-status, storage-estimate) are for platform admins. Domain:
 * @shared/admin/health.ts and @shared/admin/metrics.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { requirePlatformRole, serviceDb } from "@shared/auth/context.ts";
import { backendHealth, embeddingProviderInfo } from "@shared/admin/health.ts";
import { platformStatus, storageEstimate } from "@shared/admin/metrics.ts";
import { router } from "../env.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { clipOf } from "../deps.ts";

const started = Date.now();

export function monitoringRoutes() {
  const app = router();
  const tags = ["Monitoring"];

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/monitoring/health",
      tags,
      summary: "Backend health: database reachable, embedding provider, uptime",
      responses: { ...okJson("Health report"), ...okJson("Database unreachable", 503), ...errorResponses },
    }),
    async (c) => {
      const body = await backendHealth(serviceDb(c), c.get("cfg").embeddings, started);
      return body.database.reachable ? c.json(body, 200) : c.json(body, 503);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/monitoring/supabase-status",
      tags,
      summary: "Platform status (platform admins): database reachability and row counts",
      responses: { ...okJson("Status report"), ...errorResponses },
    }),
    async (c) => {
      await requirePlatformRole(c, ["admin"]);
      return c.json(await platformStatus(serviceDb(c)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/monitoring/storage-estimate",
      tags,
      summary: "Bytes held by the knowledge base (text, embeddings) and uploaded documents (platform admins)",
      responses: { ...okJson("Storage estimate"), ...errorResponses },
    }),
    async (c) => {
      await requirePlatformRole(c, ["admin"]);
      return c.json(await storageEstimate(serviceDb(c)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/embeddings/health",
      tags: ["Embeddings"],
      summary: "The text embedding provider in use and the CLIP provider's state (a remote one is probed)",
      responses: { ...okJson("Provider report"), ...errorResponses },
    }),
    async (c) => {
      const clip = await clipOf(c).health();
      return c.json({
        status: clip.status === "healthy" ? "healthy" : "degraded",
        text_embeddings: embeddingProviderInfo(c.get("cfg").embeddings),
        clip: { configured: true, ...clip },
      }, 200);
    },
  );

  return app;
}
