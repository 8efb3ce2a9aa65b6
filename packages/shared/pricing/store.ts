/**
 * The price engine's storage: Pricing KB documents parsed once into price_entries rows, and the
 * workspace's lookup index built from them and kept in memory, so that a price_lookup reads no
 * document text and parses nothing.
 *
 * - storePriceEntries(db, doc): the ingest hook. Given the kb_docs row just written, (re)parses it
 *   into its price_entries row, skipping when the content hash and parser version are unchanged,
 *   and drops the row of a document that is no longer priced.
 * - loadPriceIndex(db, workspaceId): one primary-key read (price_index_version: a per-workspace
 *   counter that triggers move with every change to a priced document or its entries) decides
 *   whether the index in memory is current. If not, price_index_state lists the documents
 *   without current entries, which are parsed first (so a document written around the ingest
 *   hook is never silently missing from a lookup), and the index is rebuilt from
 *   price_index_entries (read in pages: a set-returning RPC is cut at max_rows, 1,000 rows).
 * - lookupWorkspacePrice(db, workspaceId, input): the real lookup path (load + engine), timed.
 *
 * Every query runs with the client it is given: the caller's JWT, so RLS and the SQL functions'
 * own owner/admin check decide (42501 for anyone else), or the service client.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { env } from "../env.ts";
import { contentHash } from "../content_hash.ts";
import { isPriceDocType, type PriceEntry } from "./entries.ts";
import { buildPriceIndex, type PriceIndex } from "./index.ts";
import { lookupPrice, type PriceLookupInput, type PriceLookupResult } from "./lookup.ts";
import { parsePriceDocument } from "./parse/mod.ts";
import { readPages } from "../supabase/postgrest.ts";

/**
 * Version of what parsePriceDocument produces. Bump it with any change to the parser's output:
 * stored entries of another version are re-parsed before the next lookup, never used.
 */
const PRICE_PARSER_VERSION = "pricing-parser/3";

/** A database call failed (not a missing price, which is a result, not an error). */
export class PriceStoreError extends Error {
  constructor(message: string, readonly code: string | null) {
    super(message);
    this.name = "PriceStoreError";
  }
}

function fail(what: string, error: { message: string; code?: string }): never {
  throw new PriceStoreError(`${what}: ${error.message}`, error.code ?? null);
}

/** The kb_docs columns the hook needs. */
export interface KbPriceDoc {
  id: string;
  workspace_id: string;
  title: string;
  content: string;
  price_doc_type: string | null;
  /** kb_docs.content_hash; computed from content when absent. */
  content_hash?: string | null;
  /** The category's slug, when the caller knows it; priced documents live only in `pricing`. */
  category_slug?: string | null;
}

export type StoreOutcome =
  | { action: "parsed"; entry_count: number; issue_count: number }
  | { action: "unchanged" }
  | { action: "removed" | "not_priced" };

/** The ingest hook: keeps the document's price_entries row in step with its content. */
export async function storePriceEntries(db: SupabaseClient, doc: KbPriceDoc): Promise<StoreOutcome> {
  const priced = isPriceDocType(doc.price_doc_type) &&
    (doc.category_slug === undefined || doc.category_slug === null || doc.category_slug === "pricing");
  if (!priced) {
    const { data, error } = await db.from("price_entries").delete().eq("kb_doc_id", doc.id).select("id");
    if (error) fail("Removing price entries", error);
    return { action: data?.length ? "removed" : "not_priced" };
  }
  const hash = doc.content_hash ?? await contentHash(doc.content);
  const current = await db.from("price_entries").select("content_hash, parser_version, price_doc_type")
    .eq("kb_doc_id", doc.id).maybeSingle();
  if (current.error) fail("Reading price entries", current.error);
  if (
    current.data?.content_hash === hash && current.data.parser_version === PRICE_PARSER_VERSION &&
    current.data.price_doc_type === doc.price_doc_type
  ) {
    return { action: "unchanged" };
  }
  const row = parsedRow(doc, hash);
  const { error } = await db.from("price_entries").upsert(row, { onConflict: "kb_doc_id" });
  if (error) fail("Storing price entries", error);
  return { action: "parsed", entry_count: row.entries.length, issue_count: row.issues.length };
}

/**
 * The price_entries row storePriceEntries would write for a document, or null when the document
 * is not priced - for writers that store it in the same transaction as the document
 * (kb_upsert_document's p_price, kb/store.ts).
 */
export function priceEntriesRow(
  doc: KbPriceDoc & { content_hash: string },
): ReturnType<typeof parsedRow> | null {
  const priced = isPriceDocType(doc.price_doc_type) &&
    (doc.category_slug === undefined || doc.category_slug === null || doc.category_slug === "pricing");
  return priced ? parsedRow(doc, doc.content_hash) : null;
}

function parsedRow(doc: KbPriceDoc, hash: string) {
  const parsed = parsePriceDocument({
    id: doc.id,
    title: doc.title,
    price_doc_type: doc.price_doc_type as PriceEntry["source"]["price_doc_type"],
    content: doc.content,
  });
  return {
    workspace_id: doc.workspace_id,
    kb_doc_id: doc.id,
    price_doc_type: doc.price_doc_type!,
    content_hash: hash,
    parser_version: PRICE_PARSER_VERSION,
    // The lines not understood travel with the entries, so that lookups can name them.
    entries: [...parsed.entries, ...parsed.unparsed],
    issues: parsed.issues,
  };
}

// ---- the index cache ----

interface IndexState {
  version: number;
  documents: number;
  stale: string[];
}

interface Cached {
  version: number;
  documents: number;
  index: PriceIndex;
  entry_count: number;
}

