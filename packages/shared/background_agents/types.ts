/**
 * The records of background agents (migration 20260212000100_background_agents.sql) and what an
 * agent kind gets to do its work. No HTTP here.
 */
import type { z } from "zod";
import type { Llm } from "../llm/mod.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import type { RunLogger } from "./log.ts";

export const RUN_STATUSES = ["pending", "running", "processing", "completed", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TRIGGERS = ["cron", "event", "manual", "chain", "api"] as const;
export type TriggeredBy = (typeof TRIGGERS)[number];
/** What a user may name as triggered_by; cron and chain are the platform's. */
export const USER_TRIGGERS = ["manual", "api", "event"] as const satisfies readonly TriggeredBy[];

export interface AgentRow {
  id: string;
  workspace_id: string;
  agent_type: string;
  name: string;
  config: Record<string, unknown>;
  enabled: boolean;
  schedule: string | null;
  timezone: string;
  next_run_at: string | null;
  chain_to: string[];
  created_by: string | null;
}

export const AGENT_COLUMNS =
  "id, workspace_id, agent_type, name, config, enabled, schedule, timezone, next_run_at, chain_to, created_by";

export interface RunRow {
  id: string;
  agent_id: string;
  workspace_id: string;
  agent_type: string;
  status: RunStatus;
  triggered_by: TriggeredBy;
  triggered_by_user: string | null;
  input_data: Record<string, unknown>;
  parent_run_id: string | null;
  chain_depth: number;
  created_at: string;
  started_at: string | null;
}

export const RUN_COLUMNS =
  "id, agent_id, workspace_id, agent_type, status, triggered_by, triggered_by_user, input_data, parent_run_id, " +
  "chain_depth, created_at, started_at";

/** What an agent kind's run() gets. */
export interface AgentContext<I> {
  /** The service client: the runner authorised the caller; kinds scope every query to the workspace. */
  service: SupabaseClient;
  agent: AgentRow;
  run: RunRow;
  input: I;
  log: RunLogger;
  /** Runs `fn` as the named step: a failure inside it is recorded with this step's name. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Debits `credits` from the user the run bills (the caller, or the agent's creator for cron and
   * chain runs) through the credit ledger; the runner refunds it in full if the run then fails.
   */
  charge(credits: number, what: string): Promise<void>;
  /** The model layer's client (packages/shared/llm): model_unavailable / model_bad_output on failure. */
  llm(): Llm;
  now: Date;
}

/** One entry of the catalog (GET ?catalog=1 shows all but `run`). */
export interface AgentKind<S extends z.ZodType = z.ZodType> {
  id: string;
  name: string;
  description: string;
  input: S;
  /** Run by the AI backend (background-agent-runner answers `processing`, delegated_to_python). */
  delegated: boolean;
  /** Credit price in words (and `credits_per_unit`), or null when the agent is free. */
  cost: { credits_per_unit: number; unit: string } | null;
  run(ctx: AgentContext<z.output<S>>): Promise<Record<string, unknown>>;
}
