/**
 * postgres_changes filters (realtime-protocol.md §5): `column=op.value` segments joined by commas
 * (ANDed), op one of eq, neq, lt, lte, gt, gte, in, is, like, ilike, optionally negated with
 * `not.`; `in` takes `(a,b,...)` (at most 100 values); values may be double-quoted with `\`
 * escapes. An empty filter means none. Evaluated on the row's JSON image: numbers compare as
 * numbers when both sides are numeric, everything else as text, as PostgREST's text forms do.
 */
export type FilterOp = "eq" | "neq" | "lt" | "lte" | "gt" | "gte" | "in" | "is" | "like" | "ilike";

export interface Condition {
  column: string;
  op: FilterOp;
  negate: boolean;
  values: string[];
}

export class FilterError extends Error {}

const OPS = new Set(["eq", "neq", "lt", "lte", "gt", "gte", "in", "is", "like", "ilike"]);

/** Splits on commas outside parentheses and double quotes. */
function segments(filter: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = "";
  for (let i = 0; i < filter.length; i++) {
    const ch = filter[i];
    if (ch === "\\" && quoted) {
      cur += ch + (filter[i + 1] ?? "");
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "(") depth++;
    else if (!quoted && ch === ")") depth--;
    if (ch === "," && depth === 0 && !quoted) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) return t.slice(1, -1).replace(/\\(.)/g, "$1");
  return t;
}

export function parseFilter(filter: string | undefined | null): Condition[] {
  if (filter === undefined || filter === null || filter.trim() === "") return [];
  return segments(filter).map((seg) => {
    const eq = seg.indexOf("=");
    if (eq <= 0) throw new FilterError(`filter segment "${seg}" is not column=op.value`);
    const column = seg.slice(0, eq).trim();
    let rest = seg.slice(eq + 1);
    let negate = false;
    if (rest.startsWith("not.")) {
      negate = true;
      rest = rest.slice(4);
    }
    const dot = rest.indexOf(".");
    const op = dot < 0 ? rest : rest.slice(0, dot);
    if (!OPS.has(op)) throw new FilterError(`unknown filter operator "${op}" in "${seg}"`);
    const raw = dot < 0 ? "" : rest.slice(dot + 1);
    let values: string[];
    if (op === "in") {
      if (!raw.startsWith("(") || !raw.endsWith(")")) throw new FilterError(`in needs (a,b,...): "${seg}"`);
      values = segments(raw.slice(1, -1)).map(unquote);
      if (values.length > 100) throw new FilterError("in takes at most 100 values");
    } else {
      values = [unquote(raw)];
      if (op === "is" && !["null", "true", "false", "unknown"].includes(values[0].toLowerCase())) {
        throw new FilterError(`is takes null, true, false or unknown: "${seg}"`);
      }
    }
    return { column, op: op as FilterOp, negate, values };
  });
}

function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

function compare(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (a.trim() !== "" && b.trim() !== "" && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

function likeRegex(pattern: string, flags: string): RegExp {
  const re = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("%", ".*").replaceAll("_", ".")
    .replaceAll("*", ".*");
  return new RegExp(`^${re}$`, flags);
}

function holds(c: Condition, row: Record<string, unknown>): boolean {
  const v = text(row[c.column]);
  const [first] = c.values;
  switch (c.op) {
    case "is": {
      const k = first.toLowerCase();
      if (k === "null" || k === "unknown") return v === null;
      return v === k;
    }
    case "in":
      return v !== null && c.values.some((x) => compare(v, x) === 0);
    case "like":
    case "ilike":
      return v !== null && likeRegex(first, c.op === "ilike" ? "is" : "s").test(v);
  }
  if (v === null) return false; // SQL: a comparison with null is not true
  const d = compare(v, first);
  switch (c.op) {
    case "eq":
      return d === 0;
    case "neq":
      return d !== 0;
    case "lt":
      return d < 0;
    case "lte":
      return d <= 0;
    case "gt":
      return d > 0;
    case "gte":
      return d >= 0;
  }
}

export function matches(conditions: Condition[], row: Record<string, unknown> | null | undefined): boolean {
  if (conditions.length === 0) return true;
  if (!row) return false;
  return conditions.every((c) => holds(c, row) !== c.negate);
}
