/**
 * /functions/v1/price-monitoring (spec "Price monitoring"):
 * - POST / {action, productId, monitoringSettings {frequency, enabled}} as a signed-in user:
 *   - start_monitoring (owner, admin, member) -> {success, message, monitoring}
 *   - stop_monitoring (owner, admin, member) -> {success, message, monitoring (null if never on)}
 *   - check_now (owner, admin, member; 0.5 credits per source whose page was read, debited
 *     first, unread sources refunded) -> {success, message, jobId, results {sourcesChecked,
 *     pricesFound, creditsConsumed, creditsRefunded, priceChanges, sources, changes}}
 *   - get_status (any member) -> {success, monitoring, latestPrices[], recentJobs[], sources[]}
 *   A product the caller cannot see is 404; a viewer asking for a write is 403; no active
 *   sources is 422 no_sources; a short balance is 402.
 * - POST /scheduled: the service role only (pg_cron via pg_net, migration
 *   20260210000400_price_monitoring_cron.sql): runs the due scheduled checks.
 * Competitor sources themselves are rows of competitor_sources, edited through /rest/v1.
 * Domain: packages/shared/monitoring.
 */
import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  caller,
  db,
  requireUser,
  requireWorkspaceRole,
  serviceDb,
  WRITER_ROLES,
} from "@shared/auth/context.ts";
import {
  monitoringStatus,
  PriceMonitoringRequest,
  runCheck,
  runScheduledChecks,
  startMonitoring,
  stopMonitoring,
} from "@shared/monitoring/mod.ts";

const tags = ["Price monitoring"];
const app = createFunctionApp("price-monitoring");

const serviceOnly: MiddlewareHandler = async (c, next) => {
  const who = caller(c).kind;
  if (who === "anon") throw HttpError.unauthorized("The service-role key is required");
  if (who !== "service") throw HttpError.forbidden("Only the scheduler (service role) may call this route");
  await next();
};
app.use("/scheduled", serviceOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "start_monitoring, stop_monitoring, check_now or get_status for one product",
    request: jsonBody(PriceMonitoringRequest),
    responses: {
      ...okJson("The action's result ({success, ...})"),
      ...errorResponses,
      402: errorResponse("Insufficient credits for check_now"),
      422: errorResponse("No active competitor sources to check"),
    },
  }),
  async (c) => {
    const who = requireUser(c);
    const { action, productId, monitoringSettings } = c.req.valid("json");
    const { data: product, error } = await db(c).from("products").select("id, workspace_id, name")
      .eq("id", productId).maybeSingle();
    if (error) throw new HttpError(500, "db_error", `Reading the product: ${error.message}`);
    if (!product) throw HttpError.notFound(`Product ${productId} not found`);
    const ws = product.workspace_id as string;
    const service = serviceDb(c);
    if (action === "get_status") {
      await requireWorkspaceRole(c, ws, null);
      return c.json({ success: true, ...await monitoringStatus(service, productId) }, 200);
    }
    await requireWorkspaceRole(c, ws, WRITER_ROLES, "Price monitoring");
    if (action === "start_monitoring") {
      const s = monitoringSettings ?? { frequency: "daily" as const, enabled: true };
      const monitoring = await startMonitoring(service, {
        workspaceId: ws,
        productId,
        userId: who.userId,
        ...s,
      });
      const message = !monitoring.enabled
        ? `Monitoring of ${product.name} is saved but disabled`
        : monitoring.frequency === "on_demand"
        ? `Monitoring of ${product.name} is on demand: use check_now`
        : `Monitoring ${product.name} ${monitoring.frequency}`;
      return c.json({ success: true, message, monitoring }, 200);
    }
    if (action === "stop_monitoring") {
      const monitoring = await stopMonitoring(service, productId);
      const message = monitoring
        ? `Monitoring of ${product.name} stopped`
        : `${product.name} was not monitored`;
      return c.json({ success: true, message, monitoring }, 200);
    }
    const out = await runCheck(service, {
      workspaceId: ws,
      productId,
      userId: who.userId,
      trigger: "manual",
    });
    const { jobId, ...results } = out;
    const message = `Checked ${out.sourcesChecked} source(s): ${out.pricesFound} price(s) found, ` +
      `${out.priceChanges} change(s)`;
    return c.json({ success: true, message, jobId, results }, 200);
  },
);

app.openapi(
  createRoute({
    method: "post",
    path: "/scheduled",
    tags,
    summary: "Run the due scheduled checks (service role; called by pg_cron)",
    responses: {
      ...okJson("{success, swept, claimed, checks: [{productId, status, jobId, error}]}"),
      ...errorResponses,
    },
  }),
  async (c) => c.json({ success: true, ...await runScheduledChecks(serviceDb(c)) }, 200),
);

export default app;
