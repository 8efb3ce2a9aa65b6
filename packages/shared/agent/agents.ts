/**
 * The agents agent-chat serves: id, model, tools, who may use them, and their instructions.
 *
 * Agent ids (spec "Agent chat"): main, interior-designer, demo (cheaper model); the aliases
 * search, insights and seo resolve to main; anything else is a 400.
 *
 * Models: each agent reads its model from the environment, defaulting to the spec's names; the
 * model layer (packages/shared/llm/models.ts) maps a spec name to the provider's model id:
 *
 * | agent             | variable                      | default            |
 * |-------------------|-------------------------------|--------------------|
 * | main              | AGENT_MODEL_MAIN              | vendor-sonnet-4-5  |
 * | interior-designer | AGENT_MODEL_INTERIOR_DESIGNER | vendor-sonnet-4-5  |
 * | demo              | AGENT_MODEL_DEMO              | vendor-haiku-4-5   |
 *
 * A variable may hold a spec name or any provider model id, which is sent unchanged.
 */
import { env } from "../env.ts";
import type { Access } from "../auth/context.ts";

import { HAIKU, SONNET } from "../llm/mod.ts";

export interface AgentDef {
  id: string;
  modelEnv: string;
  defaultModel: string;
  /** Tool names this agent may offer; each tool's own role gate still applies. */
  tools: readonly string[];
  /**
   * Platform roles allowed to use the agent (null: any signed-in, active user). None of the
   * spec's agents is restricted; the gate exists for agents that are (403 otherwise).
   */
  platformRoles: readonly string[] | null;
  instructions: string;
}

const PRICING_RULES =
  `Prices: you never state, estimate or compute a price yourself. The only source of a price is
the price_lookup tool, whose price_proposal is computed by code from the workspace's Pricing
documents and shown to the user as it is. Quote its numbers exactly, or say that no reliable price
was found and why (its warnings). If price_lookup is not among your tools, say that prices are
available to workspace owners and admins only.`;

export const AGENTS: Readonly<Record<string, AgentDef>> = {
  main: {
    id: "main",
    modelEnv: "AGENT_MODEL_MAIN",
    defaultModel: SONNET,
    tools: ["product_search", "knowledge_base_search", "price_lookup"],
    platformRoles: null,
    instructions: `You are the assistant of a building-materials catalog. You help with products, their
documentation and, for workspace owners and admins, their prices. Use the tools to look things up;
do not invent products, documents or figures.
${PRICING_RULES}`,
  },
  "interior-designer": {
    id: "interior-designer",
    modelEnv: "AGENT_MODEL_INTERIOR_DESIGNER",
    defaultModel: SONNET,
    tools: ["product_search", "knowledge_base_search", "price_lookup"],
    platformRoles: null,
    instructions: `You are an interior designer working with a building-materials catalog. You suggest
materials, combinations and layouts for the user's room, from products found with the tools, and
you can read images of the room the user sends.
${PRICING_RULES}`,
  },
  demo: {
    id: "demo",
    modelEnv: "AGENT_MODEL_DEMO",
    defaultModel: HAIKU,
    tools: ["product_search", "knowledge_base_search"],
    platformRoles: null,
    instructions: `You are the demo assistant of a building-materials catalog: short, friendly answers
about products and documentation found with the tools.
${PRICING_RULES}`,
  },
};

const AGENT_ALIASES: Readonly<Record<string, string>> = {
  search: "main",
  insights: "main",
  seo: "main",
};

/** The agent an id names (default main), or null for an unknown id. */
export function resolveAgent(
  agentId: string | null | undefined,
  agents: Readonly<Record<string, AgentDef>> = AGENTS,
): AgentDef | null {
  const id = agentId ?? "main";
  const canonical = Object.hasOwn(AGENT_ALIASES, id) ? AGENT_ALIASES[id] : id;
  return Object.hasOwn(agents, canonical) ? agents[canonical] : null;
}

/** Why the caller may not use the agent (the 403 message), or null when they may. */
export function agentRefusal(agent: AgentDef, access: Access): string | null {
  if (access.status === "suspended") return "This account is suspended";
  if (agent.platformRoles === null) return null;
  const role = access.platform_role?.name;
  if (role && agent.platformRoles.includes(role)) return null;
  return `The ${agent.id} agent requires one of the platform roles: ${agent.platformRoles.join(", ")}`;
}

/** The model the agent runs on (a spec name or a provider id), from its variable or its default. */
export function agentModel(agent: AgentDef): string {
  return env(agent.modelEnv) ?? agent.defaultModel;
}
