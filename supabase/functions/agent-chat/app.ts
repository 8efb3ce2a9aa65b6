/**
 * POST /functions/v1/agent-chat (spec "Agent chat"): {messages, agentId?, images?,
 * conversation_id?, context?} -> a newline-delimited JSON stream (application/x-ndjson) of the
 * spec's agent chunks. Refusals come before the stream, as JSON errors: 400 bad request or
 * unknown agent, 401 not signed in, 402 insufficient credits, 403 agent or workspace not
 * allowed, 404 unknown conversation, 503 model not configured. The response header
 * X-Conversation-Id names the conversation the turn was saved in.
 *
 * Domain: packages/shared/agent (chat.ts has the request's stages).
 */
import { bodyLimit } from "hono/body-limit";
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { parseJson } from "@shared/http/validate.ts";
import { access, requireUser } from "@shared/auth/context.ts";
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

app.post(
  "/",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HttpError(413, "payload_too_large", `The request body exceeds ${MAX_BODY_BYTES} bytes`);
    },
  }),
  async (c) => {
    const who = requireUser(c);
    const body = await parseJson(c, AgentChatRequestSchema);
    const prepared = await prepareAgentChat(who, await access(c), body);
    return streamAgentChat(prepared);
  },
);

export default app;
