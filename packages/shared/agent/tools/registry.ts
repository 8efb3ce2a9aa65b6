/**
 * Tools and their gate. A tool names the workspace roles that may use it; the model is offered
 * only the tools of its agent that the caller's role in the request's workspace allows (none
 * without a workspace), and a call to any other tool - a model "forcing" a tool it was not given
 * - is refused without running it or writing anything.
 *
 * Every call that runs is audited: one agent_tool_call_logs row (log_agent_tool_call, which checks
 * the caller's role again in SQL), its id streamed as tool_call_ids before the tool's own chunks.
 */
import { type LlmContent, type LlmTool, toolInputSchema } from "../../llm/mod.ts";
import type { SupabaseClient } from "@supabase/supabase-js";
import { z } from "zod";
import type { WorkspaceRole } from "../../auth/context.ts";
import type { AgentChunk } from "../stream.ts";

export type WorkspaceRoleName = WorkspaceRole["role"];

export interface ToolContext {
  /** The caller's client: RLS applies to everything a tool reads. */
  db: SupabaseClient;
  userId: string;
  workspaceId: string;
  role: WorkspaceRoleName;
  agentId: string;
  conversationId: string | null;
  /** Today (UTC), YYYY-MM-DD: the date price rules are checked against. */
  today: string;
  emit(chunk: AgentChunk): void;
}

export interface ToolResult {
  /** What the model reads (tool_result content). */
  content: string;
  isError?: boolean;
  /** Written to agent_tool_call_logs; absent for calls refused before running. */
  audit?: { summary: Record<string, unknown>; zero_result: boolean };
  /** Streamed after tool_call_ids (price_lookup: matches, then the proposal). */
  chunks?: AgentChunk[];
}

export interface AgentTool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: S;
  roles: readonly WorkspaceRoleName[];
  run(ctx: ToolContext, input: z.infer<S>): Promise<ToolResult>;
}

export interface ToolScope {
  workspaceId: string | null;
  role: WorkspaceRoleName | null;
}

/** The tools offered to the model: the agent's, minus those the caller's role may not use. */
export function offeredTools(
  agentTools: readonly string[],
  registry: Readonly<Record<string, AgentTool>>,
  scope: ToolScope,
): AgentTool[] {
  if (!scope.workspaceId || !scope.role) return [];
  return agentTools
    .filter((name) => Object.hasOwn(registry, name))
    .map((name) => registry[name])
    .filter((tool) => tool.roles.includes(scope.role!));
}

/** The tools as the model layer offers them (input_schema from each tool's zod schema). */
export function toolDefinitions(tools: readonly AgentTool[]): LlmTool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: toolInputSchema(t.schema).schema as LlmTool["input_schema"],
  }));
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolOutcome {
  block: LlmContent & { type: "tool_result" };
  logId: string | null;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
}

/** Runs one tool call of the model, streaming its progress, audit id and chunks. */
export async function runToolCall(
  call: ToolCall,
  offered: readonly AgentTool[],
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const answer = (content: string, isError: boolean, logId: string | null = null): ToolOutcome => ({
    block: { type: "tool_result", tool_use_id: call.id, content, is_error: isError || undefined },
    logId,
  });
  const tool = offered.find((t) => t.name === call.name);
  if (!tool) {
    ctx.emit({
      type: "tool_progress",
      tool_name: call.name,
      status: `Refused: ${call.name} is not available`,
    });
    return answer(`The tool ${call.name} is not available to you in this conversation.`, true);
  }
  const parsed = tool.schema.safeParse(call.input);
  if (!parsed.success) {
    ctx.emit({ type: "tool_progress", tool_name: tool.name, status: "Invalid arguments" });
    return answer(`Invalid arguments: ${describeIssues(parsed.error)}`, true);
  }
  const started = performance.now();
  const result = await tool.run(ctx, parsed.data);
  const durationMs = Math.round(performance.now() - started);
  let logId: string | null = null;
  if (result.audit) {
    const { data, error } = await ctx.db.rpc("log_agent_tool_call", {
      p_workspace_id: ctx.workspaceId,
      p_tool_name: tool.name,
      // The arguments as the model sent them: the audit keeps the original wording.
      p_tool_args: call.input,
      p_result_summary: result.audit.summary,
      p_zero_result: result.audit.zero_result,
      p_duration_ms: durationMs,
      p_conversation_id: ctx.conversationId,
      p_agent_id: ctx.agentId,
    });
    if (error) {
      // A result that cannot be audited is not shown: a proposal must carry its log id.
      console.error(`agent-chat: audit log of ${tool.name} failed: ${error.message}`);
      ctx.emit({
        type: "tool_progress",
        tool_name: tool.name,
        status: "Failed: the call could not be audited",
      });
      return answer(`The ${tool.name} call failed: its audit record could not be written.`, true);
    }
    logId = data as string;
    ctx.emit({ type: "tool_call_ids", mapping: [{ tool_name: tool.name, log_id: logId }] });
  }
  for (const chunk of result.chunks ?? []) ctx.emit(chunk);
  return answer(result.content, result.isError ?? false, logId);
}
