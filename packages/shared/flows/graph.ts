/**
 * Stage 1 of a flow's life, parse and validate (on save and before every run): the graph's
 * shape as zod schemas, then the rules zod cannot state (exactly one trigger, no cycles, every
 * node reachable from the trigger, valid branch handles, known operators). Every error names
 * the node it is about.
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";
import { describeIssues } from "../http/validate.ts";

export const TRIGGER_TYPES = ["manual", "cron", "webhook", "event"] as const;
export const CONDITION_TYPES = ["if_else", "switch", "filter", "delay"] as const;
export const ACTION_TYPES = [
  "send_sms",
  "send_email",
  "http_request",
  "create_notification",
  "send_quote",
] as const;
export const NODE_TYPES = [...TRIGGER_TYPES, ...CONDITION_TYPES, ...ACTION_TYPES] as const;
export const OPERATORS = [
  "equals",
  "not_equals",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "gt",
  "gte",
  "lt",
  "lte",
  "is_empty",
  "is_not_empty",
] as const;

export type TriggerType = typeof TRIGGER_TYPES[number];
export type NodeType = typeof NODE_TYPES[number];
export type Operator = typeof OPERATORS[number];

/** The delay node's cap (spec Limits "Flow delay node"). */
export const MAX_DELAY_SECONDS = 30;
export const MAX_NODES = 100;
export const MAX_GRAPH_BYTES = 256 * 1024;

/** Ids a template may name: no dots (paths), never `trigger` or a prototype key. */
const RESERVED_IDS = new Set(["trigger", "__proto__", "constructor", "prototype"]);
const NodeId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and - only (1 to 64)")
  .refine((id) => !RESERVED_IDS.has(id), "is a reserved name");

const Config = z.record(z.string(), z.unknown());
export const FlowNode = z.object({
  id: NodeId,
  type: z.string(),
  label: z.string().max(200).optional(),
  config: Config.optional(),
  /** Canvas editors keep the config under `data`; `config` wins when both are given. */
  data: Config.optional(),
  position: z.unknown().optional(),
}).transform(({ id, type, label, config, data }) => ({
  id,
  type: type as NodeType,
  label,
  config: (config ?? data ?? {}) as Record<string, unknown>,
}));
export const FlowEdge = z.object({
  id: z.string().max(200).optional(),
  source: NodeId,
  target: NodeId,
  sourceHandle: z.string().max(64).nullish(),
});
export const FlowGraph = z.object({
  nodes: z.array(FlowNode).min(1).max(MAX_NODES),
  edges: z.array(FlowEdge).max(MAX_NODES * 4).default([]),
});
export type FlowNode = z.infer<typeof FlowNode>;
export type FlowEdge = z.infer<typeof FlowEdge>;
export type FlowGraph = z.infer<typeof FlowGraph>;

/** A single condition (if_else, a switch case, a filter entry). */
const ConditionSchema = z.object({
  field: z.string().min(1).max(500),
  operator: z.enum(OPERATORS),
  value: z.unknown().optional(),
});
export type Condition = z.infer<typeof ConditionSchema>;
export interface ConditionGroup {
  logic: "and" | "or";
  conditions: (Condition | ConditionGroup)[];
}
const GroupSchema: z.ZodType<ConditionGroup> = z.lazy(() =>
  z.object({
    logic: z.enum(["and", "or"]).default("and"),
    conditions: z.array(z.union([ConditionSchema, GroupSchema])).min(1).max(50),
  })
);

