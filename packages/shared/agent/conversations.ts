/**
 * Chat persistence (agent_chat_conversations / agent_chat_messages): reads and writes with the
 * caller's client, so RLS keeps every conversation its owner's alone. The one exception is
 * resolveConversation asking the service client whether an id is taken: all the caller ever learns
 * from it is a 404 for an id that is someone else's, never a row.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";

/**
 * Which conversation a turn goes to, from the request's `conversation_id` (spec: "string or
 * null", here a UUID string):
 * - null or absent: a new conversation with a server-made id;
 * - an id of one of the caller's conversations: that conversation, continued;
 * - an id no conversation has (a client-made id): a new conversation with that id;
 * - an id of someone else's conversation: 404 `conversation_not_found`, the same answer as the
 *   caller would get for a conversation that was deleted, before anything is charged or saved.
 *   Nothing of it is read or written; the caller learns only that the id is not theirs to use.
 *
 * The caller's client decides "mine" (RLS: owners only); the service client only answers
 * whether the id is taken at all, which the caller's client cannot see.
 */
export async function resolveConversation(
  db: SupabaseClient,
  service: SupabaseClient,
  requested: string | null | undefined,
): Promise<{ id: string; isNew: boolean }> {
  if (!requested) return { id: crypto.randomUUID(), isNew: true };
  if (await conversationExists(db, requested)) return { id: requested, isNew: false };
  if (await conversationExists(service, requested)) throw notFound();
  return { id: requested, isNew: true };
}

const notFound = () => new DomainError("not_found", "conversation_not_found", "Conversation not found");

async function conversationExists(db: SupabaseClient, id: string): Promise<boolean> {
  const { data, error } = await db.from("agent_chat_conversations").select("id").eq("id", id).maybeSingle();
  if (error) {
    throw new DomainError(
      "internal",
      "conversation_lookup_failed",
      `Reading the conversation: ${error.message}`,
    );
  }
  return data !== null;
}

/**
 * Creates the turn's new conversation as the caller. An id taken since resolveConversation
 * looked (two first turns racing with one client-made id) is fine when the winner was the
 * caller; when it was someone else, the turn fails with conversation_not_found and is refunded.
 */
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
  if (!error) return;
  if (error.code === "23505") {
    if (await conversationExists(db, c.id)) return;
    throw notFound();
  }
  throw new Error(`Creating the conversation: ${error.message}`);
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
