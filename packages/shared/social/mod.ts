/**
 * Social publishing (spec "Social functions", "Social provider webhook"): connected accounts
 * (accounts.ts, oauth_state.ts), publishing and the scheduler tick (publish.ts), analytics
 * (analytics.ts), caption and image generation (content.ts, images.ts), the provider's
 * webhooks (webhook.ts), per-platform rules (platforms.ts) and the provider client (late.ts).
 */
export * from "./accounts.ts";
export * from "./analytics.ts";
export * from "./content.ts";
export * from "./images.ts";
export * from "./late.ts";
export * from "./oauth.ts";
export * from "./oauth_state.ts";
export * from "./platforms.ts";
export * from "./publish.ts";
export * from "./schemas.ts";
export * from "./webhook.ts";
