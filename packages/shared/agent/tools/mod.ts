/** The tool registry of agent-chat: every tool an agent may list, by name. */
import type { AgentTool } from "./registry.ts";
import { priceLookupTool } from "./price_lookup.ts";
import { knowledgeBaseSearchTool, productSearchTool } from "./search.ts";

export const TOOLS: Readonly<Record<string, AgentTool>> = {
  [priceLookupTool.name]: priceLookupTool as unknown as AgentTool,
  [productSearchTool.name]: productSearchTool as unknown as AgentTool,
  [knowledgeBaseSearchTool.name]: knowledgeBaseSearchTool as unknown as AgentTool,
};

export * from "./registry.ts";
export { priceLookupTool } from "./price_lookup.ts";
export { knowledgeBaseSearchTool, productSearchTool, searchWords } from "./search.ts";
