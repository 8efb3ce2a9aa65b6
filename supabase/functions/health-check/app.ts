/** GET /functions/v1/health-check (verify_jwt on): {status, timestamp}. */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { okJson } from "@shared/http/openapi.ts";

const Health = z.object({
  status: z.literal("healthy"),
  timestamp: z.string().meta({ format: "date-time" }),
}).meta({ id: "Health" });

const app = createFunctionApp("health-check");

app.openapi(
  createRoute({
    method: "get",
    path: "/",
    tags: ["Health"],
    summary: "Liveness: the function runtime answers",
    responses: {
      ...okJson("Healthy", 200, Health),
      401: { description: "No JWT (the function is deployed with verify_jwt)" },
    },
  }),
  (c) => c.json({ status: "healthy" as const, timestamp: new Date().toISOString() }, 200),
);

export default app;
