/**
 * /functions/v1/flow-scheduler-cron (spec "Flow engine", Limits "Flow scheduler"), service role
 * only (anon 401, users 403):
 * - POST /: the tick, every minute from pg_cron through pg_net with the service-role key from
 *   Vault (migration 20260205000120). Claims the due cron flows (one run per flow per slot,
 *   however many calls overlap), puts each run on the `flow_runs` queue, kicks the worker and
 *   advances next_run_at; runs nothing. Answer {success, swept, claimed}.
 * - POST /worker: runs queued flows for at most a slice (~25 s of work), every minute from pg_cron
 *   and kicked by the tick (migration 20260221012100). Answer {success, read, ran, skipped,
 *   released, errors, duration_ms, runs: [{run_id, flow_id, status, error_message}]}.
 * Domain: packages/shared/flows/scheduler.ts and worker.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { serviceDb, serviceRoleOnly } from "@shared/auth/context.ts";
import { flowClock, runFlowWorker, runScheduler } from "@shared/flows/mod.ts";

const app = createFunctionApp("flow-scheduler-cron");
app.use("*", serviceRoleOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Flow engine"],
    summary: "Claim the due cron flows and queue their runs",
    responses: { ...okJson("{success, swept, claimed}"), ...errorResponses },
  }),
  async (c) => c.json({ success: true, ...await runScheduler(serviceDb(c), flowClock()) }, 200),
);

app.openapi(
  createRoute({
    method: "post",
    path: "/worker",
    tags: ["Flow engine"],
    summary: "Run the queued flow runs for one slice",
    responses: {
      ...okJson("{success, read, ran, skipped, released, errors, duration_ms, runs}"),
      ...errorResponses,
    },
  }),
  async (c) => {
    const r = await runFlowWorker({ service: serviceDb(c), clock: flowClock() });
    return c.json({
      success: true,
      read: r.read,
      ran: r.ran.length,
      skipped: r.skipped,
      released: r.released,
      errors: r.errors,
      duration_ms: r.durationMs,
      runs: r.ran,
    }, 200);
  },
);

export default app;