const Templated = z.string().min(1).max(10_000);
/** Each node type's configuration; strings may hold {{templates}} resolved at run time. */
export const NODE_CONFIGS: Record<NodeType, z.ZodType> = {
  manual: z.object({}).passthrough(),
  cron: z.object({ cron: z.string().min(1).max(100), timezone: z.string().min(1).max(64).default("UTC") }),
  webhook: z.object({ require_signature: z.boolean().default(false) }),
  event: z.object({ event_type: z.string().regex(/^[a-z0-9_.-]{1,100}$/, "lowercase a-z, 0-9, _ . -") }),
  if_else: ConditionSchema,
  switch: z.object({
    field: z.string().min(1).max(500),
    cases: z.array(z.object({ operator: z.enum(OPERATORS).default("equals"), value: z.unknown() }))
      .min(1).max(20),
  }),
  filter: GroupSchema,
  delay: z.object({ seconds: z.number().min(0) }),
  send_sms: z.object({
    to: Templated,
    content: Templated.optional(),
    templateSlug: Templated.optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    channel: z.enum(["sms", "whatsapp"]).default("sms"),
    from: z.string().optional(),
  }).refine((c) => c.content || c.templateSlug, "content or templateSlug is required"),
  send_email: z.object({
    to: z.union([Templated, z.array(Templated).min(1).max(50)]),
    /** Optional, as in email-api: without it, the workspace's default verified domain, else the platform's sender. */
    from: Templated.optional(),
    subject: Templated,
    html: Templated.optional(),
    text: Templated.optional(),
  }).refine((c) => c.html || c.text, "html or text is required"),
  http_request: z.object({
    method: z.enum(["GET", "POST", "PUT", "DELETE"]).default("GET"),
    url: Templated,
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    timeout_ms: z.number().int().min(100).max(15_000).optional(),
  }),
  create_notification: z.object({
    user_id: Templated,
    title: Templated,
    message: z.string().max(10_000).optional(),
    type: z.string().max(50).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
  send_quote: z.object({
    quote_id: Templated,
    to: Templated,
    /** Optional, as for send_email. */
    from: Templated.optional(),
    subject: Templated.optional(),
    message: z.string().max(10_000).optional(),
  }),
};

/** The handles a branching node's outgoing edges may use; null: edges carry no handle. */
export function handlesOf(node: FlowNode): string[] | null {
  if (node.type === "if_else") return ["true", "false"];
  if (node.type === "switch") {
    const cases = (node.config.cases as unknown[] | undefined)?.length ?? 0;
    return [...Array.from({ length: cases }, (_, i) => `case_${i}`), "default"];
  }
  return null;
}

export function isTrigger(t: string): t is TriggerType {
  return (TRIGGER_TYPES as readonly string[]).includes(t);
}

function bad(node: string | null, message: string): DomainError {
  return DomainError.invalid(
    node ? `Node "${node}": ${message}` : message,
    node ? { node_id: node } : undefined,
    "invalid_flow",
  );
}

export interface ValidFlow {
  graph: FlowGraph;
  trigger: FlowNode;
  /** Node configs after their schema (defaults applied), by node id. */
  configs: Map<string, Record<string, unknown>>;
}

/** Parses and checks a graph; throws a 400 naming the first offending node. */
export function validateGraph(input: unknown): ValidFlow {
  if (JSON.stringify(input ?? null).length > MAX_GRAPH_BYTES) {
    throw bad(null, `The graph is larger than ${MAX_GRAPH_BYTES} bytes`);
  }
  const parsed = FlowGraph.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [list, index] = issue.path;
    const nodes = (input as { nodes?: { id?: unknown }[] })?.nodes;
    const id = list === "nodes" && typeof index === "number" && typeof nodes?.[index]?.id === "string"
      ? nodes[index].id as string
      : null;
    throw bad(id, `Invalid graph: ${describeIssues(parsed.error.issues)}`);
  }
  const graph = parsed.data;
  const byId = new Map<string, FlowNode>();
  const configs = new Map<string, Record<string, unknown>>();
  for (const node of graph.nodes) {
    if (byId.has(node.id)) throw bad(node.id, "duplicate node id");
    if (!(NODE_TYPES as readonly string[]).includes(node.type)) {
      throw bad(node.id, `unknown node type "${node.type}" (known: ${NODE_TYPES.join(", ")})`);
    }
    const cfg = NODE_CONFIGS[node.type].safeParse(node.config);
    if (!cfg.success) throw bad(node.id, `invalid ${node.type} config: ${describeIssues(cfg.error.issues)}`);
    byId.set(node.id, node);
    configs.set(node.id, cfg.data as Record<string, unknown>);
  }
  const triggers = graph.nodes.filter((n) => isTrigger(n.type));
  if (triggers.length !== 1) {
    throw bad(triggers[1]?.id ?? null, `A flow has exactly one trigger node (found ${triggers.length})`);
  }
  const trigger = triggers[0];
  const seen = new Set<string>();
  for (const e of graph.edges) {
    if (!byId.has(e.source)) throw bad(e.source, "an edge starts at a node that does not exist");
    if (!byId.has(e.target)) throw bad(e.target, "an edge ends at a node that does not exist");
    if (e.source === e.target) throw bad(e.source, "an edge loops onto its own node");
    if (e.target === trigger.id) throw bad(trigger.id, "the trigger node cannot have incoming edges");
    const source = byId.get(e.source)!;
    const handles = handlesOf({ ...source, config: configs.get(source.id)! });
    if (handles) {
      if (!e.sourceHandle || !handles.includes(e.sourceHandle)) {
        throw bad(source.id, `edge to "${e.target}" needs a sourceHandle, one of ${handles.join(", ")}`);
      }
    } else if (e.sourceHandle && !["output", "default", "source"].includes(e.sourceHandle)) {
      throw bad(source.id, `a ${source.type} node has no branch "${e.sourceHandle}"`);
    }
    const key = `${e.source}\u0000${e.target}\u0000${e.sourceHandle ?? ""}`;
    if (seen.has(key)) throw bad(e.source, `duplicate edge to "${e.target}"`);
    seen.add(key);
  }
  // Cycles: Kahn's algorithm over the whole graph; whatever never reaches in-degree 0 is on (or
  // behind) a cycle.
  const indegree = new Map(graph.nodes.map((n) => [n.id, 0]));
  for (const e of graph.edges) indegree.set(e.target, indegree.get(e.target)! + 1);
  const queue = graph.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  let done = 0;
  while (queue.length) {
    const id = queue.shift()!;
    done++;
    for (const e of graph.edges) {
      if (e.source !== id) continue;
      const d = indegree.get(e.target)! - 1;
      indegree.set(e.target, d);
      if (d === 0) queue.push(e.target);
    }
  }
  if (done !== graph.nodes.length) {
    const stuck = graph.nodes.find((n) => indegree.get(n.id)! > 0)!;
    throw bad(stuck.id, "the graph has a cycle through this node");
  }
  const reachable = new Set([trigger.id]);
  for (const id of reachable) {
    for (const e of graph.edges) if (e.source === id) reachable.add(e.target);
  }
  const orphan = graph.nodes.find((n) => !reachable.has(n.id));
  if (orphan) throw bad(orphan.id, "the node is not reachable from the trigger");
  return { graph, trigger, configs };
}
