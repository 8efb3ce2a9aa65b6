/**
 * POST /functions/v1/payments-webhook: the payment provider's (Stripe's) events. No JWT (the
 * provider has none; verify_jwt = false): the Stripe-Signature header is the authentication,
 * checked over the raw body before anything is read (400 when missing, forged, tampered or older
 * than 300 s). Each event is applied once, by its id. Domain: packages/shared/payments/webhook.ts.
 */
import { createRoute as route } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { handleEvent, verifyWebhook, WebhookAck } from "@shared/payments/mod.ts";

const app = createFunctionApp("payments-webhook");

app.openapi(
  route({
    method: "post",
    path: "/",
    tags: ["Billing"],
    summary: "Receive a signed Stripe event (raw JSON body, Stripe-Signature header)",
    responses: {
      ...okJson("Applied, already applied (duplicate) or ignored", 200, WebhookAck),
      400: errorResponse("Missing or invalid signature: {error, code: invalid_signature}"),
      500: errorResponse("The event could not be applied; the provider retries it"),
      503: errorResponse("Payments are not configured: {error, code: payments_not_configured}"),
    },
  }),
  async (c) => {
    const event = await verifyWebhook(await c.req.text(), c.req.header("stripe-signature") ?? null);
    const result = await handleEvent(serviceDb(c), event);
    return c.json({ received: true as const, type: event.type, ...result }, 200);
  },
);

export default app;
