/**
 * Search suggestions: requests of the gateway's search actions (spec "Gateway", group Search), as
 * AI-backend bodies (POST) and query strings (GET). Every request may name one `workspace_id`
 * the caller belongs to; without it, results cover every workspace the caller belongs to (the
 * service-role key must name one).
 */
import { z } from "zod";

const workspace = z.uuid({ error: "workspace_id must be a UUID" });
const text = (max: number, name = "query") =>
  z.string({ error: `${name} is required` }).trim().min(1, `${name} must not be empty`).max(
    max,
    `${name} is longer than ${max} characters`,
  );
const int = (min: number, max: number, def: number, name: string) =>
  z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`).min(
    min,
    `${name} must be at least ${min}`,
  )
    .max(max, `${name} must be at most ${max}`).default(def);

export const AutocompleteRequest = z.strictObject({
  query: text(200),
  workspace_id: workspace.optional(),
  limit: int(1, 25, 10, "limit"),
});

export const TextRequest = z.strictObject({ query: text(500), workspace_id: workspace.optional() });

export const TrendingQuery = z.object({
  workspace_id: workspace.optional(),
  days: int(1, 365, 7, "days"),
  limit: int(1, 50, 10, "limit"),
});

export const RecommendationsQuery = z.object({
  workspace_id: workspace.optional(),
  limit: int(1, 50, 10, "limit"),
});

/** Records one search (with `query`; then workspace_id is required) and answers the analytics. */
export const AnalyticsRequest = z.strictObject({
  workspace_id: workspace.optional(),
  query: text(500).optional(),
  results_count: z.number().int().min(0).optional(),
  source: z.string().max(50).default("search"),
  days: int(1, 365, 30, "days"),
}).refine((r) => r.query === undefined || r.workspace_id !== undefined, {
  message: "workspace_id is required to record a search",
  path: ["workspace_id"],
});

export const SUGGESTION_TYPES = [
  "product",
  "query",
  "correction",
  "expansion",
  "trending",
  "recommendation",
] as const;

export const ClickRequest = z.strictObject({
  workspace_id: workspace,
  query: text(500),
  suggestion: text(500, "suggestion"),
  suggestion_type: z.enum(SUGGESTION_TYPES, {
    error: `suggestion_type must be one of ${SUGGESTION_TYPES.join(", ")}`,
  }),
  product_id: z.uuid({ error: "product_id must be a UUID" }).optional(),
  position: z.number().int().min(0).optional(),
});
