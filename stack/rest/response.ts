/**
 * Stage 5: the result row becomes an HTTP response (PostgREST's Response.hs and RangeQuery.hs):
 * status, Content-Range, Content-Location, Location, Preference-Applied, Content-Type and
 * Content-Profile, and the response.status / response.headers GUCs a function may have set.
 */
import { Errors, renderError } from "./errors.ts";
import type { ResultRow } from "./execute.ts";
import type { ApiRequest, MediaType, Preferences } from "./types.ts";

export function contentRange(lower: bigint, upper: bigint, total: number | null): string {
  const range = total !== 0 && lower <= upper ? `${lower}-${upper}` : "*";
  return `${range}/${total === null ? "*" : total}`;
}

function rangeStatus(lower: bigint, upper: bigint, total: number | null): number {
  if (total === null) return 200;
  if (lower > BigInt(total)) return 416;
  if (1n + upper - lower < BigInt(total)) return 206;
  return 200;
}

function contentType(media: MediaType): string {
  switch (media.kind) {
    case "csv":
      return "text/csv; charset=utf-8";
    case "object":
      return `application/vnd.pgrst.object+json${media.stripNulls ? ";nulls=stripped" : ""}; charset=utf-8`;
    case "json":
      return media.stripNulls
        ? "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
        : "application/json; charset=utf-8";
  }
}

type PrefName =
  | "resolution"
  | "missing"
  | "return"
  | "count"
  | "tx"
  | "handling"
  | "timezone"
  | "max-affected";

/** Preference-Applied, in PostgREST's order, with only the preferences this action honours. */
function preferenceApplied(p: Preferences, which: PrefName[]): string | null {
  const values: [PrefName, string | undefined][] = [
    ["resolution", p.resolution && `resolution=${p.resolution}`],
    ["missing", p.missing && `missing=${p.missing}`],
    ["return", p.representation && `return=${p.representation}`],
    ["count", p.count && `count=${p.count}`],
    ["tx", p.transaction && `tx=${p.transaction}`],
    ["handling", p.handling && `handling=${p.handling}`],
    ["timezone", p.timezone && `timezone=${p.timezone}`],
    [
      "max-affected",
      p.handling === "strict" && p.maxAffected !== undefined ? `max-affected=${p.maxAffected}` : undefined,
    ],
  ];
  const applied = values.filter(([name, v]) => v !== undefined && which.includes(name)).map(([, v]) => v!);
  return applied.length ? applied.join(", ") : null;
}

/** response.status and response.headers, set by the called code, override what PostgREST chose. */
function applyGucs(row: ResultRow, status: number, headers: Headers): number {
  if (row.responseHeaders !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.responseHeaders);
    } catch (err) {
      if (err instanceof SyntaxError) throw Errors.gucHeaders();
      throw err;
    }
    if (!Array.isArray(parsed)) throw Errors.gucHeaders();
    for (const h of parsed) {
      const entries = h && typeof h === "object" ? Object.entries(h) : [];
      if (entries.length !== 1 || typeof entries[0][1] !== "string") throw Errors.gucHeaders();
      headers.set(entries[0][0], entries[0][1] as string);
    }
  }
  if (row.responseStatus !== null) {
    const n = Number(row.responseStatus);
    if (!/^\d+$/.test(row.responseStatus) || n < 100 || n > 599) throw Errors.gucStatus();
    return n;
  }
  return status;
}

export interface ResponseInput {
  api: ApiRequest;
  row: ResultRow;
  /** The total for Content-Range, when a count was asked for. */
  total: number | null;
  /** Offset of the top-level range, for Content-Range. */
  offset: bigint;
  /** Calls: whether the function returns void. */
  isVoid?: boolean;
  /** Inserts: whether `Prefer: resolution` had a key to act on. */
  resolutionApplied?: boolean;
}

function respond(status: number, headers: Headers, body: string | null, row: ResultRow): Response {
  const final = applyGucs(row, status, headers);
  const empty = body === null || final === 204 || final === 304;
  return new Response(empty ? null : body, { status: final, headers });
}

