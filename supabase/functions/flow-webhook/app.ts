/**
 * POST /functions/v1/flow-webhook?flow_id=<uuid> (spec "Flow engine"): public. The JSON body
 * becomes trigger.data; the short form {event_type, data} gives `data` (with event_type added).
 * An unknown, disabled or non-webhook flow is a 404; bodies over 256 KiB a 413.
 *
 * A flow whose webhook trigger sets require_signature needs, from its sender,
 *
 *     X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
 *
 * keyed by the flow's webhook secret (the scheme of the project's own outgoing webhooks,
 * @shared/webhook_signature.ts; more than one v1= entry is allowed, one must match). Checked in
 * constant time before the body is parsed, never skipped: 401 `signature_required` without it,
 * 401 `invalid_signature` for a wrong one or another format (the old body-only `sha256=<hex>`
 * included), 401 `signature_expired` when t is more than 5 minutes from now. Each accepted
 * signed delivery is recorded (public.flow_webhook_deliveries, keyed by a hash of t and v1) for
 * as long as its t could pass, so the same delivery again answers 200 {success: true,
 * duplicate: true} and starts nothing: a resend is acknowledged, not run twice. Two distinct
 * deliveries need distinct t or bodies; a sender's retry signed afresh runs again.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { flowClock, runWebhookFlow } from "@shared/flows/mod.ts";

const MAX_BODY_BYTES = 256 * 1024;
const app = createFunctionApp("flow-webhook");

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Flow engine"],
    summary: "Run a webhook-triggered flow with the request body as trigger.data",
    middleware: limitBody(MAX_BODY_BYTES, "body"),
    request: { query: z.object({ flow_id: z.uuid() }) },
    responses: {
      ...okJson(
        "{success, run_id, status, error_message}, or {success, duplicate: true} for a replayed delivery",
      ),
      ...errorResponses,
    },
  }),
  async (c) => {
    const { flow_id } = c.req.valid("query");
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const signature = c.req.header("x-webhook-signature") ?? null;
    return c.json(await runWebhookFlow(serviceDb(c), flowClock(), flow_id, raw, signature), 200);
  },
);

export default app;
