/**
 * limit/offset query parameters with per-endpoint defaults (the spec's "Pagination defaults":
 * contacts and companies 50/0, users 1000/0, ai-usage 50). A bad value is a 400, never a silent
 * default; the maximum keeps a page inside PostgREST's max_rows (1000).
 */
import { z } from "zod";

export interface Page {
  limit: number;
  offset: number;
}

export function paginationSchema(defaultLimit: number, maxLimit = 1000) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
    offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  });
}

/** The inclusive row range supabase-js's range(from, to) takes. */
export function pageRange(page: Page): [number, number] {
  return [page.offset, page.offset + page.limit - 1];
}
