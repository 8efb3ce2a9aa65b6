/**
 * Stage 1: an HTTP request becomes an ApiRequest (PostgREST's ApiRequest.hs, QueryParams.hs,
 * Preferences.hs, Payload.hs): the target and action, the schema from Accept-Profile /
 * Content-Profile, the query parameters parsed by the grammar, Prefer, the negotiated media
 * type, the requested range and the body. Nothing here looks at the database.
 */
import { Errors } from "./errors.ts";
import {
  parseColumns,
  parseLogic,
  parseOpExpr,
  parseOrder,
  parseRpcParam,
  parseSelect,
  parseTreePath,
} from "./grammar.ts";
import type { Action, ApiRequest, MediaType, Payload, Preferences, RangeSpec } from "./types.ts";
import {
  BodyTooLarge,
  bracketsTooDeep,
  jsonTextTooDeep,
  MAX_JSON_BODY_BYTES,
  MAX_JSON_DEPTH,
  readTextCapped,
  valueTooDeep,
} from "@shared/input-limits.ts";

export interface RequestContext {
  /** Exposed schemas; the first is the default. */
  schemas: string[];
  /** Names Postgres accepts for `Prefer: timezone=`. */
  timezones: ReadonlySet<string>;
}

/**
 * http-types' parseQueryReplacePlus: pairs split on `&` and `;`, `+` is a space, percent-escapes
 * decoded leniently (a malformed escape stays as written). `value` is null for `?key`.
 */
export function parseQueryString(qs: string): [string, string | null][] {
  const out: [string, string | null][] = [];
  for (const part of qs.replace(/^\?/, "").split(/[&;]/)) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const k = eq < 0 ? part : part.slice(0, eq);
    out.push([urlDecode(k), eq < 0 ? null : urlDecode(part.slice(eq + 1))]);
  }
  return out;
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

function urlDecode(s: string): string {
  if (!/[%+]/.test(s)) return s;
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "+") bytes.push(0x20);
    else if (c === "%" && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...enc.encode(ch));
      i += ch.length - 1;
    }
  }
  return utf8.decode(new Uint8Array(bytes));
}

function lastSegment(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}

const RESERVED = new Set(["select", "columns", "on_conflict"]);
const RESERVED_EMBEDDABLE = new Set(["order", "limit", "offset", "and", "or"]);

// ---- Prefer ----

const PREFS: Record<string, [keyof Preferences, string]> = {
  "resolution=merge-duplicates": ["resolution", "merge-duplicates"],
  "resolution=ignore-duplicates": ["resolution", "ignore-duplicates"],
  "return=representation": ["representation", "representation"],
  "return=minimal": ["representation", "minimal"],
  "return=headers-only": ["representation", "headers-only"],
  "count=exact": ["count", "exact"],
  "count=planned": ["count", "planned"],
  "count=estimated": ["count", "estimated"],
  "tx=commit": ["transaction", "commit"],
  "tx=rollback": ["transaction", "rollback"],
  "missing=default": ["missing", "default"],
  "missing=null": ["missing", "null"],
  "handling=strict": ["handling", "strict"],
  "handling=lenient": ["handling", "lenient"],
  "params=single-object": ["params", "single-object"],
};

/** RFC 7240 as PostgREST reads it: comma-separated, several headers allowed, first value wins. */
export function parsePreferences(header: string | null, timezones: ReadonlySet<string>): Preferences {
  const prefs: Preferences = { invalid: [] };
  const record = prefs as unknown as Record<string, unknown>;
  for (const raw of (header ?? "").split(",")) {
    const p = raw.trim();
    if (p === "") continue;
    const known = PREFS[p];
    if (known) {
      if (record[known[0]] === undefined) record[known[0]] = known[1];
    } else if (p.startsWith("timezone=") && timezones.has(p.slice(9))) {
      prefs.timezone ??= p.slice(9);
    } else if (p.startsWith("max-affected=")) {
      if (/^-?\d+$/.test(p.slice(13))) prefs.maxAffected ??= BigInt(p.slice(13));
    } else prefs.invalid.push(p);
  }
  return prefs;
}

// ---- Accept ----