function withBody(headers: Headers, api: ApiRequest): void {
  headers.set("content-type", contentType(api.media));
  headers.set("content-profile", api.schema);
}

export function readResponse({ api, row, total, offset }: ResponseInput, head: boolean): Response {
  const upper = offset + BigInt(row.pageTotal) - 1n;
  const status = rangeStatus(offset, upper, total);
  const headers = new Headers({
    "content-range": contentRange(offset, upper, total),
    "content-location": `/${api.target}${api.canonicalQuery ? `?${api.canonicalQuery}` : ""}`,
  });
  if (status === 416) return outOfBounds(offset, total!, headers);
  withBody(headers, api);
  const pref = preferenceApplied(api.prefs, ["count", "tx", "handling", "timezone"]);
  if (pref) headers.set("preference-applied", pref);
  return respond(status, headers, head ? null : row.body, row);
}

function outOfBounds(offset: bigint, total: number, headers: Headers): Response {
  const err = Errors.outOfBounds(offset, total);
  const res = renderError(err);
  for (const [k, v] of headers) res.headers.set(k, v);
  return res;
}

export function mutateResponse(
  { api, row, total, resolutionApplied }: ResponseInput,
  kind: "insert" | "update" | "delete" | "put",
): Response {
  const headers = new Headers();
  const full = api.prefs.representation === "representation";
  const counted = total !== null ? total : null;
  if (kind === "update") {
    headers.set("content-range", contentRange(0n, BigInt(row.pageTotal) - 1n, counted));
  } else if (kind !== "put") headers.set("content-range", contentRange(1n, 0n, counted));
  let status = full ? 200 : 204;
  if (kind === "put") {
    // PUT: 201 when the row was created, 200 when it was replaced, 204 without a body.
    status = full ? (Number(row.inserted ?? 0) > 0 ? 201 : 200) : 204;
  } else if (kind === "insert") {
    status = api.prefs.resolution === "merge-duplicates" && row.inserted !== null && Number(row.inserted) <= 0
      ? 200
      : 201;
    if (row.location !== null) {
      const pk = JSON.parse(row.location) as Record<string, unknown>;
      const qs = Object.entries(pk).map(([k, v]) =>
        `${encodeURIComponent(k)}=${
          encodeURIComponent(v === null ? "is.null" : `eq.${typeof v === "string" ? v : JSON.stringify(v)}`)
        }`
      ).join("&");
      headers.set("location", `/${api.target}?${qs}`);
    }
  }
  const which: PrefName[] = kind === "insert"
    ? ["resolution", "missing", "return", "count", "tx", "handling", "timezone"]
    : kind === "put"
    ? ["return", "count", "tx", "handling", "timezone"]
    : kind === "update"
    ? ["missing", "return", "count", "tx", "handling", "timezone", "max-affected"]
    : ["return", "count", "tx", "handling", "timezone", "max-affected"];
  // An upsert preference only applies when there is a key to resolve conflicts on.
  const prefs = resolutionApplied ? api.prefs : { ...api.prefs, resolution: undefined };
  const pref = preferenceApplied(prefs, which);
  if (pref) headers.set("preference-applied", pref);
  if (full) withBody(headers, api);
  return respond(status, headers, full ? row.body : null, row);
}

export function callResponse({ api, row, total, offset, isVoid }: ResponseInput, head: boolean): Response {
  const upper = offset + BigInt(row.pageTotal) - 1n;
  const status = rangeStatus(offset, upper, total);
  const headers = new Headers({ "content-range": contentRange(offset, upper, total) });
  const pref = preferenceApplied(api.prefs, ["count", "tx", "handling", "timezone", "max-affected"]);
  if (pref) headers.set("preference-applied", pref);
  if (isVoid) return respond(204, headers, null, row);
  if (status === 416) return outOfBounds(offset, total!, headers);
  withBody(headers, api);
  return respond(status, headers, head ? null : row.body, row);
}
