/**
 * Background agents (spec "Background agents"): the catalog of agent types, runs with ordered
 * logs, chains, credits, the scheduler tick that queues due runs and the worker that runs them.
 * background-agent-runner (edge function) and the AI backend's /api/agent-runs route call these;
 * no HTTP here.
 */
export * from "./types.ts";
export { agentKind, CATALOG, catalogView, parseInput } from "./catalog.ts";
export { RunLogger } from "./log.ts";
export {
  claimPendingRun,
  dispatchRun,
  errorMessage,
  executeRun,
  loadAgent,
  loadRun,
  MAX_CHAIN_DEPTH,
  openRun,
  type RunDeps,
  type RunOutcome,
  startClaimedRun,
  startPendingRuns,
} from "./runs.ts";
export {
  AGENT_LEASE_SECONDS,
  AGENT_RUN_QUEUE,
  AGENT_SLICE_MS,
  type AgentWorkerOptions,
  enqueueRuns,
  runAgentWorker,
} from "./worker.ts";
export { PENDING_GRACE_SECONDS, STALE_AFTER_MS, tick, type TickOutcome } from "./scheduler.ts";
export { CREDITS_PER_PRODUCT } from "./kinds/catalog_description_writer.ts";
