/**
 * /functions/v1/background-agent-runner (spec "Background agents"):
 * - GET ?catalog=1 -> {catalog: [{id, name, description, input_schema, delegated, cost}]};
 * - POST {agent_id, run_id?, input_data?, triggered_by?} runs an agent: 200 {success, run_id,
 *   status: completed, duration_ms, output, chained_run_ids}; for delegated agents {success,
 *   run_id, status: processing, delegated_to_python: true, duration_ms} (the AI backend finishes
 *   it; watch agent_runs / agent_run_logs); a failed run is 200 {success: false, run_id, status:
 *   failed, error, error_code, failed_step}. 400 bad input, 401 anon, 403 viewer or reserved
 *   triggered_by, 404 agent or run not visible, 409 agent disabled or run not pending;
 * - POST /cron: the scheduler tick (service role only; pg_cron every minute): claims the due
 *   agents and queues their runs, runs nothing: {success, swept, armed, claimed, resumed};
 * - POST /worker: runs queued runs for at most a slice (~60 s of work; service role only; pg_cron
 *   every minute and kicked by the tick): {success, read, ran, skipped, released, errors,
 *   duration_ms, runs}.
 * Callers: a user with the owner, admin or member role in the agent's workspace, or the service
 * role. Domain: packages/shared/background_agents.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb, serviceRoleOnly, signedIn } from "@shared/auth/context.ts";
import { catalogView, runAgentWorker, tick } from "@shared/background_agents/mod.ts";
import { runAgent, RunRequest, runResponse, workerDeps } from "./runner.ts";

const MAX_BODY_BYTES = 256 * 1024;
const tags = ["Background agents"];
const app = createFunctionApp("background-agent-runner");
app.use("*", signedIn);

app.openapi(
  createRoute({
    method: "get",
    path: "/",
    tags,
    summary: "The catalog of agent types",
    request: { query: z.object({ catalog: z.literal("1").meta({ description: "Must be 1" }) }) },
    responses: {
      ...okJson("{catalog: [{id, name, description, input_schema, delegated, cost}]}"),
      ...errorResponses,
    },
  }),
  (c) => c.json({ catalog: catalogView() }, 200),
);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "Run an agent now, or start one of its pending runs",
    middleware: limitBody(MAX_BODY_BYTES),
    request: jsonBody(RunRequest),
    responses: {
      ...okJson("{success, run_id, status, duration_ms, output} or the delegated or failed form"),
      ...errorResponses,
      409: errorResponse("The agent is disabled, or the run is not pending"),
    },
  }),
  async (c) => c.json(runResponse(await runAgent(c, c.req.valid("json"))), 200),
);

app.openapi(
  createRoute({
    method: "post",
    path: "/cron",
    tags,
    summary: "Scheduler tick: sweep, arm, claim the due agents and queue their runs (service role)",
    middleware: serviceRoleOnly,
    responses: { ...okJson("{success, swept, armed, claimed, resumed}"), ...errorResponses },
  }),
  async (c) => c.json({ success: true, ...await tick(serviceDb(c), new Date()) }, 200),
);

app.openapi(
  createRoute({
    method: "post",
    path: "/worker",
    tags,
    summary: "Run the queued agent runs for one slice (service role)",
    middleware: serviceRoleOnly,
    responses: {
      ...okJson("{success, read, ran, skipped, released, errors, duration_ms, runs}"),
      ...errorResponses,
    },
  }),
  async (c) => {
    const r = await runAgentWorker(workerDeps(c));
    const runs = r.ran.filter((x) => x !== null);
    return c.json({
      success: true,
      read: r.read,
      ran: runs.length,
      skipped: r.skipped,
      released: r.released,
      errors: r.errors,
      duration_ms: r.durationMs,
      runs,
    }, 200);
  },
);

export default app;
