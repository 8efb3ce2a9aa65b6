/**
 * The quote document: what `public.quote_document(quote_id)` returns, the single source of the
 * figures the API and the PDF show (totals are computed in SQL, never here).
 */

export interface QuoteHeader {
  id: string;
  workspace_id: string;
  quote_number: string;
  title: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_company: string | null;
  customer_address: string | null;
  currency: string;
  status: string;
  /** yyyy-mm-dd */
  valid_until: string | null;
  notes: string | null;
  /** yyyy-mm-dd (UTC) */
  issue_date: string;
}

export interface QuoteLine {
  id: string;
  position: number;
  product_id: string | null;
  /** The line's description, or its product's name. */
  label: string | null;
  quantity: number;
  unit: string | null;
  unit_price: number | null;
  discounted_price: number | null;
  effective_unit_price: number | null;
  /** quantity x list price, rounded to 2 decimals half-up (null when unpriced). */
  list_total: number | null;
  /** quantity x discounted (else list) price, rounded to 2 decimals half-up. */
  line_total: number | null;
  price_source: string | null;
  notes: string | null;
}

export interface QuoteTotals {
  item_count: number;
  unpriced_item_count: number;
  subtotal: number;
  discount_total: number;
  total: number;
  currency: string;
}

export interface QuoteDocument {
  quote: QuoteHeader;
  items: QuoteLine[];
  totals: QuoteTotals;
  /** md5 of the printed content (quote, items, totals). */
  fingerprint: string;
  /** The stored PDF, if one was generated. */
  pdf: { storage_path: string | null; fingerprint: string | null; generated_at: string | null };
}
