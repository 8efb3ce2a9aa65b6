/**
 * /functions/v1/social-oauth (spec "Social functions"): connecting social accounts through the
 * publishing provider's OAuth. User JWT required.
 *
 * | request                                          | who          | answer                                  |
 * | ------------------------------------------------ | ------------ | --------------------------------------- |
 * | POST {action: connect, platform, workspace_id, redirect_url?} | owner, admin | {success, oauth_url, state, expires_at} |
 * | POST {action: callback, late_account_id, platform, workspace_id, state} | owner, admin (the user who connected) | {success, account} |
 * | POST {action: disconnect, social_account_id}     | owner, admin | {success, account}                      |
 * | GET ?action=list&workspace_id=                   | any member   | {success, accounts}                     |
 *
 * The state is signed, single-use and expires after 10 minutes (400 invalid_state,
 * state_mismatch, state_expired, state_used). Domain: packages/shared/social/accounts.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb, userOnly, workspaceRole } from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import {
  lateFromEnv,
  listConnected,
  OAuthBody,
  OAuthListQuery,
  oauthTarget,
  runOAuthAction,
} from "@shared/social/mod.ts";
import { ACCOUNT_ADMINS, READERS, socialScope } from "@shared/social/scope.ts";

const app = createFunctionApp("social-oauth");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Social"],
    summary: "Connect (OAuth URL), complete the callback, or disconnect a social account",
    request: jsonBody(OAuthBody),
    responses: {
      ...okJson("{success, oauth_url, state, expires_at} or {success, account}"),
      ...errorResponses,
      409: errorResponse("The account is connected to another workspace"),
      502: errorResponse("The publishing provider refused the request"),
      503: errorResponse("The publishing provider is not configured"),
    },
  }),
  async (c) => {
    const req = c.req.valid("json");
    const target = await oauthTarget(serviceDb(c), req);
    // Outsiders learn nothing: the same 404 as for an account id that does not exist.
    if (target.account && await workspaceRole(c, target.workspaceId) === null) {
      throw DomainError.notFound("Social account not found");
    }
    const s = await socialScope(c, target.workspaceId, ACCOUNT_ADMINS, target.what);
    return c.json(await runOAuthAction(s, lateFromEnv, req, target.account), 200);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/",
    tags: ["Social"],
    summary: "List the workspace's connected accounts (?action=list&workspace_id=)",
    request: { query: OAuthListQuery },
    responses: { ...okJson("{success, accounts}"), ...errorResponses },
  }),
  async (c) => {
    const { workspace_id } = c.req.valid("query");
    const s = await socialScope(c, workspace_id, READERS, "Listing social accounts");
    return c.json({ success: true, accounts: await listConnected(s) }, 200);
  },
);

export default app;
