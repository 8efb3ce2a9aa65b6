/**
 * zod schemas of the quotes API (quotes-api, generate-quote-pdf). The same value sets as the
 * table constraints in supabase/migrations/2026010300{01,03}00_*.sql, so bad input is a 400 here
 * and never reaches the database. quotes-api's bodies are strict: an undeclared key is a 400
 * naming it (docs/request-bodies.md).
 */
import { z } from "zod";
import { hasAtMostDecimals } from "../money.ts";

/** Any 8-4-4-4-12 hex id, as Postgres's uuid type accepts it. */
const Uuid = z.guid();

const QUOTE_REQUEST_STATUSES = ["pending", "updated", "approved", "rejected"] as const;
/** What a requester answers; `pending` is the state a proposal is made in. */
const PROPOSAL_ANSWERS = ["accepted", "rejected"] as const;

export const PRICE_SOURCE_PATTERN =
  /^(?:manual|catalog|(?:kb:ai:|kb:quick:|product_price:)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** A price or quantity as numeric(14, 4) stores it: non-negative, < 10^10, at most 4 decimals. */
const Numeric14_4 = z.number().finite().nonnegative().lt(1e10)
  .refine((n) => hasAtMostDecimals(n, 4), "at most 4 decimals");

const Notes = z.string().max(10_000);

export const IdParam = z.object({ id: Uuid });

export const CreateQuoteRequestBody = z.strictObject({
  quote_id: Uuid,
  workspace_id: Uuid,
  notes: Notes.nullish(),
});

export const UpdateQuoteRequestBody = z.strictObject({ status: z.enum(QUOTE_REQUEST_STATUSES) });

export const AnswerProposalBody = z.strictObject({ status: z.enum(PROPOSAL_ANSWERS) });

/** PATCH /quote-items/{id}: the pricing commit fields, plus the line's other editable columns. */
export const UpdateQuoteItemBody = z.strictObject({
  unit_price: Numeric14_4.nullable().optional(),
  discounted_price: Numeric14_4.nullable().optional(),
  price_source: z.string().regex(
    PRICE_SOURCE_PATTERN,
    "manual, catalog, kb:ai:<id>, kb:quick:<id> or product_price:<id>",
  )
    .nullable().optional(),
  price_lookup_call_id: Uuid.nullable().optional(),
  notes: Notes.nullable().optional(),
  quantity: Numeric14_4.refine((n) => n > 0, "must be positive").optional(),
  unit: z.string().max(50).nullable().optional(),
  description: z.string().max(2_000).nullable().optional(),
  position: z.number().int().min(0).max(1_000_000).optional(),
}).refine((b) => Object.keys(b).length > 0, "nothing to update");

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
});

export const GeneratePdfBody = z.strictObject({
  quote_id: Uuid,
  regenerate: z.boolean().optional(),
});
