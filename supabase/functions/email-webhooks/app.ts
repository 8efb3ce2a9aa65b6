/**
 * POST /functions/v1/email-webhooks (spec "Email provider webhook"): the email provider's
 * delivery events (email.sent, delivered, delivery_delayed, bounced, complained, opened,
 * clicked), Svix-signed with RESEND_WEBHOOK_SECRET. No JWT (verify_jwt = false): the signature
 * is the authentication. 401 forged, tampered or stale (over 5 minutes); 400 not an event;
 * 200 {received, outcome} otherwise, a replayed svix-id included (outcome `duplicate`, nothing
 * changed). Mapping of events to logs and analytics: packages/shared/email/events.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { handleEmailWebhook, webhookSecret } from "@shared/email/mod.ts";

const MAX_BODY_BYTES = 1024 * 1024;

const app = createFunctionApp("email-webhooks");

app.use(
  "/",
  limitBody(MAX_BODY_BYTES, "webhook body"),
);

const Received = z.object({
  received: z.literal(true),
  type: z.string(),
  outcome: z.enum(["applied", "duplicate", "unknown_email", "ignored"]),
});

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Email"],
    summary: "Provider delivery events, Svix-signed (svix-id, svix-timestamp, svix-signature)",
    responses: {
      ...okJson("The event was verified and applied (or was a replay, or is ignored)", 200, Received),
      ...errorResponses,
      503: errorResponse("The webhook secret is not configured"),
    },
  }),
  async (c) => {
    const raw = await c.req.text();
    const headers = {
      id: c.req.header("svix-id") ?? null,
      timestamp: c.req.header("svix-timestamp") ?? null,
      signature: c.req.header("svix-signature") ?? null,
    };
    const result = await handleEmailWebhook(serviceDb(c), webhookSecret(), headers, raw);
    return c.json({ received: true as const, ...result }, 200);
  },
);

export default app;
