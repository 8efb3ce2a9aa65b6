/**
 * Building PostgREST `or=(...)` filters from user input without letting the input add filter
 * syntax. Two layers of escaping, innermost first:
 *
 * 1. LIKE: `\`, `%` and `_` are escaped with a backslash (Postgres's default LIKE escape), so they
 *    match themselves. PostgREST rewrites every `*` in a like/ilike pattern to `%` and has no
 *    escape for it, so a `*` typed by the user becomes `_` (any one character): the closest
 *    pattern that still matches a literal `*`.
 * 2. PostgREST's logic-tree grammar: the value is double-quoted, with `\` and `"` escaped, so
 *    `,` `.` `(` `)` `:` and quotes inside the input are data, not syntax.
 */

/** A LIKE pattern matching `term` literally (modulo `*`, see above). */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll("*", "_");
}

/** A value for a PostgREST logic tree (or=/and=), quoted so that nothing in it is syntax. */
export function quoteFilterValue(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** `col.ilike."*term*"` for every column, for supabase-js's .or(). */
export function containsAnyFilter(columns: readonly string[], term: string): string {
  for (const c of columns) {
    // Column names come from code, never from input; guard against a mistake anyway.
    if (!/^[a-z_][a-z0-9_]*$/.test(c)) throw new TypeError(`not a plain column name: ${c}`);
  }
  const value = quoteFilterValue(`*${escapeLike(term)}*`);
  return columns.map((c) => `${c}.ilike.${value}`).join(",");
}

/** The spec's company search: name, email or website contains the term, case-insensitively. */
const COMPANY_SEARCH_COLUMNS = ["name", "email", "website"] as const;

export function companySearchFilter(term: string): string {
  return containsAnyFilter(COMPANY_SEARCH_COLUMNS, term);
}
