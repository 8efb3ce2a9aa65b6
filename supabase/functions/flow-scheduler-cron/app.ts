/**
 * POST /functions/v1/flow-scheduler-cron (spec "Flow engine", Limits "Flow scheduler"): called
 * every minute by pg_cron through pg_net with the service-role key from Vault (migration
 * 20260205000120_flow_scheduler_cron.sql); anyone else is refused (anon 401, users 403). Claims
 * the due cron flows (one run per flow per slot, however many calls overlap), advances their
 * next_run_at and runs them. Domain: packages/shared/flows/scheduler.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { caller, serviceDb } from "@shared/auth/context.ts";
import { flowClock, runScheduler } from "@shared/flows/mod.ts";
import type { MiddlewareHandler } from "hono";

const serviceOnly: MiddlewareHandler = async (c, next) => {
  const who = caller(c).kind;
  if (who === "anon") throw HttpError.unauthorized("The service-role key is required");
  if (who !== "service") {
    throw HttpError.forbidden("Only the scheduler (service role) may call this function");
  }
  await next();
};

const app = createFunctionApp("flow-scheduler-cron");
app.use("*", serviceOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Flow engine"],
    summary: "Claim and run the due cron flows",
    responses: {
      ...okJson("{success, claimed, swept, runs: [{run_id, flow_id, status, error_message}]}"),
      ...errorResponses,
    },
  }),
  async (c) => c.json({ success: true, ...await runScheduler(serviceDb(c), flowClock()) }, 200),
);

export default app;
