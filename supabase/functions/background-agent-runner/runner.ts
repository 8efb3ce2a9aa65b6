/**
 * background-agent-runner's request stages (the route table is app.ts): who (a member with a
 * writer role in the agent's workspace, from the JWT and the database; or the service role) ->
 * which run (a new one, or the caller's pending run_id claimed) -> dispatch (executed here, or
 * handed to the AI backend for delegated agents) -> the spec's response.
 */
import type { Context } from "hono";
import { z } from "@hono/zod-openapi";
import { runInBackground } from "@shared/http/background.ts";
import {
  db,
  requireAuthenticated,
  requireWorkspaceRole,
  serviceDb,
  WRITER_ROLES,
} from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import { env, supabaseEnv } from "@shared/env.ts";
import { llmFromEnv } from "@shared/llm/mod.ts";
import {
  agentKind,
  claimPendingRun,
  dispatchRun,
  enqueueRuns,
  loadAgent,
  loadRun,
  openRun,
  parseInput,
  type RunDeps,
  type RunOutcome,
  startPendingRuns,
  type TriggeredBy,
  TRIGGERS,
  USER_TRIGGERS,
} from "@shared/background_agents/mod.ts";

export const RunRequest = z.object({
  agent_id: z.uuid(),
  run_id: z.uuid().optional().meta({ description: "Start (resume) this pending run of the agent" }),
  input_data: z.record(z.string(), z.unknown()).optional()
    .meta({
      description: "Overrides the agent's config for this run; checked against the type's input schema",
    }),
  triggered_by: z.enum(TRIGGERS).optional()
    .meta({ description: "Users: manual (default), api or event. cron and chain: the service role only" }),
}).meta({ id: "BackgroundAgentRunRequest" });
export type RunRequest = z.infer<typeof RunRequest>;

/** Keeps background work alive after the response, up to the wall clock (EdgeRuntime.waitUntil). */
function background(work: Promise<unknown>): void {
  runInBackground("background-agent-runner: background runs", work);
}

/** How runs are executed from this function: delegated agents go to the AI backend. */
// deno-lint-ignore no-explicit-any
export function runDeps(c: Context<any>): RunDeps {
  const key = supabaseEnv().serviceRoleKey;
  const deps: RunDeps = {
    service: serviceDb(c),
    async delegate(runId) {
      const backend = env("AI_BACKEND_URL");
      if (!backend) throw new Error("AI_BACKEND_URL is not configured");
      const res = await fetch(`${backend}/api/agent-runs/${runId}/execute`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, apikey: key },
      });
      const text = await res.text();
      if (res.status !== 202) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
    },
    startChained: (runs) => background(startPendingRuns(deps, runs.map((r) => r.id))),
    llm: () => llmFromEnv(),
  };
  return deps;
}

/** The queue worker's: chained runs go on the queue, not into this request's background. */
// deno-lint-ignore no-explicit-any
export function workerDeps(c: Context<any>): RunDeps {
  const deps = runDeps(c);
  return {
    ...deps,
    startChained: (runs) => background(enqueueRuns(deps.service, runs.map((r) => r.id))),
  };
}

// deno-lint-ignore no-explicit-any
export async function runAgent(c: Context<any>, body: RunRequest): Promise<RunOutcome> {
  const who = requireAuthenticated(c);
  const service = serviceDb(c);
  const reader = who.kind === "service" ? service : db(c);
  const agent = await loadAgent(reader, body.agent_id);
  if (!agent) throw DomainError.notFound("Agent not found");
  if (who.kind === "user") {
    await requireWorkspaceRole(c, agent.workspace_id, WRITER_ROLES, "Running an agent");
  }
  const triggeredBy: TriggeredBy = body.triggered_by ?? (who.kind === "user" ? "manual" : "api");
  if (who.kind === "user" && !(USER_TRIGGERS as readonly string[]).includes(triggeredBy)) {
    throw DomainError.forbidden(`triggered_by ${triggeredBy} is reserved for the platform (service role)`);
  }
  if (!agent.enabled) throw DomainError.conflict("The agent is disabled", undefined, "agent_disabled");
  const kind = agentKind(agent.agent_type);
  let run;
  if (body.run_id) {
    if (body.input_data !== undefined) {
      throw DomainError.invalid("input_data cannot be given with run_id: a pending run keeps its own input");
    }
    const existing = await loadRun(reader, body.run_id);
    if (!existing || existing.agent_id !== agent.id) {
      throw DomainError.notFound("Run not found for this agent");
    }
    run = await claimPendingRun(service, body.run_id);
    if (!run) {
      const now = await loadRun(service, body.run_id);
      throw DomainError.conflict(
        `The run is ${now?.status ?? "gone"}, not pending`,
        undefined,
        "run_not_pending",
      );
    }
  } else {
    // Refused before anything is written.
    parseInput(kind, agent.config ?? {}, body.input_data ?? {});
    run = await openRun(service, agent, {
      triggeredBy,
      userId: who.userId,
      input: body.input_data ?? {},
    });
  }
  return dispatchRun(runDeps(c), agent, run);
}

/** The spec's response for each outcome. */
export function runResponse(o: RunOutcome) {
  if (o.status === "processing") {
    return {
      success: true,
      run_id: o.run_id,
      status: o.status,
      delegated_to_python: true,
      duration_ms: o.duration_ms,
    };
  }
  if (o.status === "completed") {
    return {
      success: true,
      run_id: o.run_id,
      status: o.status,
      duration_ms: o.duration_ms,
      output: o.output,
      chained_run_ids: o.chained_run_ids,
    };
  }
  return {
    success: false,
    run_id: o.run_id,
    status: o.status,
    duration_ms: o.duration_ms,
    error: o.error,
    error_code: o.error_code,
    failed_step: o.failed_step ?? null,
  };
}
