/**
 * Delegated background-agent runs (spec "Background agents": `delegated_to_python`).
 * background-agent-runner hands a run of a delegated agent type (the duplicate scan) here after
 * it authorised the caller and moved the run to `processing`:
 *
 *   POST /api/agent-runs/{run_id}/execute   service role only; 202 {run_id, status: processing,
 *                                           accepted: true}; the run then executes in the
 *                                           background, writing agent_run_logs as it goes and
 *                                           closing the run completed or failed (with its step).
 *
 * Chained runs of a run finished here go back to background-agent-runner (service role, run_id),
 * so every agent type runs where it is meant to. A run this process never finishes (a crash) is
 * failed by the scheduler's sweep.
 */
import { createRoute } from "@hono/zod-openapi";
import { HttpError } from "@shared/http/errors.ts";
import { caller, serviceDb } from "@shared/auth/context.ts";
import { errorResponse, errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { executeRun, loadAgent, loadRun, type RunDeps } from "@shared/background_agents/mod.ts";
import { llmFromEnv } from "@shared/llm/mod.ts";
import { type BackendConfig, settingsOf } from "../config.ts";
import { router } from "../env.ts";

const tags = ["Background agents"];

/** The run's dependencies in this process: chained runs go back to background-agent-runner. */
function backendDeps(cfg: BackendConfig, service: RunDeps["service"]): RunDeps {
  const secrets = settingsOf(cfg);
  const key = cfg.supabase.serviceRoleKey;
  return {
    service,
    delegate: null,
    startChained: (runs) => {
      for (const { id: runId, agent_id } of runs) {
        // Each chained run goes back to the runner function, which executes or delegates it.
        fetch(`${cfg.supabase.url}/functions/v1/background-agent-runner`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, apikey: key, "content-type": "application/json" },
          body: JSON.stringify({ agent_id, run_id: runId }),
        }).then(async (res) => {
          const text = await res.text();
          if (!res.ok) {
            console.error(`agent-runs: chained run ${runId} was not started: ${res.status} ${text}`);
          }
        }).catch((err) => console.error(`agent-runs: chained run ${runId} was not started`, err));
      }
    },
    llm: () => llmFromEnv(secrets),
  };
}

export function agentRunRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/agent-runs/{run_id}/execute",
      tags,
      summary: "Execute a delegated background-agent run in the background (service role)",
      request: { params: idParam("run_id") },
      responses: {
        ...okJson("{run_id, status: processing, accepted: true}", 202),
        ...errorResponses,
        409: errorResponse("The run is not processing (already finished, or not handed over)"),
      },
    }),
    async (c) => {
      if (caller(c).kind !== "service") {
        throw HttpError.forbidden("Delegated runs are handed over by background-agent-runner (service role)");
      }
      const { run_id } = c.req.valid("param");
      const service = serviceDb(c);
      const run = await loadRun(service, run_id);
      if (!run) throw HttpError.notFound("Run not found");
      if (run.status !== "processing") throw HttpError.conflict(`The run is ${run.status}, not processing`);
      const agent = await loadAgent(service, run.agent_id);
      if (!agent) throw HttpError.notFound("Agent not found");
      const deps = backendDeps(c.get("cfg"), service);
      executeRun(deps, agent, run).catch((err) => console.error(`agent-runs: run ${run_id} crashed`, err));
      return c.json({ run_id, status: "processing", accepted: true }, 202);
    },
  );

  return app;
}
