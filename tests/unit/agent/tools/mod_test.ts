/**
 * The tool gate: which tools each workspace role is offered, the definitions the model sees, and
 * the runner - a tool not offered (a "forced" call) or called with bad arguments never runs and
 * writes no audit row; a call that runs is audited before its chunks are streamed.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import type { SupabaseClient } from "@supabase/supabase-js";
import {
  type AgentTool,
  offeredTools,
  runToolCall,
  searchWords,
  type ToolContext,
  toolDefinitions,
  TOOLS,
} from "../../../../packages/shared/agent/tools/mod.ts";
import { AGENTS } from "../../../../packages/shared/agent/agents.ts";
import type { AgentChunk } from "../../../../packages/shared/agent/stream.ts";

Deno.test("gate: tools offered per agent and workspace role", () => {
  const all = ["product_search", "knowledge_base_search", "price_lookup"];
  const search = ["product_search", "knowledge_base_search"];
  const cases: [string, "owner" | "admin" | "member" | "viewer" | null, string | null, string[]][] = [
    ["main", "owner", "w", all],
    ["main", "admin", "w", all],
    ["main", "member", "w", search],
    ["main", "viewer", "w", search],
    ["interior-designer", "admin", "w", all],
    ["interior-designer", "member", "w", search],
    ["demo", "owner", "w", search],
    ["main", "owner", null, []],
    ["main", null, null, []],
  ];
  for (const [agent, role, ws, want] of cases) {
    const got = offeredTools(AGENTS[agent].tools, TOOLS, { workspaceId: ws, role }).map((t) => t.name);
    assert.deepEqual(got, want, `${agent} as ${role}`);
  }
  assert.deepEqual(
    offeredTools(["price_lookup", "no_such_tool"], TOOLS, { workspaceId: "w", role: "owner" })
      .map((t) => t.name),
    ["price_lookup"],
  );
});

Deno.test("definitions: JSON Schema input from the zod schemas (price_lookup per the spec)", () => {
  const [def] = toolDefinitions([TOOLS.price_lookup]);
  assert.equal(def.name, "price_lookup");
  const schema = def.input_schema as {
    type: string;
    $schema?: string;
    required: string[];
    properties: Record<string, { type?: string; format?: string }>;
  };
  assert.equal(schema.type, "object");
  assert.equal(schema.$schema, undefined);
  assert.deepEqual(schema.required, ["product_name"]);
  // The spec's parameters plus `customer` (ours, additive: contract terms for one customer, issue 32).
  assert.deepEqual(Object.keys(schema.properties).sort(), [
    "category_slug",
    "customer",
    "manufacturer",
    "product_id",
    "product_name",
    "quantity",
    "sku",
    "unit",
  ]);
  assert.equal(schema.properties.quantity.type, "number");
  assert.equal(schema.properties.product_id.format, "uuid");
  assert.equal(schema.properties.customer.type, "string");
  assert.ok(!schema.required.includes("customer"));
});

function harness() {
  const rpcCalls: { fn: string; args: Record<string, unknown> }[] = [];
  const chunks: AgentChunk[] = [];
  const db = {
    rpc(fn: string, args: Record<string, unknown>) {
      rpcCalls.push({ fn, args });
      return Promise.resolve({ data: "log-1", error: null });
    },
  } as unknown as SupabaseClient;
  const ctx: ToolContext = {
    db,
    userId: "u",
    workspaceId: "w",
    role: "member",
    agentId: "main",
    conversationId: "c",
    today: "2026-03-15",
    emit: (c) => chunks.push(c),
  };
  let runs = 0;
  const echo: AgentTool = {
    name: "echo",
    description: "echo",
    schema: z.object({ say: z.string().min(1) }),
    roles: ["member"],
    run(_ctx, input: { say: string }) {
      runs++;
      return Promise.resolve({
        content: `said ${input.say}`,
        audit: { summary: { result_count: 1 }, zero_result: false },
        chunks: [{ type: "text", text: "from the tool" }],
      });
    },
  };
  return { rpcCalls, chunks, ctx, echo, runs: () => runs };
}

Deno.test("runner: a tool not offered is refused without running or logging", async () => {
  const h = harness();
  const out = await runToolCall(
    { id: "t1", name: "price_lookup", input: { product_name: "x" } },
    [h.echo],
    h.ctx,
  );
  assert.deepEqual(out.block, {
    type: "tool_result",
    tool_use_id: "t1",
    content: "The tool price_lookup is not available to you in this conversation.",
    is_error: true,
  });
  assert.equal(out.logId, null);
  assert.equal(h.runs(), 0);
  assert.deepEqual(h.rpcCalls, []);
  assert.deepEqual(h.chunks, [{
    type: "tool_progress",
    tool_name: "price_lookup",
    status: "Refused: price_lookup is not available",
  }]);
});

Deno.test("runner: invalid arguments are an error result, not a run", async () => {
  const h = harness();
  const out = await runToolCall({ id: "t2", name: "echo", input: { say: 3 } }, [h.echo], h.ctx);
  assert.equal(out.block.is_error, true);
  assert.match(String(out.block.content), /^Invalid arguments: say:/);
  assert.equal(h.runs(), 0);
  assert.deepEqual(h.rpcCalls, []);
});

Deno.test("runner: a run is audited with the model's raw arguments, then its chunks follow its log id", async () => {
  const h = harness();
  const input = { say: "hi", extra: "kept in the audit" };
  const out = await runToolCall({ id: "t3", name: "echo", input }, [h.echo], h.ctx);
  assert.deepEqual(out, {
    block: { type: "tool_result", tool_use_id: "t3", content: "said hi", is_error: undefined },
    logId: "log-1",
  });
  assert.equal(h.rpcCalls.length, 1);
  const { fn, args } = h.rpcCalls[0];
  assert.equal(fn, "log_agent_tool_call");
  assert.deepEqual(
    { ...args, p_duration_ms: typeof args.p_duration_ms },
    {
      p_workspace_id: "w",
      p_tool_name: "echo",
      p_tool_args: input,
      p_result_summary: { result_count: 1 },
      p_zero_result: false,
      p_duration_ms: "number",
      p_conversation_id: "c",
      p_agent_id: "main",
    },
  );
  assert.deepEqual(h.chunks, [
    { type: "tool_call_ids", mapping: [{ tool_name: "echo", log_id: "log-1" }] },
    { type: "text", text: "from the tool" },
  ]);
});

Deno.test("runner: a result whose audit row cannot be written is withheld", async () => {
  const h = harness();
  h.ctx.db = {
    rpc: () => Promise.resolve({ data: null, error: { message: "permission denied" } }),
  } as unknown as SupabaseClient;
  const originalError = console.error;
  console.error = () => {};
  try {
    const out = await runToolCall({ id: "t4", name: "echo", input: { say: "hi" } }, [h.echo], h.ctx);
    assert.equal(out.block.is_error, true);
    assert.equal(out.logId, null);
  } finally {
    console.error = originalError;
  }
  assert.ok(!h.chunks.some((c) => c.type === "tool_call_ids" || c.type === "text"));
});

Deno.test("product search words: PostgREST filter syntax cannot be injected", () => {
  const cases: [string, string[]][] = [
    ["keraflex grey", ["keraflex", "grey"]],
    ["MP-100", ["MP-100"]],
    // Commas and parentheses (the or=() syntax) go; dots stay harmless inside an ilike value.
    ["a,b)or(name.eq.x", ["aborname.eq.x"]],
    ["  ", []],
    ["Fliesenkleber weiß 25kg", ["Fliesenkleber", "weiß", "25kg"]],
    ["*%_\\", []],
    ["1 2 3 4 5 6 7 8", ["1", "2", "3", "4", "5", "6"]],
  ];
  for (const [q, want] of cases) assert.deepEqual(searchWords(q), want, q);
});
