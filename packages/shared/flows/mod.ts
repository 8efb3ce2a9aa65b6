/**
 * The flow engine (spec "Flow engine"): a graph of nodes validated on save (graph.ts), run by a
 * walker (engine.ts) that per node resolves templates (template.ts) -> evaluates conditions
 * (conditions.ts) or acts (actions.ts) -> records a step; runs are opened and closed in
 * flow_runs (runs.ts). Around it: save-flow (save.ts), cron slots (schedule.ts), the scheduler's
 * claim onto the flow_runs queue (scheduler.ts) and the worker that runs it (worker.ts), events (events.ts), webhook signatures (signature.ts).
 */
export * from "./graph.ts";
export * from "./template.ts";
export * from "./conditions.ts";
export * from "./engine.ts";
export * from "./clock.ts";
export * from "./actions.ts";
export * from "./runs.ts";
export * from "./save.ts";
export { advance, nextSlot, validTimezone } from "../scheduling/cron.ts";
export * from "./scheduler.ts";
export * from "./events.ts";
export * from "./signature.ts";
export * from "./schemas.ts";
export * from "./webhook.ts";
export * from "./worker.ts";