/** PostgREST's MediaType.hs plan media: the format, the `for` media type and EXPLAIN options. */
function planMedia(type: string, params: Map<string, string>): MediaType {
  const forType = (params.get("for") ?? "application/json").replace(/^"|"$/g, "").trim().toLowerCase();
  const kind = forType === "text/csv"
    ? "csv"
    : forType.startsWith("application/vnd.pgrst.object")
    ? "object"
    : "json";
  const options = (params.get("options") ?? "").split("|").map((o) => o.trim().toLowerCase())
    .filter((o) => ["analyze", "verbose", "settings", "buffers", "wal"].includes(o));
  const format = type.endsWith("+json") ? "json" : "text";
  return { kind, stripNulls: false, plan: { format, for: forType, options } };
}

function negotiate(accept: string | null): MediaType {
  if (!accept || accept.trim() === "") return { kind: "json", stripNulls: false };
  const ranges = accept.split(",").map((part, i) => {
    const [type, ...params] = part.split(";").map((s) => s.trim());
    const map = new Map(params.map((p) => {
      const eq = p.indexOf("=");
      return [p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim()] as [string, string];
    }));
    const qv = Number(map.get("q") ?? "1");
    return { type: type.toLowerCase(), raw: type, params: map, q: Number.isFinite(qv) ? qv : 0, i };
  }).filter((r) => r.type !== "" && r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    const stripNulls = r.params.get("nulls") === "stripped";
    switch (r.type) {
      case "application/json":
      case "*/*":
      case "application/*":
        return { kind: "json", stripNulls: false };
      case "application/vnd.pgrst.array+json":
      case "application/vnd.pgrst.array":
        return { kind: "json", stripNulls };
      case "application/vnd.pgrst.object+json":
      case "application/vnd.pgrst.object":
        return { kind: "object", stripNulls };
      case "text/csv":
        return { kind: "csv", stripNulls: false };
      case "application/vnd.pgrst.plan":
      case "application/vnd.pgrst.plan+text":
      case "application/vnd.pgrst.plan+json":
        return planMedia(r.type, r.params);
    }
  }
  throw Errors.mediaType(accept.split(",").map((s) => s.split(";")[0].trim()).filter((s) => s !== ""));
}

// ---- Range ----

function headerRange(header: string | null): { lower: bigint; upper: bigint | null } | null {
  const m = header ? /^(\d+)-(\d*)$/.exec(header.trim()) : null;
  if (!m) return null;
  const lower = BigInt(m[1]);
  const upper = m[2] === "" ? null : BigInt(m[2]);
  if (upper !== null && lower > upper) {
    throw Errors.invalidRange(
      "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
    );
  }
  return { lower, upper };
}

function intersect(a: RangeSpec, b: { lower: bigint; upper: bigint | null }): RangeSpec {
  const lower = a.offset > b.lower ? a.offset : b.lower;
  const uppers = [a.limit === null ? null : a.offset + a.limit - 1n, b.upper].filter((x) => x !== null);
  if (uppers.length === 0) return { offset: lower, limit: null };
  const upper = uppers.reduce((x, y) => (x! < y! ? x : y))!;
  return { offset: lower, limit: upper < lower ? 0n : upper - lower + 1n };
}

// ---- body ----

function parseCsv(text: string): Record<string, string | null>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"', i++);
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") (row.push(cell), cell = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  if (cell !== "" || row.length > 0) (row.push(cell), rows.push(row));
  const [header, ...body] = rows;
  if (!header) return [];
  return body.map((r) => {
    if (r.length !== header.length) throw Errors.invalidBody("All lines must have same number of fields");
    return Object.fromEntries(header.map((h, i) => [h, r[i] === "NULL" ? null : r[i]]));
  });
}

