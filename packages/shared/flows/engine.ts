/**
 * The walker: runs a validated flow, node by node, and records a step per node. Per node the
 * stages are resolve templates (template.ts) -> evaluate the node (conditions.ts, or the action
 * executor) -> record the step.
 *
 * Order and joins (deterministic): a node runs when every parent has settled (completed, skipped
 * or failed), in the order nodes become ready, ties broken by the order of the edges in the
 * graph JSON. An edge is taken when its source completed and, for if_else and switch, its
 * handle is the branch chosen (a filter's edges are taken when the filter passes). A node none
 * of whose incoming edges was taken is skipped, and that propagates (dead-path elimination); a
 * node with several parents runs once, after all of them. A failed node's edges are not taken;
 * other branches go on; the run ends failed, naming the first node that failed.
 */
import { DomainError } from "../errors.ts";
import type { Clock } from "./clock.ts";
import { evaluateCondition, evaluateGroup, switchBranch } from "./conditions.ts";
import {
  type Condition,
  type ConditionGroup,
  type FlowEdge,
  type FlowNode,
  isTrigger,
  MAX_DELAY_SECONDS,
  type Operator,
  type ValidFlow,
} from "./graph.ts";
import { fieldValue, resolveTemplates, type TemplateScope } from "./template.ts";

export type StepStatus = "completed" | "skipped" | "failed";

export interface FlowStep {
  node_id: string;
  node_type: string;
  status: StepStatus;
  started_at: string;
  duration_ms: number;
  /** The node's configuration after templates were resolved (secrets in headers redacted). */
  resolved_config?: unknown;
  output?: unknown;
  /** if_else: true/false; switch: case_<i>/default; filter: pass/fail. */
  branch?: string;
  error?: string;
  /** Templates that stayed literal. */
  unresolved?: string[];
}

export interface RunResult {
  status: "completed" | "failed";
  steps: FlowStep[];
  error_message: string | null;
  error_node_id: string | null;
  duration_ms: number;
}

/** Runs an action node with its resolved config; returns its output. */
export type ActionExecutor = (node: FlowNode, config: Record<string, unknown>) => Promise<unknown>;

export interface RunOptions {
  triggerData: unknown;
  execute: ActionExecutor;
  clock: Clock;
  /** Dry run: delays are not slept (the step says how long they would be). */
  dryRun?: boolean;
  /** The run's deadline on `clock` (default MAX_RUN_MS); nodes reached after it fail. */
  deadlineMs?: number;
}

/**
 * A run's time budget, delays included: well under the edge-function wall clock (150 s), so a
 * chain of 30 s delays cannot outlive the function that runs it.
 */
export const MAX_RUN_MS = 120_000;

/** Resolves the `value` of every condition in a condition node's config (fields are read later). */
function resolveValues(v: unknown, scope: TemplateScope, unresolved: string[]): unknown {
  if (Array.isArray(v)) return v.map((x) => resolveValues(x, scope, unresolved));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "value") {
        const r = resolveTemplates(x, scope);
        unresolved.push(...r.unresolved.filter((u) => !unresolved.includes(u)));
        out[k] = r.value;
      } else out[k] = resolveValues(x, scope, unresolved);
    }
    return out;
  }
  return v;
}

interface Evaluation {
  output: unknown;
  branch?: string;
  resolved: unknown;
  unresolved: string[];
}

async function evaluateNode(
  node: FlowNode,
  config: Record<string, unknown>,
  scope: TemplateScope,
  opts: RunOptions,
): Promise<Evaluation> {
  const unresolved: string[] = [];
  const read = (field: string) => {
    const r = fieldValue(field, scope);
    for (const u of r.unresolved) if (!unresolved.includes(u)) unresolved.push(u);
    return r.value;
  };
  switch (node.type) {
    case "if_else": {
      const c = resolveValues(config, scope, unresolved) as Condition;
      const result = evaluateCondition(c, read);
      return { output: { result, value: read(c.field) }, branch: String(result), resolved: c, unresolved };
    }
    case "switch": {
      const c = resolveValues(config, scope, unresolved) as {
        field: string;
        cases: { operator: Operator; value: unknown }[];
      };
      const value = read(c.field);
      const branch = switchBranch(value, c.cases);
      return { output: { branch, value }, branch, resolved: c, unresolved };
    }
    case "filter": {
      const g = resolveValues(config, scope, unresolved) as ConditionGroup;
      const passed = evaluateGroup(g, read);
      return { output: { passed }, branch: passed ? "pass" : "fail", resolved: g, unresolved };
    }
    case "delay": {
      const requested = config.seconds as number;
      const seconds = Math.min(requested, MAX_DELAY_SECONDS);
      if (!opts.dryRun) await opts.clock.sleep(seconds * 1000);
      return {
        output: { delayed_seconds: seconds, capped: requested > MAX_DELAY_SECONDS, slept: !opts.dryRun },
        resolved: { seconds },
        unresolved,
      };
    }
    default: {
      const r = resolveTemplates(config, scope);
      const output = await opts.execute(node, r.value);
      return { output, resolved: r.value, unresolved: r.unresolved };
    }
  }
}

