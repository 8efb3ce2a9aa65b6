/**
 * zod schemas of the pricing shapes that cross an API boundary: the price_lookup tool
 * parameters and the price_proposal chunk (reused for OpenAPI and for validating tool calls).
 */
import { z } from "zod";
import { PRICE_DOC_TYPES } from "./entries.ts";

export const PriceDocTypeSchema = z.enum(PRICE_DOC_TYPES);

/** The price_lookup tool's parameters as the spec lists them (today is added by the caller). */
export const PriceLookupParamsSchema = z.object({
  product_name: z.string().min(1),
  sku: z.string().min(1).optional(),
  manufacturer: z.string().min(1).optional(),
  quantity: z.number().positive().finite().optional(),
  unit: z.string().min(1).optional(),
  product_id: z.uuid().optional(),
  category_slug: z.literal("pricing").optional(),
  /**
   * Ours, beyond the spec's table (additive): the customer the price is for, when the quote or
   * conversation names one. Contract terms agreed for one customer apply only to its lookups.
   */
  customer: z.string().min(1).max(200).optional(),
});

export const PriceProposalSchema = z.strictObject({
  type: z.literal("price_proposal"),
  product_id: z.string().optional(),
  product_name: z.string().optional(),
  list_price: z.number().nullable(),
  discount_percent: z.number().nullable(),
  final_unit_price: z.number().nullable(),
  currency: z.string(),
  unit: z.string().nullable(),
  quantity_applied: z.number().nullable(),
  total: z.number().nullable(),
  source_doc_ids: z.array(z.string()),
  source_titles: z.array(z.string()),
  reasoning_chain: z.array(z.string()),
  warnings: z.array(z.string()),
  confidence: z.enum(["high", "medium", "low"]),
  effective_through: z.string().nullable(),
});