function jsonPayload(text: string, columns: string[] | null, isCall: boolean): Payload {
  const trimmed = text.trimStart();
  // Checked before parsing and before the database sees it: Postgres in WASM cannot cast deeper
  // JSON to jsonb (see packages/shared/input-limits.ts).
  if (jsonTextTooDeep(text)) throw Errors.tooDeep();
  const withColumns = { raw: text, isArray: trimmed.startsWith("["), keys: columns ?? [] };
  if (!columns && trimmed === "" && isCall) return { raw: "{}", isArray: false, keys: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // With ?columns= the body goes to the database unparsed, which reports it, as PostgREST does.
    if (columns) return withColumns;
    throw Errors.invalidBody("Empty or invalid json");
  }
  // A string of deep brackets is refused too: a column or function may cast it to jsonb/array.
  if (valueTooDeep(value, MAX_JSON_DEPTH, true)) throw Errors.tooDeep();
  if (columns) return withColumns;
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (Array.isArray(value)) {
    if (value.length === 0) return { raw: "[]", isArray: true, keys: [] };
    if (!isObject(value[0])) throw Errors.invalidBody("All object keys must match");
    const keys = Object.keys(value[0]);
    const same = (o: unknown) =>
      isObject(o) && Object.keys(o).length === keys.length && keys.every((k) => Object.hasOwn(o, k));
    if (!value.every(same)) throw Errors.invalidBody("All object keys must match");
    return { raw: text, isArray: true, keys };
  }
  if (isObject(value)) return { raw: text, isArray: false, keys: Object.keys(value) };
  // PostgREST truncates any other JSON value to an empty array.
  return { raw: "[]", isArray: true, keys: [] };
}