function taken(edge: FlowEdge, source: FlowNode, step: FlowStep | undefined): boolean {
  if (!step || step.status !== "completed") return false;
  if (source.type === "if_else" || source.type === "switch") return edge.sourceHandle === step.branch;
  if (source.type === "filter") return step.branch === "pass";
  return true;
}

const HIDDEN_HEADERS = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|x-webhook-signature)$/i;
/** What a step stores of a config: header values that carry credentials are redacted. */
function forRecord(node: FlowNode, resolved: unknown): unknown {
  if (node.type !== "http_request" || !resolved || typeof resolved !== "object") return resolved;
  const r = resolved as { headers?: Record<string, string> };
  if (!r.headers) return resolved;
  const headers = Object.fromEntries(
    Object.entries(r.headers).map(([k, v]) => [k, HIDDEN_HEADERS.test(k) ? "[redacted]" : v]),
  );
  return { ...r, headers };
}

export function errorMessage(err: unknown): string {
  if (err instanceof DomainError) return err.message;
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

export async function runFlow(flow: ValidFlow, opts: RunOptions): Promise<RunResult> {
  const { graph } = flow;
  const started = opts.clock.now();
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const incoming = new Map<string, FlowEdge[]>(graph.nodes.map((n) => [n.id, []]));
  const outgoing = new Map<string, FlowEdge[]>(graph.nodes.map((n) => [n.id, []]));
  for (const e of graph.edges) {
    incoming.get(e.target)!.push(e);
    outgoing.get(e.source)!.push(e);
  }
  const pending = new Map(graph.nodes.map((n) => [n.id, incoming.get(n.id)!.length]));
  const stepOf = new Map<string, FlowStep>();
  const outputs = new Map<string, unknown>();
  const scope: TemplateScope = { trigger: { data: opts.triggerData ?? {} }, outputs };
  const steps: FlowStep[] = [];
  const queue = [flow.trigger.id];

  while (queue.length) {
    const id = queue.shift()!;
    const node = nodes.get(id)!;
    const config = flow.configs.get(id)!;
    const t0 = opts.clock.now();
    const step: FlowStep = {
      node_id: id,
      node_type: node.type,
      status: "completed",
      started_at: new Date(t0).toISOString(),
      duration_ms: 0,
    };
    const parents = incoming.get(id)!;
    if (isTrigger(node.type)) {
      step.output = opts.triggerData ?? {};
      step.resolved_config = config;
    } else if (!parents.some((e) => taken(e, nodes.get(e.source)!, stepOf.get(e.source)))) {
      step.status = "skipped";
    } else if (opts.clock.now() - started >= (opts.deadlineMs ?? MAX_RUN_MS)) {
      step.status = "failed";
      step.error = `The run exceeded its ${(opts.deadlineMs ?? MAX_RUN_MS) / 1000} s deadline`;
    } else {
      try {
        const ev = await evaluateNode(node, config, scope, opts);
        step.output = ev.output;
        step.resolved_config = forRecord(node, ev.resolved);
        if (ev.branch !== undefined) step.branch = ev.branch;
        if (ev.unresolved.length) step.unresolved = ev.unresolved;
      } catch (err) {
        step.status = "failed";
        step.error = errorMessage(err);
      }
    }
    step.duration_ms = Math.max(0, opts.clock.now() - t0);
    if (step.status === "completed") outputs.set(id, step.output);
    stepOf.set(id, step);
    steps.push(step);
    for (const e of outgoing.get(id)!) {
      const left = pending.get(e.target)! - 1;
      pending.set(e.target, left);
      if (left === 0) queue.push(e.target);
    }
  }
  const failed = steps.find((s) => s.status === "failed");
  return {
    status: failed ? "failed" : "completed",
    steps,
    error_message: failed ? `Node "${failed.node_id}" failed: ${failed.error}` : null,
    error_node_id: failed?.node_id ?? null,
    duration_ms: Math.max(0, opts.clock.now() - started),
  };
}
