/**
 * Background agents (spec "Background agents"): the catalog of agent types, runs with ordered
 * logs, chains, credits, and the scheduler tick. background-agent-runner (edge function) and the
 * AI backend's /api/agent-runs route call these; no HTTP here.
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
  startPendingRuns,
} from "./runs.ts";
export { PENDING_GRACE_SECONDS, STALE_RUN_MINUTES, tick, type TickOutcome } from "./scheduler.ts";
export { CREDITS_PER_PRODUCT } from "./kinds/catalog_description_writer.ts";
