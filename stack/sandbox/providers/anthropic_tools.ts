/**
 * The Anthropic stand-in's answer to an unscripted request that forces a tool call
 * (`tool_choice: {type: "tool", name}`, or `{type: "any"}` with tools): one tool_use block whose
 * input is a deterministic instance of the tool's `input_schema`, so structured-output callers
 * that validate the input get a well-formed (not meaningful) answer without a real key.
 *
 * The instance is valid against the JSON Schema subset tools use: type (a list: its first
 * non-null type), const, enum, object (properties - all of them down to a depth of 4, only the
 * required ones deeper - required, additionalProperties, minProperties), array (items,
 * prefixItems, minItems, maxItems, uniqueItems), string (minLength, maxLength, format: email,
 * uri/url, uri-reference, uuid, date-time, date, time, duration, hostname, ipv4, ipv6; pattern:
 * words of the request tried first, else a string generated from the regex by randexp), number
 * and integer (minimum, maximum, exclusive bounds, multipleOf), boolean, null, anyOf/oneOf (the
 * first non-null branch), allOf (merged), $ref into $defs/definitions (JSON pointers). Strings
 * are made of the words of the last user message (else the tool's description or name), so an
 * answer reads as related to its request. Everything is drawn from a PRNG seeded with a hash of
 * the request (model, system, messages, tools, tool_choice): the same request gets the same input.
 * Keywords it does not know (not, if/then/else, contains, patternProperties ...) are ignored, so
 * schemas that lean on them may get an input the caller rejects, as a real model's could be.
 */
import RandExpModule from "randexp";

type Schema = Record<string, unknown>;
type RandExpClass = typeof RandExpModule.default;
// randexp is CommonJS: at run time the default import is the class itself; its typings say `.default`.
const RandExp = ((RandExpModule as unknown as { default?: RandExpClass }).default ??
  RandExpModule) as RandExpClass;

/** Properties that are not required are filled down to this object depth. */
const OPTIONAL_DEPTH = 4;
/** Past this depth (recursive $refs), arrays get their minItems and objects only required keys. */
const MIN_DEPTH = 12;

export interface ForcedTool {
  name: string;
  description: string;
  input_schema: Schema;
}

/** The tool a request makes the model call, or null when the model may answer in text. */
export function forcedTool(body: Record<string, unknown>): ForcedTool | null {
  const choice = body.tool_choice as { type?: unknown; name?: unknown } | undefined;
  const tools = (Array.isArray(body.tools) ? body.tools : []).filter((t): t is ForcedTool =>
    t && typeof t === "object" && typeof t.name === "string" && typeof t.input_schema === "object" &&
    t.input_schema !== null
  );
  let tool: ForcedTool | undefined;
  if (choice?.type === "tool") tool = tools.find((t) => t.name === choice.name);
  else if (choice?.type === "any") tool = tools[0];
  return tool ? { ...tool, description: typeof tool.description === "string" ? tool.description : "" } : null;
}

/** 32-bit FNV-1a of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The seed of a request: the same model, prompt and tools give the same seed. */
export function requestSeed(body: Record<string, unknown>): number {
  const { model, system, messages, tools, tool_choice } = body;
  return hash32(JSON.stringify({ model, system, messages, tools, tool_choice }));
}

/** mulberry32: a small deterministic PRNG giving floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The words of a text (letters and digits, inner ' and - kept), at most 200. */
export function wordsOf(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*/gu) ?? []).slice(0, 200);
}

export interface InstanceOptions {
  seed: number;
  /** Words strings are made of; the tool's name is used when empty. */
  words: string[];
}

interface Ctx {
  root: Schema;
  rand: () => number;
  words: string[];
}

/** A deterministic value valid against `schema` (see the module doc for the keywords honoured). */
export function instanceOf(schema: unknown, opts: InstanceOptions): unknown {
  const words = opts.words.length ? opts.words : ["sandbox"];
  const root = (schema && typeof schema === "object" ? schema : {}) as Schema;
  return gen(root, { root, rand: prng(opts.seed), words }, 0);
}

function pick<T>(ctx: Ctx, items: readonly T[]): T {
  return items[Math.floor(ctx.rand() * items.length)];
}

function resolveRef(ref: string, root: Schema): Schema {
  if (!ref.startsWith("#")) return {};
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    node = node && typeof node === "object" ? (node as Schema)[key] : undefined;
  }
  return node && typeof node === "object" ? node as Schema : {};
}

/** allOf branches merged into one schema (properties and required combined). */
function merged(schema: Schema, root: Schema): Schema {
  let out: Schema = { ...schema };
  delete out.allOf;
  for (const part of schema.allOf as unknown[]) {
    const p = normalize(part, root);
    out = {
      ...out,
      ...p,
      properties: { ...(out.properties as Schema ?? {}), ...(p.properties as Schema ?? {}) },
      required: [...new Set([...(out.required as string[] ?? []), ...(p.required as string[] ?? [])])],
    };
  }
  return out;
}

