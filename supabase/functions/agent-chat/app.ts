/**
 * POST /functions/v1/agent-chat (spec "Agent chat"): {messages, agentId?, images?,
 * conversation_id?, context?} -> a newline-delimited JSON stream (application/x-ndjson) of the
 * spec's agent chunks. Refusals come before the stream, as JSON errors: 400 bad request or
 * unknown agent, 401 not signed in, 402 insufficient credits, 403 agent or workspace not
 * allowed, 404 someone else's conversation id, 413 body too large, 503 model not configured.
 * conversation_id: null or absent starts a conversation with a server-made id, a client-made
 * UUID nobody uses yet starts one with that id, one of the caller's ids continues it. The
 * conversation is named in the X-Conversation-Id header and in the first chunk, a `status`
 * with conversation_id and new_conversation.
 *
 * A route table; the domain is packages/shared/agent (chat.ts has the request's stages).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, jsonBody } from "@shared/http/openapi.ts";
import { access, requireUser, userOnly } from "@shared/auth/context.ts";
import {
  AgentChatRequestSchema,
  MAX_IMAGE_BYTES,
  MAX_IMAGES,
  prepareAgentChat,
  streamAgentChat,
} from "@shared/agent/mod.ts";

const app = createFunctionApp("agent-chat");

// Base64 images (4/3 of their bytes) plus the messages.
const MAX_BODY_BYTES = Math.ceil((MAX_IMAGES * MAX_IMAGE_BYTES * 4) / 3) + 4 * 1024 * 1024;

const limitRequestBody = limitBody(MAX_BODY_BYTES);

/** One line of the stream (the spec's Events table, plus `error` before `done` on a failure). */
const AgentChunk = z.looseObject({
  type: z.enum([
    "status",
    "heartbeat",
    "tool_progress",
    "tool_call_ids",
    "price_lookup_matches",
    "price_proposal",
    "text",
    "error",
    "done",
  ]),
}).meta({ description: "One JSON object per line; `done` is always the last line" });

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Agent chat"],
    summary: "One agent turn, streamed as NDJSON chunks",
    // The body limit and the sign-in check come before the body is read and validated.
    middleware: [limitRequestBody, userOnly] as const,
    request: jsonBody(AgentChatRequestSchema),
    responses: {
      200: {
        description: "The turn's chunks, one JSON object per line. The first is a status naming the " +
          "conversation ({type: status, message, conversation_id, new_conversation}), as does the " +
          "X-Conversation-Id header",
        headers: z.object({ "x-conversation-id": z.uuid() }),
        content: { "application/x-ndjson": { schema: AgentChunk } },
      },
      ...errorResponses,
      404: errorResponse("conversation_id is someone else's conversation (code conversation_not_found)"),
      402: errorResponse("Insufficient credits for the agent's price: nothing runs, nothing is saved"),
      413: errorResponse("The request body is too large"),
      503: errorResponse("No language model is configured"),
    },
  }),
  async (c) => {
    const who = requireUser(c);
    const body = c.req.valid("json");
    const prepared = await prepareAgentChat(who, await access(c), body);
    return streamAgentChat(prepared);
  },
);

export default app;
