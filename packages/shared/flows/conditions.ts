/**
 * Stage 3 for condition nodes, evaluate: the twelve operators and the switch and filter rules.
 *
 * Type coercion, written once:
 * - equals / not_equals: two values that are both numbers or numeric strings compare as numbers
 *   ("10" equals 10, "1e1" equals 10); booleans compare with "true"/"false" (any case); null and
 *   a missing field equal "" and null; otherwise they compare as text (objects as JSON).
 * - contains / not_contains: in an array, an element equal (as above) to the value; in text, the
 *   value as a substring (case-sensitive); a missing field contains nothing.
 * - starts_with / ends_with: text only (numbers as their text); a missing field: false.
 * - gt / gte / lt / lte: numbers (numeric strings coerced); if either side is not numeric, two
 *   ISO dates compare as instants; anything else is false.
 * - is_empty: missing, null, a string that is blank after trimming, [] and {}; is_not_empty is
 *   its negation. The value is ignored.
 */
import type { Condition, ConditionGroup, Operator } from "./graph.ts";

function numeric(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function text(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;
function instant(v: unknown): number | null {
  if (typeof v !== "string" || !ISO_DATE.test(v.trim())) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

export function looselyEqual(a: unknown, b: unknown): boolean {
  const na = numeric(a), nb = numeric(b);
  if (na !== null && nb !== null) return na === nb;
  if (typeof a === "boolean" || typeof b === "boolean") {
    return text(a).toLowerCase() === text(b).toLowerCase();
  }
  return text(a) === text(b);
}

export function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === "string") return v.trim() === "";
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v).length === 0;
  return false;
}

function order(a: unknown, b: unknown): number | null {
  const na = numeric(a), nb = numeric(b);
  if (na !== null && nb !== null) return na - nb;
  const da = instant(a), db = instant(b);
  if (da !== null && db !== null) return da - db;
  return null;
}

function contains(haystack: unknown, needle: unknown): boolean {
  if (haystack === null || haystack === undefined) return false;
  if (Array.isArray(haystack)) return haystack.some((x) => looselyEqual(x, needle));
  return text(haystack).includes(text(needle));
}

export function compare(actual: unknown, operator: Operator, expected: unknown): boolean {
  switch (operator) {
    case "equals":
      return looselyEqual(actual, expected);
    case "not_equals":
      return !looselyEqual(actual, expected);
    case "contains":
      return contains(actual, expected);
    case "not_contains":
      return !contains(actual, expected);
    case "starts_with":
      return actual !== null && actual !== undefined && text(actual).startsWith(text(expected));
    case "ends_with":
      return actual !== null && actual !== undefined && text(actual).endsWith(text(expected));
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const d = order(actual, expected);
      if (d === null) return false;
      return operator === "gt" ? d > 0 : operator === "gte" ? d >= 0 : operator === "lt" ? d < 0 : d <= 0;
    }
    case "is_empty":
      return isEmpty(actual);
    case "is_not_empty":
      return !isEmpty(actual);
  }
}

/** Reads a condition's field (a path or template) in the run's scope. */
export type FieldReader = (field: string) => unknown;

export function evaluateCondition(c: Condition, read: FieldReader): boolean {
  return compare(read(c.field), c.operator, c.value);
}

/** A filter group: AND needs every entry, OR any; entries are conditions or nested groups. */
export function evaluateGroup(g: ConditionGroup, read: FieldReader): boolean {
  const one = (x: Condition | ConditionGroup) =>
    "conditions" in x ? evaluateGroup(x, read) : evaluateCondition(x, read);
  return g.logic === "or" ? g.conditions.some(one) : g.conditions.every(one);
}

/** The switch's branch: the first case that matches (`case_<i>`), else `default`. */
export function switchBranch(
  actual: unknown,
  cases: readonly { operator: Operator; value: unknown }[],
): string {
  const i = cases.findIndex((c) => compare(actual, c.operator, c.value));
  return i < 0 ? "default" : `case_${i}`;
}