/** The schema with $ref, allOf and anyOf/oneOf (first non-null branch) resolved. */
function normalize(raw: unknown, root: Schema): Schema {
  let s = (raw && typeof raw === "object" ? raw : {}) as Schema;
  for (let hops = 0; typeof s.$ref === "string" && hops < 32; hops++) {
    const { $ref, ...rest } = s;
    s = { ...resolveRef($ref as string, root), ...rest };
  }
  if (Array.isArray(s.allOf)) s = merged(s, root);
  const branches = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null) as
    | unknown[]
    | null;
  if (branches?.length) {
    const { anyOf: _a, oneOf: _o, ...rest } = s;
    const branch = branches.find((b) => normalize(b, root).type !== "null") ?? branches[0];
    s = { ...rest, ...normalize(branch, root) };
  }
  return s;
}

function typeOf(s: Schema): string {
  const t = Array.isArray(s.type) ? (s.type.find((x) => x !== "null") ?? s.type[0]) : s.type;
  if (typeof t === "string") return t;
  if (s.properties || s.required || s.additionalProperties !== undefined) return "object";
  if (s.items !== undefined || s.prefixItems) return "array";
  if (s.minimum !== undefined || s.maximum !== undefined || s.multipleOf !== undefined) return "number";
  return "string";
}

function gen(raw: unknown, ctx: Ctx, depth: number): unknown {
  if (raw === false) return null;
  const s = normalize(raw, ctx.root);
  if ("const" in s) return structuredClone(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return structuredClone(pick(ctx, s.enum));
  switch (typeOf(s)) {
    case "object":
      return objectOf(s, ctx, depth);
    case "array":
      return arrayOf(s, ctx, depth);
    case "integer":
      return numberOf(s, ctx, true);
    case "number":
      return numberOf(s, ctx, false);
    case "boolean":
      return ctx.rand() < 0.5;
    case "null":
      return null;
    default:
      return stringOf(s, ctx);
  }
}

function objectOf(s: Schema, ctx: Ctx, depth: number): Record<string, unknown> {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(s.required) ? s.required as string[] : []);
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(props)) {
    if (required.has(key) || depth < OPTIONAL_DEPTH) out[key] = gen(sub, ctx, depth + 1);
  }
  // Required keys with no property schema: any value is allowed, so a string.
  for (const key of required) if (!(key in out)) out[key] = stringOf({}, ctx);
  const extra = s.additionalProperties;
  const min = typeof s.minProperties === "number" ? s.minProperties : 0;
  for (let i = 0; Object.keys(out).length < min && extra !== false && i < min + 8; i++) {
    const key = `${ctx.words[i % ctx.words.length].toLowerCase()}_${i + 1}`;
    if (!(key in out)) out[key] = gen(extra === undefined || extra === true ? {} : extra, ctx, depth + 1);
  }
  return out;
}

function arrayOf(s: Schema, ctx: Ctx, depth: number): unknown[] {
  const prefix =
    (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []) as unknown[];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  const min = typeof s.minItems === "number" ? s.minItems : 0;
  const max = typeof s.maxItems === "number" ? s.maxItems : Infinity;
  const wanted = depth >= MIN_DEPTH ? min : Math.max(min, prefix.length, 1 + Math.floor(ctx.rand() * 2));
  const count = rest === false ? Math.min(prefix.length, max) : Math.min(wanted, max);
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const sub = i < prefix.length ? prefix[i] : (rest ?? {});
    let item = gen(sub, ctx, depth + 1);
    for (let tries = 0; s.uniqueItems === true && seen.has(JSON.stringify(item)) && tries < 16; tries++) {
      item = gen(sub, ctx, depth + 1);
    }
    seen.add(JSON.stringify(item));
    out.push(item);
  }
  return out;
}

function numberOf(s: Schema, ctx: Ctx, integer: boolean): number {
  let lo = typeof s.minimum === "number" ? s.minimum : -Infinity;
  let hi = typeof s.maximum === "number" ? s.maximum : Infinity;
  const step = integer ? 1 : 0.01;
  if (typeof s.exclusiveMinimum === "number") lo = Math.max(lo, s.exclusiveMinimum + step);
  else if (s.exclusiveMinimum === true) lo += step;
  if (typeof s.exclusiveMaximum === "number") hi = Math.min(hi, s.exclusiveMaximum - step);
  else if (s.exclusiveMaximum === true) hi -= step;
  if (integer) [lo, hi] = [Math.ceil(lo), Math.floor(hi)];
  const r = ctx.rand();
  let v = Number.isFinite(lo) && Number.isFinite(hi)
    ? lo + r * (hi - lo)
    : Number.isFinite(lo)
    ? lo + r * 10
    : Number.isFinite(hi)
    ? hi - r * 10
    : r * 100;
  v = integer ? Math.round(v) : Math.round(v * 100) / 100;
  const m = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : 0;
  if (m) {
    v = Math.round(v / m) * m;
    if (v < lo) v += m;
    if (v > hi) v -= m;
    v = Number(v.toPrecision(12));
  }
  return Math.min(Math.max(v, lo), hi);
}

