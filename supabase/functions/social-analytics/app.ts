/**
 * POST /functions/v1/social-analytics (spec "Social functions"). User JWT; any member of the
 * workspace that owns the posts or account.
 *
 * | action               | body                              | answer                                      |
 * | -------------------- | --------------------------------- | ------------------------------------------- |
 * | get_post_analytics   | post_ids, workspace_id            | {success, analytics, pending, not_found}    |
 * | get_account_insights | social_account_id                 | {success, insights}                         |
 * | get_best_time        | social_account_id, platform       | {success, best_times: [{day, hour, ...}], based_on_posts} |
 *
 * Domain: packages/shared/social/analytics.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { HttpError } from "@shared/http/errors.ts";
import { serviceDb, userOnly, workspaceRole } from "@shared/auth/context.ts";
import {
  accountById,
  AnalyticsBody,
  bestTimes,
  lateFromEnv,
  refreshAccountInsights,
  refreshPostAnalytics,
} from "@shared/social/mod.ts";
import { READERS, socialScope } from "@shared/social/scope.ts";
import type { Context } from "hono";

const app = createFunctionApp("social-analytics");
app.use("*", userOnly);

/** The account and a scope in its workspace; outsiders get the 404 of a missing account. */
async function accountScope(c: Context, id: string, what: string) {
  const account = await accountById(serviceDb(c), id);
  if (await workspaceRole(c, account.workspace_id) === null) {
    throw HttpError.notFound("Social account not found");
  }
  return { account, s: await socialScope(c, account.workspace_id, READERS, what) };
}

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Social"],
    summary: "Post analytics, account insights and best posting times",
    request: jsonBody(AnalyticsBody),
    responses: {
      ...okJson("The action's answer"),
      ...errorResponses,
      502: errorResponse("The publishing provider refused the request"),
    },
  }),
  async (c) => {
    const req = c.req.valid("json");
    switch (req.action) {
      case "get_post_analytics": {
        const s = await socialScope(c, req.workspace_id, READERS, "Reading post analytics");
        return c.json(await refreshPostAnalytics(s, lateFromEnv(), req.post_ids), 200);
      }
      case "get_account_insights": {
        const { account, s } = await accountScope(c, req.social_account_id, "Reading account insights");
        return c.json(await refreshAccountInsights(s, lateFromEnv(), account), 200);
      }
      case "get_best_time": {
        const { account, s } = await accountScope(c, req.social_account_id, "Reading the best times");
        return c.json(await bestTimes(s, account, req.platform), 200);
      }
    }
  },
);

export default app;
