/**
 * price-monitoring request and response (spec "Price monitoring"). The spec's body is
 * {action, productId, monitoringSettings {frequency, enabled}}; monitoringSettings is read by
 * start_monitoring only (default {frequency: daily, enabled: true}). Both objects are strict: an
 * undeclared key (`product_id`, `settings`, `monitoringSettings.interval`) is a 400 naming it.
 */
import { z } from "@hono/zod-openapi";

export const FREQUENCIES = ["hourly", "daily", "weekly", "on_demand"] as const;
export type Frequency = (typeof FREQUENCIES)[number];
export const ACTIONS = ["start_monitoring", "stop_monitoring", "check_now", "get_status"] as const;

export const MonitoringSettings = z.strictObject({
  frequency: z.enum(FREQUENCIES, { error: `frequency must be one of ${FREQUENCIES.join(", ")}` }).default(
    "daily",
  ),
  enabled: z.boolean().default(true),
});

export const PriceMonitoringRequest = z.strictObject({
  action: z.enum(ACTIONS, { error: `action must be one of ${ACTIONS.join(", ")}` }),
  productId: z.uuid({ error: "productId must be a UUID" }),
  monitoringSettings: MonitoringSettings.optional(),
}).meta({ id: "PriceMonitoringRequest" });
export type PriceMonitoringRequest = z.infer<typeof PriceMonitoringRequest>;

/** One source's outcome in a check (also price_monitoring_jobs.results). */
export interface SourceResult {
  source_id: string;
  competitor_name: string;
  url: string;
  /** ok: a price was read; no_price: the page was read but holds no usable price; failed: not read. */
  status: "ok" | "no_price" | "failed";
  price: string | null;
  currency: string | null;
  /** How the price was found: a CSS selector hint, or the page's structured data. */
  via: "selector" | "json-ld" | "microdata" | "opengraph" | null;
  error: string | null;
}
