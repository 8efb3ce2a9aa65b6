/**
 * Messaging (SMS and WhatsApp through Twilio): the rules of spec "Messaging" written once.
 * Stages: schemas (request bodies) -> send (channel, template, opt-outs, quota, pacing, logs)
 * -> provider (the Twilio SDK) ; bulk (send-bulk on the messaging_bulk queue, its worker and
 * progress) ; webhook (signature, status moves, opt-out keywords); actions
 * (reads, analytics, settings, balance, channel sync).
 */
export * from "./schemas.ts";
export * from "./phone.ts";
export * from "./template.ts";
export * from "./clock.ts";
export * from "./limiter.ts";
export * from "./context.ts";
export * from "./provider.ts";
export * from "./send.ts";
export * from "./bulk.ts";
export * from "./actions.ts";
export * from "./webhook.ts";
export * from "./callback.ts";
