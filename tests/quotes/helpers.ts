/**
 * Shared setup for the quotes tests: calling a function as a given bearer, and seeding quotes
 * and lines directly in the database (as the system would) for the APIs to work on.
 */
import type { Platform } from "../../stack/platform.ts";

export interface Call {
  status: number;
  body: Record<string, unknown> & { data?: unknown; error?: string; code?: string };
  headers: Headers;
}

/**
 * Calls /functions/v1/<fn><path>. `token` null sends no credentials at all (the router's 401);
 * otherwise it goes in Authorization (the apikey header carries the anon key, as supabase-js).
 */
export async function call(
  p: Platform,
  fn: string,
  path: string,
  opts: { method?: string; token?: string | null; body?: unknown; rawBody?: string } = {},
): Promise<Call> {
  const headers: Record<string, string> = {};
  if (opts.token !== null) {
    headers.apikey = p.config.anonKey;
    headers.Authorization = `Bearer ${opts.token ?? p.config.anonKey}`;
  }
  if (opts.body !== undefined || opts.rawBody !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(`${p.url}/functions/v1/${fn}${path}`, {
    method: opts.method ?? "GET",
    headers,
    body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : {}, headers: r.headers };
}

export interface SeedItem {
  description?: string;
  quantity?: number;
  unit?: string;
  unit_price?: number | null;
  discounted_price?: number | null;
  product_id?: string;
  position?: number;
}

/** A quote with lines in `workspaceId`, written by the superuser; returns its id and number. */
export async function seedQuote(
  p: Platform,
  workspaceId: string,
  createdBy: string,
  items: SeedItem[] = [{ description: "Tile", quantity: 2, unit: "m2", unit_price: 10, discounted_price: 9 }],
  fields: Record<string, unknown> = {},
): Promise<{ id: string; quote_number: string; items: string[] }> {
  const cols = ["workspace_id", "created_by", ...Object.keys(fields)];
  const vals = [workspaceId, createdBy, ...Object.values(fields)];
  const q = await p.db.query<{ id: string; quote_number: string }>(
    `insert into public.quotes (${cols.join(", ")}) values (${cols.map((_, i) => `$${i + 1}`).join(", ")})
     returning id, quote_number`,
    vals,
  );
  const ids: string[] = [];
  for (const [i, it] of items.entries()) {
    const r = await p.db.query<{ id: string }>(
      `insert into public.quote_items (quote_id, description, quantity, unit, unit_price, discounted_price,
         product_id, position)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
      [
        q.rows[0].id,
        it.description ?? null,
        it.quantity ?? 1,
        it.unit ?? null,
        it.unit_price ?? null,
        it.discounted_price ?? null,
        it.product_id ?? null,
        it.position ?? i,
      ],
    );
    ids.push(r.rows[0].id);
  }
  return { ...q.rows[0], items: ids };
}

export const MISSING_ID = "00000000-0000-4000-8000-000000000000";
