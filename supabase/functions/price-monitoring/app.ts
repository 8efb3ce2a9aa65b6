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
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { db, requireUser, serviceDb, serviceRoleOnly, WRITER_ROLES } from "@shared/auth/context.ts";
import { workspaceScope } from "@shared/auth/scope.ts";
import {
  monitoredProduct,
  PriceMonitoringRequest,
  runMonitoringAction,
  runScheduledChecks,
} from "@shared/monitoring/mod.ts";

const tags = ["Price monitoring"];
const app = createFunctionApp("price-monitoring");

app.use("/scheduled", serviceRoleOnly);

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
    requireUser(c);
    const req = c.req.valid("json");
    const product = await monitoredProduct(db(c), req.productId);
    const s = req.action === "get_status"
      ? await workspaceScope(c, product.workspace_id, null)
      : await workspaceScope(c, product.workspace_id, WRITER_ROLES, "Price monitoring");
    return c.json(await runMonitoringAction(s, product, req), 200);
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
