/**
 * /functions/v1/messaging-api (spec "Messaging"): POST {action, ...params}. A signed-in user
 * (or the service role naming a workspace: `workspaceId`, alias `workspace_id`); the action
 * table (actions.ts) says which workspace role each action needs. A key the action does not
 * know is a 400 naming it. Plain `content` goes out as written: only the variables given fill
 * its `{{name}}` placeholders, the rest stay literal; a template's declared variables must all
 * be given. Errors answer the messaging shape {success: false, error}.
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createFunctionApp } from "@shared/http/app.ts";
import { toHttpError } from "@shared/http/errors.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { signedIn } from "@shared/auth/context.ts";
import { MessagingRequest } from "@shared/messaging/mod.ts";
import { ACTIONS, runAction } from "./actions.ts";
import { messagingContext } from "./context.ts";

const app = createFunctionApp("messaging-api");

/** Every failure as {success: false, error} with the status errorHandler would give it. */
app.onError((err: Error, c: Context) => {
  const http = toHttpError(err);
  if (http) return c.json({ success: false, error: http.message, code: http.code }, http.status);
  console.error(`[messaging-api ${c.get("requestId" as never) ?? "-"}]`, err);
  return c.json({ success: false, error: "Internal server error", code: "internal_error" }, 500);
});
app.use("*", signedIn);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Messaging"],
    summary:
      "Run a messaging action: send, send-bulk, send-bulk-status, channels, templates, logs, analytics, " +
      "balance, send-test, sync-channels, get-settings, update-settings",
    request: jsonBody(MessagingRequest),
    responses: {
      ...okJson("The action's result, {success: true, ...}"),
      ...errorResponses,
      429: errorResponse("The channel's daily quota is used up: {success: false, error}"),
      502: errorResponse("The service API error: the provider refused or failed the call"),
      503: errorResponse("the service credentials not configured"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const ctx = await messagingContext(c, body.workspaceId, ACTIONS[body.action].roles);
    return c.json(await runAction(ctx, body), 200);
  },
);

export default app;
