/**
 * zod schema of the agent-chat request (spec "Agent chat"). The body and each message are strict:
 * an undeclared key (`agent_id`, `conversationId`, a message's `id`) is a 400 naming it. `context`
 * is the spec's open object ("e.g. {source, product_id}") and keeps keys it does not know.
 */
import { z } from "zod";

const MAX_MESSAGES = 100;
const MAX_MESSAGE_CHARS = 32_000;

const ChatMessageSchema = z.strictObject({
  role: z.enum(["user", "assistant"]),
  content: z.string().max(MAX_MESSAGE_CHARS),
});

/** e.g. {source, product_id}; workspace_id picks the workspace the tools work in. */
export const ChatContextSchema = z.looseObject({
  workspace_id: z.uuid().optional(),
  product_id: z.uuid().optional(),
  source: z.string().max(200).optional(),
});

export const AgentChatRequestSchema = z.strictObject({
  messages: z.array(ChatMessageSchema).min(1).max(MAX_MESSAGES)
    // zod runs refinements even after min(1) failed, hence the guards.
    .refine((m) => m.length === 0 || m[m.length - 1].role === "user", "the last message must be the user's")
    .refine(
      (m) => m.length === 0 || m[m.length - 1].content.trim() !== "",
      "the last message must not be empty",
    ),
  agentId: z.string().min(1).max(64).optional(),
  // Checked one by one in images.ts (type, size, signature), for precise messages.
  images: z.array(z.string()).optional(),
  // Spec: "string or null". A UUID string: one of the caller's conversations to continue, or a
  // client-made id that starts a new conversation; null or absent lets the server make the id
  // (conversations.ts resolveConversation). Ids are UUIDs in the database, hence the format.
  conversation_id: z.uuid({ error: "conversation_id must be a UUID string, or null for a new conversation" })
    .nullable().optional(),
  context: ChatContextSchema.optional(),
});

export type AgentChatRequest = z.infer<typeof AgentChatRequestSchema>;
