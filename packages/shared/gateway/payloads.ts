/**
 * Each gateway action's payload schema (issues 31 and 36): the keys an action takes, with their
 * types, as JSON Schema, derived from the AI backend's own OpenAPI document so that the route
 * schemas stay the one source. A payload is the backend route's path parameters plus its JSON
 * body (POST, PUT, PATCH, DELETE with a body) or its query parameters (GET); every payload is
 * closed (`additionalProperties: false`).
 *
 * The derived schemas are kept in payloads.json (ai-gateway cannot import the backend), written
 * by `deno task gateway-payloads`; tests/foundation/gateway_openapi_test.ts fails
 * when the file is out of date. ai-gateway reads it twice: to refuse a payload key its action
 * does not take (400 before the backend is called, so nothing is charged: unknownPayloadKeys),
 * and to document its request body as one schema per action (openapi.ts). Nested objects are
 * the backend route's to check (its schemas are strict too); objects whose contents belong to
 * the client (metadata, JSON schemas) are open there and here.
 */
import type { ActionSpec } from "./actions.ts";
import { pathParams } from "./request.ts";
import PAYLOADS from "./payloads.json" with { type: "json" };

// deno-lint-ignore no-explicit-any
type Json = any;

/** A JSON Schema object (as OpenAPI 3.1 writes them). */
export type JsonSchema = Record<string, unknown>;

/** action -> its payload schema (payloads.json). */
export const GATEWAY_PAYLOADS: Readonly<Record<string, JsonSchema>> = PAYLOADS as Record<string, JsonSchema>;

/** The payload keys an action does not take (none for an action without a payload schema). */
export function unknownPayloadKeys(action: string, payload: Record<string, unknown>): string[] {
  const schema = GATEWAY_PAYLOADS[action] as { properties?: Record<string, unknown> } | undefined;
  if (!schema) return [];
  const known = schema.properties ?? {};
  return Object.keys(payload).filter((k) => !Object.hasOwn(known, k));
}

/** Inlines `#/components/schemas/X` references (a payload schema stands alone). */
function inline(doc: Json, schema: Json, seen: string[] = []): Json {
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, seen));
  if (!schema || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace("#/components/schemas/", "");
    if (seen.includes(name)) throw new Error(`payload schemas: ${name} refers to itself`);
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`payload schemas: no component ${name}`);
    const { $ref: _, ...rest } = schema;
    return { ...inline(doc, target, [...seen, name]), ...inline(doc, rest, seen) };
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(doc, v, seen)]));
}

/** One action's payload schema from the backend's operation (null when it has none). */
function payloadSchema(doc: Json, spec: Pick<ActionSpec, "method" | "path">): JsonSchema | null {
  const op = doc.paths?.[spec.path]?.[spec.method.toLowerCase()];
  if (!op) return null;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const params: Json[] = op.parameters ?? [];
  for (const name of pathParams(spec.path)) {
    const p = params.find((x) => x.in === "path" && x.name === name);
    properties[name] = inline(doc, p?.schema ?? { type: "string" });
    required.push(name);
  }
  const body = op.requestBody?.content?.["application/json"]?.schema;
  if (body) {
    const b = inline(doc, body);
    if (b.type !== "object" || b.additionalProperties !== false) {
      throw new Error(`payload schemas: ${spec.method} ${spec.path} has an open body (make it strict)`);
    }
    Object.assign(properties, b.properties ?? {});
    required.push(...(b.required ?? []));
  } else if (spec.method === "GET") {
    for (const p of params.filter((x) => x.in === "query")) {
      properties[p.name] = inline(doc, p.schema ?? {});
      if (p.required) required.push(p.name);
    }
  }
  return {
    type: "object",
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * Every action's payload schema from the backend's OpenAPI document. An action the backend
 * does not describe (its docs pages) takes no payload.
 */
export function derivePayloadSchemas(
  backendDoc: Json,
  actions: Readonly<Record<string, Pick<ActionSpec, "method" | "path">>>,
): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, spec] of Object.entries(actions)) {
    out[name] = payloadSchema(backendDoc, spec) ??
      { type: "object", properties: {}, additionalProperties: false };
  }
  return out;
}
