/**
 * Stage 2 of running a node, resolve templates: `{{trigger.data.x}}` and `{{node_id.output.x}}`
 * are data lookups, never code. A path is walked segment by segment over own properties only
 * (array indexes are segments: `items.0.sku`); `__proto__`, `constructor` and `prototype` are
 * never walked. Resolution is one pass: a value that itself contains `{{...}}` is inserted as
 * text and not expanded again. An unresolved template stays literal and is listed.
 *
 * Value rules: a string that is exactly one template takes the value as it is (a number stays a
 * number, an object an object); inside longer text, strings are inserted as they are, null as
 * the empty string, other values as JSON.
 */

/** What templates may read: the trigger's data and the outputs of the nodes that completed. */
export interface TemplateScope {
  trigger: { data: unknown };
  outputs: ReadonlyMap<string, unknown>;
}

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);
const MISSING = Symbol("missing");

function walk(root: unknown, segments: string[]): unknown {
  let cur = root;
  for (const seg of segments) {
    if (FORBIDDEN.has(seg) || seg === "") return MISSING;
    if (cur === null || typeof cur !== "object") return MISSING;
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]{0,8})$/.test(seg)) return MISSING;
      const i = Number(seg);
      if (i >= cur.length) return MISSING;
      cur = cur[i];
    } else {
      if (!Object.hasOwn(cur, seg)) return MISSING;
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  return cur === undefined ? MISSING : cur;
}

/** The value at a path such as `trigger.data.amount` or `n1.output.id`; undefined when missing. */
export function lookup(scope: TemplateScope, path: string): { found: boolean; value: unknown } {
  const segments = path.trim().split(".");
  const [head, part, ...rest] = segments;
  let v: unknown = MISSING;
  if (head === "trigger" && part === "data") v = walk(scope.trigger.data, rest);
  else if (part === "output" && scope.outputs.has(head)) v = walk(scope.outputs.get(head), rest);
  return v === MISSING ? { found: false, value: undefined } : { found: true, value: v };
}

function asText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null) return "";
  return JSON.stringify(v);
}

export interface Resolved<T = unknown> {
  value: T;
  /** The templates that did not resolve (as written between the braces), in order, once each. */
  unresolved: string[];
}

/** Resolves every template in a value (strings inside objects and arrays too), in one pass. */
export function resolveTemplates<T>(value: T, scope: TemplateScope): Resolved<T> {
  const unresolved: string[] = [];
  const miss = (path: string) => {
    if (!unresolved.includes(path)) unresolved.push(path);
  };
  const resolveString = (s: string): unknown => {
    const whole = WHOLE.exec(s);
    if (whole) {
      const r = lookup(scope, whole[1]);
      if (r.found) return r.value;
      miss(whole[1]);
      return s;
    }
    return s.replace(TEMPLATE, (match, path: string) => {
      const r = lookup(scope, path);
      if (r.found) return asText(r.value);
      miss(path);
      return match;
    });
  };
  const visit = (v: unknown, depth: number): unknown => {
    if (depth > 20) return v;
    if (typeof v === "string") return resolveString(v);
    if (Array.isArray(v)) return v.map((x) => visit(x, depth + 1));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        Object.defineProperty(out, k, { value: visit(x, depth + 1), enumerable: true, writable: true });
      }
      return out;
    }
    return v;
  };
  return { value: visit(value, 0) as T, unresolved };
}

/**
 * A condition's field: a template (`{{trigger.data.x}}`) or a bare path (`trigger.data.x`).
 * A missing field is undefined (so is_empty holds for it).
 */
export function fieldValue(field: string, scope: TemplateScope): { value: unknown; unresolved: string[] } {
  if (field.includes("{{")) {
    const r = resolveTemplates(field, scope);
    return {
      value: r.unresolved.length && WHOLE.test(field) ? undefined : r.value,
      unresolved: r.unresolved,
    };
  }
  const r = lookup(scope, field);
  return { value: r.value, unresolved: r.found ? [] : [field] };
}
