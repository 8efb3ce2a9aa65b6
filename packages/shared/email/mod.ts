/**
 * Email (spec "Email"): sending through the provider with verified sender domains, templates,
 * suppression, the send log, daily analytics and the provider's signed delivery webhooks.
 * No HTTP here: the email-api and email-webhooks functions call these and render DomainErrors.
 */
export * from "./schemas.ts";
export { pickWorkspace } from "./scope.ts";
export { EMAIL_ACTIONS, refuseRemovedAction, runEmailAction } from "./actions.ts";
export { addDomain, listDomains, markDomainVerified } from "./domains.ts";
export { sendEmail } from "./send.ts";
export { emailAnalytics, listLogs } from "./reports.ts";
export { EVENT_MAP, handleEmailWebhook } from "./events.ts";
export { webhookSecret } from "./provider.ts";
export { renderTemplate } from "./templates.ts";
