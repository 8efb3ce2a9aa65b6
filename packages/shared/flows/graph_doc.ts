/**
 * A flow graph as API docs show it (issue 36): {nodes, edges}, each node one of the node types
 * (graph.ts NODE_TYPES) with that type's config schema (graph.ts NODE_CONFIGS), as JSON Schema,
 * so that Swagger UI and Redoc list the node types and their configs. It documents; validation
 * stays validateGraph's (graph.ts), which names the node a problem is about.
 */
import { z } from "zod";
import { MAX_NODES, NODE_CONFIGS, NODE_TYPES, type NodeType } from "./graph.ts";

type JsonSchema = Record<string, unknown>;

/**
 * A config's JSON Schema, standing alone: without `$schema`, and with the filter's recursive
 * group (`$ref: "#"`, which would point at the OpenAPI document's root) described in words.
 */
function standalone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(standalone);
  if (!value || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  if (o.$ref === "#") {
    return { type: "object", description: "A nested group {logic, conditions}, like the one it is in" };
  }
  return Object.fromEntries(
    Object.entries(o).filter(([k]) => k !== "$schema").map(([k, v]) => [k, standalone(v)]),
  );
}

/** The config schema of one node type. */
export function nodeConfigSchema(type: NodeType): JsonSchema {
  return standalone(
    z.toJSONSchema(NODE_CONFIGS[type], { io: "input", unrepresentable: "any" }),
  ) as JsonSchema;
}

/** One node of `type`: its id, type and config (or `data`, as canvas editors keep it). */
function nodeSchema(type: NodeType): JsonSchema {
  const config = nodeConfigSchema(type);
  return {
    title: type,
    type: "object",
    properties: {
      id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
      type: { type: "string", const: type },
      label: { type: "string", maxLength: 200 },
      config,
      data: { ...config, description: "The config under the name canvas editors use; `config` wins" },
      position: { description: "Canvas position, kept as given" },
    },
    required: ["id", "type"],
  };
}

/** The graph a flow stores (`save-flow` graph, flows.graph). */
export function flowGraphSchema(): JsonSchema {
  return {
    type: "object",
    description: "A flow graph: exactly one trigger node (manual, cron, webhook or event), every node " +
      "reachable from it, no cycles. Each node type's config is shown below.",
    properties: {
      nodes: {
        type: "array",
        minItems: 1,
        maxItems: MAX_NODES,
        // One schema per node type, told apart by `type` (each one's const) and titled with it.
        items: { oneOf: NODE_TYPES.map(nodeSchema) },
      },
      edges: {
        type: "array",
        maxItems: MAX_NODES * 4,
        items: {
          type: "object",
          properties: {
            id: { type: "string", maxLength: 200 },
            source: { type: "string" },
            target: { type: "string" },
            sourceHandle: {
              type: ["string", "null"],
              description: 'if_else: "true" or "false"; switch: "case_<n>" or "default"',
            },
          },
          required: ["source", "target"],
        },
      },
    },
    required: ["nodes"],
  };
}
