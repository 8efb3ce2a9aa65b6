/**
 * The entry points documented (issue 36): the functions' OpenAPI document shows ai-gateway's
 * body as one schema per action of the action map ({action, payload}, discriminated by action),
 * each with its payload schema, backend route and price; and flow-engine's save-flow graph with
 * every node type of graph.ts and its config schema. payloads.json (what the gateway reads) is
 * what the AI backend's route schemas give today, and the prices quoted are the seeded ones.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { GATEWAY_ACTIONS } from "../../packages/shared/gateway/actions.ts";
import { GATEWAY_PAYLOADS } from "../../packages/shared/gateway/payloads.ts";
import { actionComponent } from "../../packages/shared/gateway/openapi.ts";
import { SEEDED_CREDITS } from "../../packages/shared/credits/ledger.ts";
import { NODE_TYPES } from "../../packages/shared/flows/graph.ts";
import { nodeConfigSchema } from "../../packages/shared/flows/graph_doc.ts";
import { currentPayloadSchemas } from "../../scripts/gateway_payloads.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const deref = (doc: Json, s: Json): Json =>
  s?.$ref ? doc.components.schemas[s.$ref.replace("#/components/schemas/", "")] : s;

/** Every schema reachable from `s` (through $refs, properties, items, unions). */
function* walk(doc: Json, s: Json, seen = new Set<Json>()): Generator<Json> {
  s = deref(doc, s);
  if (!s || typeof s !== "object" || seen.has(s)) return;
  seen.add(s);
  yield s;
  for (
    const child of [
      ...Object.values(s.properties ?? {}),
      s.items,
      ...(s.oneOf ?? []),
      ...(s.anyOf ?? []),
      ...(s.allOf ?? []),
    ]
  ) yield* walk(doc, child, seen);
}

Deno.test("payloads.json is what the AI backend's route schemas give (run scripts/gateway_payloads.ts)", () => {
  assert.deepEqual(GATEWAY_PAYLOADS, currentPayloadSchemas());
  assert.deepEqual(Object.keys(GATEWAY_PAYLOADS).sort(), Object.keys(GATEWAY_ACTIONS).sort());
  for (const [action, schema] of Object.entries(GATEWAY_PAYLOADS)) {
    assert.equal(schema.additionalProperties, false, `${action}: closed`);
  }
});

platformTest(
  "the OpenAPI document lists every gateway action with its payload, and every flow node type",
  async (p) => {
    const prices = await p.db.query<{ cost_key: string; credits: string }>(
      `select cost_key, credits from public.gateway_action_costs`,
    );
    assert.deepEqual(
      Object.fromEntries(prices.rows.map((r) => [r.cost_key, Number(r.credits)])),
      SEEDED_CREDITS,
      "the prices the docs quote are the seeded ones",
    );

    const res = await fetch(`${p.url}/openapi/functions.json`);
    assert.equal(res.status, 200);
    const doc: Json = await res.json();

    // ai-gateway: one body per action, discriminated by action.
    const body = doc.paths["/ai-gateway"].post.requestBody.content["application/json"].schema;
    const refs = body.oneOf.map((s: Json) => s.$ref);
    const actions = Object.keys(GATEWAY_ACTIONS);
    assert.deepEqual(refs, actions.map((a) => `#/components/schemas/${actionComponent(a)}`));
    assert.equal(body.discriminator.propertyName, "action");
    assert.deepEqual(Object.keys(body.discriminator.mapping), actions);
    for (const [action, spec] of Object.entries(GATEWAY_ACTIONS)) {
      const variant = deref(doc, { $ref: refs[actions.indexOf(action)] });
      assert.equal(variant.title, action);
      assert.equal(variant.properties.action.const, action);
      assert.deepEqual(variant.properties.payload, GATEWAY_PAYLOADS[action], `${action}: its payload schema`);
      assert.equal(variant.additionalProperties, false);
      assert.ok(variant.description.startsWith(`${spec.method} ${spec.path} on the AI backend.`), action);
      if (spec.cost === undefined) assert.match(variant.description, /Free\./, action);
      else if (typeof spec.cost === "string") {
        const n = SEEDED_CREDITS[spec.cost];
        assert.ok(
          variant.description.includes(`Billable: ${spec.cost}, ${n} credit${n === 1 ? "" : "s"}`),
          `${action}: ${variant.description}`,
        );
      } else {
        assert.match(
          variant.description,
          /Billable: .*rag_text_search 0\.5 credits.*visual_search 1 credit/,
          action,
        );
      }
    }
    // A payload shows its keys with the spec's spellings (spec "Payload shapes").
    assert.deepEqual(Object.keys(GATEWAY_PAYLOADS.search_knowledge_base.properties as object), [
      "workspace_id",
      "query",
      "search_types",
      "top_k",
      "similarity_threshold",
      "caller",
      "category_slug",
      "category_id",
      "price_doc_type",
    ]);

    // flow-engine: save-flow's graph, one node schema per node type with its config.
    const flowBody = doc.paths["/flow-engine"].post.requestBody.content["application/json"].schema;
    const graph = [...walk(doc, flowBody)].find((s) => s.properties?.graph)?.properties.graph;
    assert.ok(graph, "save-flow has a graph");
    const nodes = graph.properties.nodes.items.oneOf;
    assert.deepEqual(nodes.map((n: Json) => n.properties.type.const), [...NODE_TYPES]);
    for (const node of nodes) {
      const type = node.properties.type.const;
      assert.equal(node.title, type);
      assert.deepEqual(node.properties.config, nodeConfigSchema(type), `${type}: its config schema`);
    }
    const cron = nodes.find((n: Json) => n.title === "cron").properties.config;
    assert.deepEqual(cron.required, ["cron"]);
    assert.deepEqual(Object.keys(cron.properties), ["cron", "timezone"]);
    assert.deepEqual(graph.required, ["nodes"]);
  },
);
