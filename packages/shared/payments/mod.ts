/**
 * Payments and billing (spec "Billing"): the plan and credit catalog, one payment customer per
 * user, checkout and customer-portal sessions at Stripe, the provider's signed events applied
 * once, and the request and response schemas of crm-billing-api, payments-checkout,
 * payments-customer-portal and payments-webhook.
 *
 * | module        | owns                                                                        |
 * | ------------- | --------------------------------------------------------------------------- |
 * | `provider.ts` | the Stripe SDK client from env, webhook signature check, provider errors    |
 * | `billing.ts`  | catalog lookups, ensureCustomer, credit/subscription checkouts, the portal  |
 * | `checkout.ts` | payments-checkout's request: a package or a plan -> its hosted checkout    |
 * | `webhook.ts`  | verified events -> the atomic SQL functions (idempotent by event id)        |
 * | `schemas.ts`  | zod bodies and responses                                                    |
 * | `caller.ts`   | the billing user of a request (from the JWT)                                |
 */
export * from "./billing.ts";
export * from "./caller.ts";
export * from "./checkout.ts";
export * from "./provider.ts";
export * from "./schemas.ts";
export * from "./webhook.ts";