/** Workspaces kept in memory at once; the least recently used one is dropped beyond this. */
const MAX_CACHED_WORKSPACES = 200;
const cache = new Map<string, Cached>();
const building = new Map<string, Promise<{ cached: Cached; reparsed: number }>>();

interface LoadedIndex {
  index: PriceIndex;
  /** Published priced documents of the workspace. */
  documents: number;
  entry_count: number;
  cached: boolean;
  /** Documents parsed during this load because their stored entries were missing or stale. */
  reparsed: number;
  /** version: the counter read; rebuild: state check, re-parse, entries read, index built (on a miss). */
  timing_ms: { version: number; rebuild: number };
}

async function rpc<T>(
  db: SupabaseClient,
  fn: string,
  args: Record<string, unknown>,
  what: string,
): Promise<T> {
  const { data, error } = await db.rpc(fn, args);
  if (error) fail(what, error);
  return data as T;
}

async function reparse(db: SupabaseClient, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const { data, error } = await db.from("kb_docs")
      .select("id, workspace_id, title, content, content_hash, price_doc_type")
      .in("id", ids.slice(i, i + 100));
    if (error) fail("Reading Pricing documents", error);
    const rows = (data as KbPriceDoc[]).filter((d) => isPriceDocType(d.price_doc_type))
      .map((d) => parsedRow(d, d.content_hash!));
    if (!rows.length) continue;
    const up = await db.from("price_entries").upsert(rows, { onConflict: "kb_doc_id" });
    if (up.error) fail("Storing price entries", up.error);
  }
}

/**
 * The slow path: parse what is stale, then read the entries. The version cached is the one read
 * after the re-parse (whose own writes move the counter); a change landing while the entries are
 * read only makes the next lookup rebuild again.
 */
async function rebuild(
  db: SupabaseClient,
  workspaceId: string,
): Promise<{ cached: Cached; reparsed: number }> {
  const args = { p_workspace_id: workspaceId, p_parser_version: PRICE_PARSER_VERSION };
  let state = await rpc<IndexState>(db, "price_index_state", args, "Reading the price index state");
  const reparsed = state.stale.length;
  if (reparsed) {
    await reparse(db, state.stale);
    state = await rpc<IndexState>(db, "price_index_state", args, "Reading the price index state");
  }
  // One row per priced document, with no bound on their number: a set-returning RPC is cut at
  // max_rows (1,000) without an error, so it is read in pages ordered by its unique key.
  const read = await readPages<{ entries: PriceEntry[] }>(() =>
    db.rpc("price_index_entries", args).order("kb_doc_id")
  );
  if (read.error) fail("Reading price entries", read.error);
  const entries = read.data.flatMap((r) => r.entries);
  return {
    cached: {
      version: state.version,
      documents: state.documents,
      index: buildPriceIndex(entries),
      entry_count: entries.length,
    },
    reparsed,
  };
}

/** The workspace's lookup index, from memory while the workspace's price counter is unchanged. */
async function loadPriceIndex(
  db: SupabaseClient,
  workspaceId: string,
  opts: { scope?: string } = {},
): Promise<LoadedIndex> {
  // One process may serve several projects (the local platform runs one per test module).
  const key = `${opts.scope ?? env("SUPABASE_URL") ?? ""}|${workspaceId}`;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const t0 = performance.now();
  // Also the access check: it raises 42501 for anyone but the workspace's owners and admins.
  const version = Number(
    await rpc<number | string>(
      db,
      "price_index_version",
      { p_workspace_id: workspaceId },
      "Reading the price index version",
    ),
  );
  const t1 = performance.now();
  const hit = cache.get(key);
  if (hit && hit.version === version) {
    cache.delete(key); // refresh its place in the LRU order
    cache.set(key, hit);
    return {
      index: hit.index,
      documents: hit.documents,
      entry_count: hit.entry_count,
      cached: true,
      reparsed: 0,
      timing_ms: { version: round(t1 - t0), rebuild: 0 },
    };
  }
  const flightKey = `${key}|${version}`;
  let flight = building.get(flightKey);
  if (!flight) {
    flight = rebuild(db, workspaceId).finally(() => building.delete(flightKey));
    building.set(flightKey, flight);
  }
  const { cached, reparsed } = await flight;
  cache.delete(key);
  cache.set(key, cached);
  while (cache.size > MAX_CACHED_WORKSPACES) cache.delete(cache.keys().next().value!);
  return {
    index: cached.index,
    documents: cached.documents,
    entry_count: cached.entry_count,
    cached: false,
    reparsed,
    timing_ms: { version: round(t1 - t0), rebuild: round(performance.now() - t1) },
  };
}

/** Forgets every cached index (tests, benchmarks). */
export function clearPriceIndexCache(): void {
  cache.clear();
}

export interface WorkspaceLookup {
  result: PriceLookupResult;
  documents: number;
  cached: boolean;
  reparsed: number;
  timing_ms: { total: number; index: number; engine: number };
}

/** A price lookup in a workspace: the stored entries (cached index) and the engine. */
export async function lookupWorkspacePrice(
  db: SupabaseClient,
  workspaceId: string,
  input: PriceLookupInput,
  opts: { scope?: string } = {},
): Promise<WorkspaceLookup> {
  const t0 = performance.now();
  const loaded = await loadPriceIndex(db, workspaceId, opts);
  const t1 = performance.now();
  const result = lookupPrice(input, loaded.index);
  const t2 = performance.now();
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    result,
    documents: loaded.documents,
    cached: loaded.cached,
    reparsed: loaded.reparsed,
    timing_ms: { total: round(t2 - t0), index: round(t1 - t0), engine: round(t2 - t1) },
  };
}
