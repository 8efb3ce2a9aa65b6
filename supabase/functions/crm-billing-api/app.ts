/**
 * /functions/v1/crm-billing-api (spec "Billing"): a signed-in user's own billing. Checkouts are
 * priced from the catalog (a body names only the plan or package) and opened for the user's one
 * payment customer; the user's subscription and balance are read as the user (RLS: their own).
 * A checkout answers {url, session_id} like payments-checkout's {url} (the spec's shape for a
 * redirect), and the same again under `data` for earlier clients (CheckoutData).
 * Domain: packages/shared/payments/billing.ts.
 */
import { createRoute as route } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { db, serviceDb, userOnly } from "@shared/auth/context.ts";
import { env } from "@shared/env.ts";
import * as billing from "@shared/payments/mod.ts";

const tags = ["Billing"];
const checkoutErrors = {
  ...errorResponses,
  409: errorResponse("The user already has a live subscription: {error, code: subscription_exists}"),
  502: errorResponse("The payment provider refused: {error, code: payment_provider_error}"),
  503: errorResponse("Payments are not configured: {error, code: payments_not_configured}"),
};

const app = createFunctionApp("crm-billing-api");
app.use("*", userOnly);

app.openapi(
  route({
    method: "post",
    path: "/subscriptions/create-checkout",
    tags,
    summary: "A hosted checkout for a subscription plan, at the plan's catalog price",
    request: jsonBody(billing.CreateSubscriptionCheckoutBody),
    responses: {
      ...okJson(
        "The checkout to send the user to: {url, session_id, data: {url, session_id}}",
        200,
        billing.CheckoutData,
      ),
      ...checkoutErrors,
    },
  }),
  async (c) => {
    const { plan_id } = c.req.valid("json");
    const plan = await billing.planBy(serviceDb(c), { id: plan_id });
    const data = await billing.subscriptionCheckout(
      serviceDb(c),
      billing.stripeClient(),
      billing.billingUser(c),
      plan,
      billing.defaultCheckoutUrls(env),
    );
    return c.json({ ...data, data }, 200);
  },
);

app.openapi(
  route({
    method: "post",
    path: "/credits/purchase",
    tags,
    summary: "A hosted checkout for a credit package, at the package's catalog price",
    request: jsonBody(billing.PurchaseCreditsBody),
    responses: {
      ...okJson(
        "The checkout to send the user to: {url, session_id, data: {url, session_id}}",
        200,
        billing.CheckoutData,
      ),
      ...checkoutErrors,
    },
  }),
  async (c) => {
    const { package_id } = c.req.valid("json");
    const pkg = await billing.packageById(serviceDb(c), package_id);
    const data = await billing.creditCheckout(
      serviceDb(c),
      billing.stripeClient(),
      billing.billingUser(c),
      pkg,
      billing.defaultCheckoutUrls(env),
    );
    return c.json({ ...data, data }, 200);
  },
);

app.openapi(
  route({
    method: "get",
    path: "/subscriptions",
    tags,
    summary: "The caller's live subscription (else their latest, else null) with its plan",
    responses: { ...okJson("The subscription", 200, billing.SubscriptionData), ...errorResponses },
  }),
  async (c) => c.json({ data: await billing.currentSubscription(db(c), billing.billingUser(c).id) }, 200),
);

app.openapi(
  route({
    method: "get",
    path: "/credits",
    tags,
    summary: "The caller's credit balance",
    responses: { ...okJson("The balance", 200, billing.CreditsData), ...errorResponses },
  }),
  async (c) => c.json({ data: await billing.creditBalance(db(c), billing.billingUser(c).id) }, 200),
);

export default app;
