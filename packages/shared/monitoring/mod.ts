/** Competitor price monitoring (spec "Price monitoring"): settings, checks, extraction, scheduling. */
export * from "./schemas.ts";
export { type ExtractionHints, extractPrice } from "./extract.ts";
export {
  BILLING_ACTION,
  type CheckOutcome,
  CREDITS_PER_SOURCE,
  MAX_SOURCES_PER_CHECK,
  runCheck,
} from "./check.ts";
export {
  type MonitoringStatus,
  monitoringStatus,
  type MonitoringView,
  startMonitoring,
  stopMonitoring,
} from "./settings.ts";
export { type MonitoredProduct, monitoredProduct, runMonitoringAction } from "./actions.ts";
export { CLAIM_LIMIT, runScheduledChecks, type ScheduledOutcome, STALE_AFTER_MS } from "./scheduler.ts";
