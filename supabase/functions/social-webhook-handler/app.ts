/**
 * POST /functions/v1/social-webhook-handler (spec "Social provider webhook"): the publishing
 * provider's (Late / Zernio) events, signed with the hex HMAC-SHA256 of the raw body under
 * LATE_WEBHOOK_SECRET in X-Zernio-Signature (legacy X-Late-Signature). No JWT (verify_jwt =
 * false): the signature is the authentication. 401 unsigned, forged or outside the 5-minute
 * replay window; 400 not an event; 200 {received, event, outcome}, a redelivered id answering
 * outcome `duplicate` with nothing changed. Events and effects: packages/shared/social/webhook.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { handleLateWebhook, lateWebhookSecret } from "@shared/social/mod.ts";

const MAX_BODY_BYTES = 256 * 1024;

const app = createFunctionApp("social-webhook-handler");
app.use(
  "/",
  limitBody(MAX_BODY_BYTES, "webhook body"),
);

const Received = z.object({ received: z.literal(true), event: z.string(), outcome: z.string() });

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Social"],
    summary: "Publishing provider events (X-Zernio-Signature: hex HMAC-SHA256 of the body)",
    responses: {
      ...okJson("The event was verified and applied (or was a redelivery, or is ignored)", 200, Received),
      ...errorResponses,
      413: errorResponse("The body is too large"),
      503: errorResponse("The webhook secret is not configured"),
    },
  }),
  async (c) => {
    const raw = await c.req.text();
    const signature = c.req.header("x-zernio-signature") ?? c.req.header("x-late-signature") ?? null;
    const result = await handleLateWebhook(serviceDb(c), lateWebhookSecret(), signature, raw);
    return c.json({ received: true as const, ...result }, 200);
  },
);

export default app;