async function readPayload(req: Request, columns: string[] | null, isCall: boolean): Promise<Payload> {
  const contentType = (req.headers.get("content-type") ?? "application/json").split(";")[0].trim()
    .toLowerCase();
  let text: string;
  try {
    text = await readTextCapped(req, MAX_JSON_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw Errors.bodyTooLarge(err.limit);
    throw err;
  }
  if (contentType === "application/x-www-form-urlencoded" || contentType === "text/csv") {
    if (bracketsTooDeep(text)) throw Errors.tooDeep();
  }
  switch (contentType) {
    case "application/json":
    case "application/vnd.pgrst.object+json":
    case "application/vnd.pgrst.array+json":
      return jsonPayload(text, columns, isCall);
    case "application/x-www-form-urlencoded": {
      const obj = Object.fromEntries(parseQueryString(text).map(([k, v]) => [k, v ?? ""]));
      return { raw: JSON.stringify(obj), isArray: false, keys: Object.keys(obj) };
    }
    case "text/csv": {
      const rows = parseCsv(text);
      const keys = columns ?? Object.keys(rows[0] ?? {});
      return { raw: JSON.stringify(rows), isArray: true, keys };
    }
    case "text/plain":
    case "text/xml":
      // The raw body of a function with one unnamed text or xml parameter (Plan.hs findProc).
      if (isCall) return { raw: text, isArray: false, keys: [], media: contentType };
      throw Errors.invalidBody(`Content-Type not acceptable: ${contentType}`);
    default:
      throw Errors.invalidBody(`Content-Type not acceptable: ${contentType}`);
  }
}

// ---- the request ----

function actionFor(method: string, segments: string[]): Action {
  const isCall = segments.length === 2 && segments[0] === "rpc";
  if (segments.length === 0) {
    if (method === "GET" || method === "HEAD") return { kind: "root", head: method === "HEAD" };
    throw Errors.unsupportedMethod(method);
  }
  if (!isCall && segments.length !== 1) throw Errors.invalidPath();
  if (isCall) {
    if (method === "GET" || method === "HEAD" || method === "POST") return { kind: "call", method };
    if (["PATCH", "PUT", "DELETE"].includes(method)) throw Errors.invalidRpcMethod(method);
    throw Errors.unsupportedMethod(method);
  }
  switch (method) {
    case "GET":
    case "HEAD":
      return { kind: "read", head: method === "HEAD" };
    case "POST":
      return { kind: "create" };
    case "PATCH":
      return { kind: "update" };
    case "PUT":
      return { kind: "upsert-put" };
    case "DELETE":
      return { kind: "delete" };
    default:
      throw Errors.unsupportedMethod(method);
  }
}

function canonical(params: [string, string | null][]): string {
  return [...params].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v ?? "")}`).join("&");
}

export async function parseRequest(req: Request, path: string, ctx: RequestContext): Promise<ApiRequest> {
  const url = new URL(req.url);
  const segments = path.split("/").slice(1).map(urlDecode);
  if (segments.length === 1 && segments[0] === "") segments.length = 0;
  const action = actionFor(req.method, segments);
  const isRead = action.kind === "read" || action.kind === "root" ||
    (action.kind === "call" && action.method !== "POST");

  const profile = req.headers.get(isRead ? "accept-profile" : "content-profile");
  if (profile !== null && !ctx.schemas.includes(profile)) {
    throw Errors.unacceptableSchema(profile, ctx.schemas);
  }
  const schema = profile ?? ctx.schemas[0];

  const params = parseQueryString(url.search);
  for (const [k, v] of params) {
    if (bracketsTooDeep(k) || (v !== null && bracketsTooDeep(v))) {
      throw Errors.queryParam(
        `Query parameter nested too deeply: ${k}`,
        `Brackets may nest at most ${MAX_JSON_DEPTH} levels`,
      );
    }
  }
  const first = (name: string) => params.find(([k, v]) => k === name && v !== null)?.[1] ?? null;
  const api: ApiRequest = {
    method: req.method,
    path,
    action,
    schema,
    target: segments[segments.length - 1] ?? "",
    select: parseSelect(first("select") ?? "*"),
    filters: [],
    logic: [],
    order: [],
    ranges: new Map(),
    columns: null,
    onConflict: null,
    rpcArgs: new Map(),
    prefs: parsePreferences(req.headers.get("prefer"), ctx.timezones),
    // The root answers with its OpenAPI document whatever the Accept header says.
    media: action.kind === "root"
      ? { kind: "json", stripNulls: false }
      : negotiate(req.headers.get("accept")),
    payload: null,
    canonicalQuery: canonical(params),
    headers: {},
    cookies: {},
  };
  const onConflict = first("on_conflict");
  if (onConflict !== null) api.onConflict = parseColumns("on_conflict parameter", onConflict);
  const columns = first("columns");
  if (columns !== null && ["create", "update", "call"].includes(action.kind)) {
    api.columns = parseColumns("columns parameter", columns);
  }

  const limits = new Map<string, bigint>();
  const offsets = new Map<string, bigint>();
  for (const [key, value] of params) {
    if (value === null || RESERVED.has(key)) continue;
    const last = lastSegment(key);
    if (last === "order") {
      api.order.push({ path: parseTreePath(key).path, terms: parseOrder(value) });
    } else if (last === "and" || last === "or") {
      api.logic.push(parseLogic(key, value));
    } else if (last === "limit" || last === "offset") {
      // PostgREST reads these with readMaybe: anything that is not an integer is ignored.
      if (!/^-?\d+$/.test(value)) continue;
      (last === "limit" ? limits : offsets).set(parseTreePath(key).path.join("."), BigInt(value));
    } else if (!RESERVED_EMBEDDABLE.has(last)) {
      const { path: embed, field } = parseTreePath(key);
      if (action.kind === "call" && action.method !== "POST" && embed.length === 0) {
        const expr = parseRpcParam(value);
        if (!expr) {
          const list = api.rpcArgs.get(field.name) ?? [];
          list.push(value);
          api.rpcArgs.set(field.name, list);
          continue;
        }
        api.filters.push({ path: embed, filter: { field, expr } });
      } else {
        api.filters.push({ path: embed, filter: { field, expr: parseOpExpr(value) } });
      }
    }
  }
  for (const key of new Set([...limits.keys(), ...offsets.keys()])) {
    const limit = limits.get(key) ?? null;
    if (limit !== null && limit < 0n) {
      throw Errors.invalidRange("Limit should be greater than or equal to zero.");
    }
    api.ranges.set(key, { offset: offsets.get(key) ?? 0n, limit });
  }
  if (req.method === "GET") {
    const range = headerRange(req.headers.get("range"));
    if (range) api.ranges.set("", intersect(api.ranges.get("") ?? { offset: 0n, limit: null }, range));
  }

  for (const [k, v] of req.headers) if (k !== "cookie") api.headers[k] = v;
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) api.cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }

  const hasBody = action.kind === "create" || action.kind === "update" || action.kind === "upsert-put" ||
    (action.kind === "call" && action.method === "POST");
  if (hasBody) api.payload = await readPayload(req, api.columns, action.kind === "call");
  return api;
}