function hex(ctx: Ctx, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += Math.floor(ctx.rand() * 16).toString(16);
  return out;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** A slug of the words: lower case letters and digits joined by `sep`. */
function slug(ctx: Ctx, count: number, sep: string): string {
  const start = Math.floor(ctx.rand() * ctx.words.length);
  const parts: string[] = [];
  for (let i = 0; parts.length < count && i < ctx.words.length; i++) {
    const w = ctx.words[(start + i) % ctx.words.length].toLowerCase().replace(/[^a-z0-9]/g, "");
    if (w) parts.push(w);
  }
  return parts.length ? parts.join(sep) : "sandbox";
}

function formatted(format: string, ctx: Ctx): string | null {
  const day = `2026-${pad(1 + Math.floor(ctx.rand() * 12))}-${pad(1 + Math.floor(ctx.rand() * 28))}`;
  const time = `${pad(Math.floor(ctx.rand() * 24))}:${pad(Math.floor(ctx.rand() * 60))}:${
    pad(Math.floor(ctx.rand() * 60))
  }`;
  switch (format) {
    case "email":
    case "idn-email":
      return `${slug(ctx, 2, ".")}@example.com`;
    case "uri":
    case "url":
    case "iri":
      return `https://example.com/${slug(ctx, 3, "-")}`;
    case "uri-reference":
    case "iri-reference":
      return `/${slug(ctx, 3, "-")}`;
    case "uuid":
      return `${hex(ctx, 8)}-${hex(ctx, 4)}-4${hex(ctx, 3)}-${pick(ctx, ["8", "9", "a", "b"])}${
        hex(ctx, 3)
      }-${hex(ctx, 12)}`;
    case "date-time":
      return `${day}T${time}Z`;
    case "date":
      return day;
    case "time":
      return time;
    case "duration":
      return `P${1 + Math.floor(ctx.rand() * 30)}D`;
    case "hostname":
    case "idn-hostname":
      return `${slug(ctx, 1, "")}.example.com`;
    case "ipv4":
      return `192.0.2.${1 + Math.floor(ctx.rand() * 254)}`;
    case "ipv6":
      return `2001:db8::${hex(ctx, 4)}`;
    default:
      return null;
  }
}

/** Words of the request joined by spaces, between `min` and `max` characters long. */
function sentence(ctx: Ctx, min: number, max: number): string {
  const target = Math.min(max, Math.max(min, 16 + Math.floor(ctx.rand() * 48)));
  let i = Math.floor(ctx.rand() * ctx.words.length);
  let out = "";
  while (out.length < target) {
    const w = ctx.words[i++ % ctx.words.length];
    const next = out ? `${out} ${w}` : w;
    if (next.length > max) {
      const room = max - out.length - (out ? 1 : 0);
      if (room > 0) out = out ? `${out} ${w.slice(0, room)}` : w.slice(0, room);
      break;
    }
    out = next;
  }
  return out.length < min ? out.padEnd(min, "x") : out;
}

function compile(pattern: unknown): RegExp | null {
  if (typeof pattern !== "string") return null;
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return null; // a pattern JavaScript cannot compile is ignored, like any unknown keyword
    }
  }
}

function stringOf(s: Schema, ctx: Ctx): string {
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : Math.max(min, 200);
  const fits = (v: string) => v.length >= min && v.length <= max;
  const re = compile(s.pattern);
  const ok = (v: string | null): v is string => v !== null && fits(v) && (!re || re.test(v));
  const fromFormat = typeof s.format === "string" ? formatted(s.format, ctx) : null;
  if (ok(fromFormat)) return fromFormat;
  const text = sentence(ctx, min, max);
  if (!re) return text;
  const candidates = [
    text,
    slug(ctx, 2, "-"),
    slug(ctx, 2, "_"),
    slug(ctx, 1, ""),
    ctx.words[0],
    String(Math.floor(ctx.rand() * 1000)),
  ];
  const found = candidates.find(ok);
  if (found) return found;
  const rx = new RandExp(re);
  rx.max = 3;
  rx.randInt = (a: number, b: number) => a + Math.floor(ctx.rand() * (b - a + 1));
  // Printable ASCII for character classes such as . and \S.
  rx.defaultRange.subtract(0, 31);
  rx.defaultRange.subtract(127, 65535);
  let v = rx.gen();
  for (let tries = 0; !ok(v) && tries < 16; tries++) v = rx.gen();
  return v;
}
