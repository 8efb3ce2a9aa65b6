/** Agent id resolution, model mapping, the agent role gate and the workspace rule. */
import assert from "node:assert/strict";
import { runWithEnv } from "../../../packages/shared/env.ts";
import type { Access } from "../../../packages/shared/auth/context.ts";
import { DOMAIN_ERROR_STATUS, DomainError } from "../../../packages/shared/errors.ts";
import {
  type AgentDef,
  agentModel,
  agentRefusal,
  AGENTS,
  resolveAgent,
} from "../../../packages/shared/agent/agents.ts";
import { resolveWorkspace } from "../../../packages/shared/agent/workspace.ts";
import { providerModel } from "../../../packages/shared/llm/mod.ts";

Deno.test("agent ids: canonical ids, aliases to main, default main, unknown null", () => {
  const cases: [string | undefined | null, string | null][] = [
    [undefined, "main"],
    [null, "main"],
    ["main", "main"],
    ["interior-designer", "interior-designer"],
    ["demo", "demo"],
    ["search", "main"],
    ["insights", "main"],
    ["seo", "main"],
    ["Main", null],
    ["admin", null],
    ["toString", null],
    ["__proto__", null],
    ["", null],
  ];
  for (const [id, want] of cases) assert.equal(resolveAgent(id)?.id ?? null, want, String(id));
});

Deno.test("models: agents default to the spec's names; variables override; the layer maps names to provider ids", () => {
  // Sonnet 4.5 retires on 2026-11-30: the spec's name goes to its same-tier successor.
  assert.equal(providerModel("vendor-sonnet-4-5", "anthropic"), "claude-sonnet-4-6");
  assert.equal(providerModel("vendor-haiku-4-5", "anthropic"), "claude-haiku-4-5");
  assert.equal(providerModel("claude-sonnet-4-5-20250929", "anthropic"), "claude-sonnet-4-5-20250929");
  runWithEnv({}, () => {
    assert.equal(agentModel(AGENTS.main), "vendor-sonnet-4-5");
    assert.equal(agentModel(AGENTS["interior-designer"]), "vendor-sonnet-4-5");
    assert.equal(agentModel(AGENTS.demo), "vendor-haiku-4-5");
  });
  runWithEnv({ AGENT_MODEL_MAIN: "claude-opus-4-8", AGENT_MODEL_DEMO: "vendor-sonnet-4-5" }, () => {
    assert.equal(providerModel(agentModel(AGENTS.main), "anthropic"), "claude-opus-4-8");
    assert.equal(providerModel(agentModel(AGENTS.demo), "anthropic"), "claude-sonnet-4-6");
  });
});

Deno.test("agents: the demo agent has no price_lookup; every listed tool exists", async () => {
  const { TOOLS } = await import("../../../packages/shared/agent/tools/mod.ts");
  for (const a of Object.values(AGENTS)) for (const t of a.tools) assert.ok(t in TOOLS, `${a.id}: ${t}`);
  assert.ok(!AGENTS.demo.tools.includes("price_lookup"));
  assert.ok(AGENTS.main.tools.includes("price_lookup"));
});

const access = (over: Partial<Access> = {}): Access => ({
  user_id: "u",
  platform_role: { id: "r", name: "user", level: 10 },
  status: "active",
  subscription_tier: "free",
  workspaces: [],
  ...over,
});

Deno.test("agent gate: anyone active for the spec's agents; platform roles when an agent names them", () => {
  for (const a of Object.values(AGENTS)) assert.equal(agentRefusal(a, access()), null, a.id);
  assert.match(agentRefusal(AGENTS.main, access({ status: "suspended" }))!, /suspended/);
  const restricted: AgentDef = { ...AGENTS.main, id: "ops", platformRoles: ["admin", "manager"] };
  assert.match(agentRefusal(restricted, access())!, /requires one of the platform roles: admin, manager/);
  assert.equal(
    agentRefusal(restricted, access({ platform_role: { id: "x", name: "manager", level: 70 } })),
    null,
  );
  assert.notEqual(agentRefusal(restricted, access({ platform_role: null })), null);
});

Deno.test("workspace: the requested one if a member, the only one, none, or 400 when ambiguous", () => {
  const one = access({ workspaces: [{ workspace_id: "w1", role: "admin" }] });
  const two = access({
    workspaces: [{ workspace_id: "w1", role: "admin" }, { workspace_id: "w2", role: "viewer" }],
  });
  assert.deepEqual(resolveWorkspace(one, undefined), { workspaceId: "w1", role: "admin" });
  assert.deepEqual(resolveWorkspace(one, "w1"), { workspaceId: "w1", role: "admin" });
  assert.deepEqual(resolveWorkspace(two, "w2"), { workspaceId: "w2", role: "viewer" });
  assert.deepEqual(resolveWorkspace(access(), undefined), { workspaceId: null, role: null });
  const status = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      if (err instanceof DomainError) return [DOMAIN_ERROR_STATUS[err.kind], err.code];
      throw err;
    }
    return null;
  };
  assert.deepEqual(status(() => resolveWorkspace(two, undefined)), [400, "workspace_required"]);
  assert.deepEqual(status(() => resolveWorkspace(one, "w9")), [403, "forbidden"]);
  assert.deepEqual(status(() => resolveWorkspace(access(), "w1")), [403, "forbidden"]);
});
