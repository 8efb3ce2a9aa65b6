/**
 * POST /functions/v1/payments-checkout (spec "Billing"): a hosted checkout for the signed-in
 * user. credit_purchase names credits and a EUR price, which must be a package of the catalog
 * exactly (the server prices it, the body is only checked against it); subscription names the
 * provider price id of a catalog plan. Domain: packages/shared/payments/billing.ts.
 */
import { createRoute as route } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb, userOnly } from "@shared/auth/context.ts";
import * as billing from "@shared/payments/mod.ts";

const app = createFunctionApp("payments-checkout");
app.use("*", userOnly);

app.openapi(
  route({
    method: "post",
    path: "/",
    tags: ["Billing"],
    summary: "Open a checkout for a credit package or a subscription plan",
    request: jsonBody(billing.PaymentsCheckoutBody),
    responses: {
      ...okJson("The hosted checkout page", 200, billing.UrlResponse),
      ...errorResponses,
      409: errorResponse("The user already has a live subscription: {error, code: subscription_exists}"),
      502: errorResponse("The payment provider refused: {error, code: payment_provider_error}"),
      503: errorResponse("Payments are not configured: {error, code: payments_not_configured}"),
    },
  }),
  async (c) => {
    const user = billing.billingUser(c);
    const out = await billing.openCheckout(serviceDb(c), billing.stripeClient, user, c.req.valid("json"));
    return c.json(out, 200);
  },
);

export default app;
