/**
 * Building PostgREST `or=(...)` filters from user input without letting the input add filter
 * syntax, and matching every character literally. Two layers of escaping, innermost first:
 *
 * 1. The match: `imatch` (`~*`, a case-insensitive POSIX regex) with every regex metacharacter
 *    backslash-escaped, so `*`, `%`, `_`, `.`, `(`, `)`, `\`, quotes ... all match themselves.
 *    (like/ilike cannot: PostgREST turns every `*` into `%` and has no escape for it.)
 * 2. PostgREST's logic-tree grammar: the value is double-quoted, with `\` and `"` escaped, so
 *    `,` `.` `(` `)` `:` and quotes inside the input are data, not syntax.
 */

/** A POSIX regular expression matching `term` literally. */
export function escapeRegex(term: string): string {
  return term.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
}

/** A value for a PostgREST logic tree (or=/and=), quoted so that nothing in it is syntax. */
export function quoteFilterValue(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** `col.imatch."<term, escaped>"` for every column (contains, case-insensitively), for .or(). */
export function containsAnyFilter(columns: readonly string[], term: string): string {
  for (const c of columns) {
    // Column names come from code, never from input; guard against a mistake anyway.
    if (!/^[a-z_][a-z0-9_]*$/.test(c)) throw new TypeError(`not a plain column name: ${c}`);
  }
  const value = quoteFilterValue(escapeRegex(term));
  return columns.map((c) => `${c}.imatch.${value}`).join(",");
}

/** The spec's company search: name, email or website contains the term, case-insensitively. */
const COMPANY_SEARCH_COLUMNS = ["name", "email", "website"] as const;

export function companySearchFilter(term: string): string {
  return containsAnyFilter(COMPANY_SEARCH_COLUMNS, term);
}
