/**
 * POST /functions/v1/social-publish-cron: the per-minute scheduler tick, called by pg_cron
 * through pg_net with the service-role key from Vault (migration
 * 20260213000200_social_publish_cron.sql); anyone else is refused (anon 401, users 403). Claims
 * the due scheduled posts (social_claim_due_posts: overlapping ticks never share a post) and
 * publishes each once. Answer {success, claimed, posts: [{post_id, late_post_id, status, ...}]}.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { serviceDb, serviceRoleOnly } from "@shared/auth/context.ts";
import { lateFromEnv, runDuePosts } from "@shared/social/mod.ts";

const app = createFunctionApp("social-publish-cron");
app.use("*", serviceRoleOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Social"],
    summary: "Claim and publish the due scheduled posts",
    responses: { ...okJson("{success, claimed, posts}"), ...errorResponses },
  }),
  async (c) => c.json({ success: true, ...await runDuePosts(serviceDb(c), lateFromEnv) }, 200),
);

export default app;
