/**
 * Response schemas of the quotes functions (quotes-api, generate-quote-pdf), for their OpenAPI
 * routes: rows as PostgREST returns them (loose objects: a column added by a later migration
 * appears in the answer before it appears here) and the quote document quote_document() builds.
 */
import { z } from "zod";

const ts = z.string().meta({ format: "date-time" });
const date = z.string().meta({ format: "date" });
const id = z.uuid();
const text = z.string().nullable();

export const QuoteRequestRow = z.looseObject({
  id,
  quote_id: id,
  workspace_id: id,
  user_id: id,
  notes: text,
  status: z.enum(["pending", "updated", "approved", "rejected"]),
  created_at: ts,
  updated_at: ts,
}).meta({ id: "QuoteRequest" });

/** A quote request with a summary of its quote. */
export const QuoteRequestWithQuote = QuoteRequestRow.extend({
  quotes: z.looseObject({
    id,
    quote_number: z.string(),
    title: text,
    customer_name: text,
    currency: z.string(),
    status: z.string(),
  }).nullable(),
}).meta({ id: "QuoteRequestWithQuote" });

/** A proposal with the quote request it answers (always one of the caller's own). */
export const ProposalWithRequest = z.looseObject({
  id,
  quote_request_id: id,
  workspace_id: id,
  created_by: id.nullable(),
  message: text,
  amount: z.number().nullable(),
  currency: z.string(),
  valid_until: date.nullable(),
  status: z.enum(["pending", "accepted", "rejected"]),
  responded_at: ts.nullable(),
  created_at: ts,
  updated_at: ts,
  quote_requests: QuoteRequestRow,
}).meta({ id: "Proposal" });

export const QuoteItemRow = z.looseObject({
  id,
  quote_id: id,
  workspace_id: id,
  product_id: id.nullable(),
  description: text,
  quantity: z.number(),
  unit: text,
  unit_price: z.number().nullable(),
  discounted_price: z.number().nullable(),
  price_source: text,
  price_lookup_call_id: id.nullable(),
  notes: text,
  position: z.number().int(),
  created_at: ts,
  updated_at: ts,
}).meta({ id: "QuoteItem" });

/** What quote_document() returns: the figures the API and the PDF show, totals computed in SQL. */
export const QuoteDocumentSchema = z.object({
  quote: z.looseObject({
    id,
    workspace_id: id,
    quote_number: z.string(),
    title: text,
    customer_name: text,
    customer_email: text,
    customer_company: text,
    customer_address: text,
    currency: z.string(),
    status: z.string(),
    valid_until: date.nullable(),
    notes: text,
    issue_date: date,
  }),
  items: z.array(z.looseObject({
    id,
    position: z.number().int(),
    product_id: id.nullable(),
    label: text,
    quantity: z.number(),
    unit: text,
    unit_price: z.number().nullable(),
    discounted_price: z.number().nullable(),
    effective_unit_price: z.number().nullable(),
    list_total: z.number().nullable(),
    line_total: z.number().nullable(),
    price_source: text,
    notes: text,
  })),
  totals: z.object({
    item_count: z.number().int(),
    unpriced_item_count: z.number().int(),
    subtotal: z.number(),
    discount_total: z.number(),
    total: z.number(),
    currency: z.string(),
  }),
  fingerprint: z.string(),
  pdf: z.object({ storage_path: text, fingerprint: text, generated_at: ts.nullable() }),
}).meta({ id: "QuoteDocument" });

export const GeneratedPdf = z.object({
  success: z.literal(true),
  quote_number: z.string(),
  pdf_url: z.string().meta({ description: "A signed URL, valid for 7 days" }),
  pdf_storage_path: z.string(),
}).meta({ id: "GeneratedQuotePdf" });

/** `{data}` around one value. */
export const dataOf = <S extends z.ZodType>(schema: S) => z.object({ data: schema });
/** `{data: [...]}` */
export const listOf = <S extends z.ZodType>(schema: S) => z.object({ data: z.array(schema) });
