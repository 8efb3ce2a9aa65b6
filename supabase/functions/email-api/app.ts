/**
 * POST /functions/v1/email-api (spec "Email"): body {action, ...params}, one route whose body
 * is the union of the actions. Every action is for one workspace: `workspaceId` (alias
 * `workspace_id`), or the caller's only workspace; the caller's role there is read from the
 * database (outsiders 404). A key the action does not know is a 400 naming it.
 *
 * | action               | who                                   | answer                                |
 * | -------------------- | ------------------------------------- | ------------------------------------- |
 * | send                 | owner, admin, member (or service key) | {success, messageId, logId}           |
 * | add-domain           | owner, admin                          | {success, domain, message}            |
 * | mark-domain-verified | owner, admin                          | {success}                             |
 * | domains              | any member                            | {success, domains}                    |
 * | logs                 | any member                            | {success, logs} (limit 50)            |
 * | analytics            | any member                            | {success, totals, rates, dailyData}   |
 *
 * send's `from` is optional: without it the email is from `noreply@` the workspace's default
 * verified domain, else from the platform's own sender (EMAIL_PLATFORM_FROM); with neither it
 * is a 400 `from_required` (packages/shared/email/sender.ts). Plain html/text go out as
 * written, `{{...}}` included; only a template's placeholders take `variables`.
 * The actions removed on 2026-03-11 answer 400 `action_removed` naming the action.
 * Domain: packages/shared/email (send.ts has the send's stages).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { validate } from "@shared/http/validate.ts";
import { access, caller, signedIn, type WorkspaceRoleName } from "@shared/auth/context.ts";
import { type WorkspaceScope, workspaceScope } from "@shared/auth/scope.ts";
import {
  EMAIL_ACTIONS,
  EmailApiRequest,
  EmailApiResponse,
  pickWorkspace,
  refuseRemovedAction,
  REMOVED_ACTIONS,
  runEmailAction,
} from "@shared/email/mod.ts";

const app = createFunctionApp("email-api");
app.use("*", signedIn);

async function scopeFor(
  c: Context,
  workspaceId: string | undefined,
  roles: readonly WorkspaceRoleName[],
  what: string,
): Promise<WorkspaceScope> {
  const memberships = caller(c).kind === "user"
    ? (await access(c)).workspaces.map((w) => w.workspace_id)
    : [];
  return await workspaceScope(c, pickWorkspace(workspaceId, memberships), roles, what);
}

// The body is checked in two steps, so that a removed action is named as removed and a bad
// parameter is named by its field (a union schema would answer "Invalid input" for both).
const ACTIONS = ["send", "add-domain", "mark-domain-verified", "domains", "logs", "analytics"] as const;
const ActionBody = z.object({ action: z.enum([...ACTIONS, ...REMOVED_ACTIONS]) }).loose().openapi({
  description: "The action and its parameters: one of the EmailApiRequest bodies",
});
app.openAPIRegistry.register("EmailApiRequest", EmailApiRequest);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Email"],
    summary: "Send email, manage sending domains, read the log and analytics ({action, ...params})",
    request: jsonBody(ActionBody),
    responses: {
      ...okJson("The action's answer", 200, EmailApiResponse),
      ...errorResponses,
      409: errorResponse("The domain is already added, or verified by another workspace"),
      422: errorResponse("A recipient is suppressed (hard bounce, complaint, or unsubscribed for marketing)"),
      502: errorResponse("The email provider refused the request"),
    },
  }),
  async (c) => {
    refuseRemovedAction(c.req.valid("json").action);
    const req = validate(EmailApiRequest, c.req.valid("json"));
    const { roles, what } = EMAIL_ACTIONS[req.action];
    const s = await scopeFor(c, req.workspaceId, roles, what);
    return c.json(await runEmailAction(s, req), 200);
  },
);

export default app;
