/**
 * 3D world generation (spec "3D world generation"): the World Labs client, the request schema and
 * prices, and one generation from debit to stored assets. No HTTP here.
 */
export * from "./schemas.ts";
export * from "./provider.ts";
export {
  assetUrls,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  generateWorld,
  type WorldView,
} from "./generate.ts";
