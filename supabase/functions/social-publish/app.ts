/**
 * POST /functions/v1/social-publish (spec "Social functions"): {action: publish_now | schedule,
 * social_account_id, workspace_id, content, media_url?, media_type?, scheduled_at (schedule:
 * in the future)} -> {success, post_id, late_post_id, status}. User JWT; owner, admin or member
 * of the workspace, which must own the account. The platform's caption and media rules are
 * checked first (400 platform_limits). Publishing is free. A scheduled post has late_post_id
 * null until the per-minute tick (social-publish-cron) publishes it.
 * Domain: packages/shared/social/publish.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { userOnly } from "@shared/auth/context.ts";
import { lateFromEnv, PublishBody, publishPost } from "@shared/social/mod.ts";
import { PUBLISHERS, socialScope } from "@shared/social/scope.ts";

const app = createFunctionApp("social-publish");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Social"],
    summary: "Publish a post now or schedule it",
    request: jsonBody(PublishBody),
    responses: {
      ...okJson("{success, post_id, late_post_id, status: published | scheduled | publishing}"),
      ...errorResponses,
      409: errorResponse("The social account is disconnected"),
      502: errorResponse("The publishing provider refused or failed the post"),
      503: errorResponse("The publishing provider is not configured"),
    },
  }),
  async (c) => {
    const req = c.req.valid("json");
    const s = await socialScope(c, req.workspace_id, PUBLISHERS, "Publishing");
    return c.json(await publishPost(s, lateFromEnv(), req), 200);
  },
);

export default app;
