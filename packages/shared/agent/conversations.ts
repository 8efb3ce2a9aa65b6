/**
 * Chat persistence (agent_chat_conversations / agent_chat_messages), always with the caller's
 * client: RLS keeps every conversation its owner's alone.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";

/** 404 unless the conversation exists and is the caller's. */
export async function requireConversation(db: SupabaseClient, id: string): Promise<void> {
  const { data, error } = await db.from("agent_chat_conversations").select("id").eq("id", id).maybeSingle();
  if (error) {
    throw new DomainError(
      "internal",
      "conversation_lookup_failed",
      `Reading the conversation: ${error.message}`,
    );
  }
  if (!data) throw DomainError.notFound("Conversation not found");
}

export async function createConversation(
  db: SupabaseClient,
  c: { id: string; workspaceId: string | null; agentId: string; title: string },
): Promise<void> {
  const { error } = await db.from("agent_chat_conversations").insert({
    id: c.id,
    workspace_id: c.workspaceId,
    agent_id: c.agentId,
    title: c.title.slice(0, 200),
  });
  if (error) throw new Error(`Creating the conversation: ${error.message}`);
}

export async function appendMessage(
  db: SupabaseClient,
  conversationId: string,
  role: "user" | "assistant",
  content: string,
  metadata: Record<string, unknown> = {},
): Promise<void> {
  const { error } = await db.from("agent_chat_messages").insert({
    conversation_id: conversationId,
    role,
    content,
    metadata,
  });
  if (error) throw new Error(`Saving the ${role} message: ${error.message}`);
}
