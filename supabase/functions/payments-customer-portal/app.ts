/**
 * POST /functions/v1/payments-customer-portal (spec "Billing"): the provider's customer portal
 * for the signed-in user's one payment customer (created on first need, then reused).
 */
import { createRoute as route } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb, userOnly } from "@shared/auth/context.ts";
import { billingUser, PortalBody, portalSession, stripeClient, UrlResponse } from "@shared/payments/mod.ts";

const app = createFunctionApp("payments-customer-portal");
app.use("*", userOnly);

app.openapi(
  route({
    method: "post",
    path: "/",
    tags: ["Billing"],
    summary: "Open the customer portal (subscriptions, invoices, payment methods)",
    request: jsonBody(PortalBody),
    responses: {
      ...okJson("The portal page", 200, UrlResponse),
      ...errorResponses,
      502: errorResponse("The payment provider refused: {error, code: payment_provider_error}"),
      503: errorResponse("Payments are not configured: {error, code: payments_not_configured}"),
    },
  }),
  async (c) => {
    const { returnUrl } = c.req.valid("json");
    return c.json(await portalSession(serviceDb(c), stripeClient(), billingUser(c), returnUrl), 200);
  },
);

export default app;
