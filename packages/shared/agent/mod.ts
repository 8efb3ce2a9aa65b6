/**
 * agent-chat's domain: the agents (agents.ts), the request (schemas.ts, images.ts), the tools
 * and their role gate (tools/), the tool-use loop (loop.ts), the NDJSON stream (stream.ts),
 * billing (the credit ledger, credits/ledger.ts), chat persistence (conversations.ts) and the request's stages (chat.ts).
 * supabase/functions/agent-chat only adapts HTTP to these.
 */
export * from "./agents.ts";
export * from "./chat.ts";
export * from "./conversations.ts";
export * from "./images.ts";
export * from "./loop.ts";
export * from "./schemas.ts";
export * from "./stream.ts";
export * from "./tools/mod.ts";
export * from "./workspace.ts";
