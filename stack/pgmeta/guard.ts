/**
 * What /pg/query refuses before the SQL reaches the database. The platform has one embedded
 * database connection (PGlite) shared by every surface, and a few statements leave that backend
 * broken for good: after `COPY ... TO/FROM PROGRAM` every later statement answers
 * "ERRORDATA_STACK_SIZE exceeded" or returns nothing, `COPY ... FROM STDIN` never completes, and a
 * JSON/array/expression literal nested thousands of levels deep overflows the WASM stack. An
 * in-memory PGlite cannot be reopened with its data once its backend is corrupted, so refusing is
 * the only protection; these are refused with a 400 naming the reason. `UNLISTEN` is refused too:
 * the REST schema cache and other parts listen on this connection.
 */
import { bracketsTooDeep, MAX_JSON_DEPTH } from "@shared/input-limits.ts";

/** The SQL with comments, string literals and quoted identifiers blanked out (keywords stay). */
export function blankLiterals(sql: string): string {
  let out = "";
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end;
      out += " ";
    } else if (c === "/" && next === "*") {
      // Postgres block comments nest.
      let depth = 1;
      i += 2;
      while (i < sql.length && depth > 0) {
        if (sql[i] === "/" && sql[i + 1] === "*") (depth++, i += 2);
        else if (sql[i] === "*" && sql[i + 1] === "/") (depth--, i += 2);
        else i++;
      }
      out += " ";
    } else if (c === "'" || c === '"') {
      const backslashes = c === "'" && /[eE]/.test(sql[i - 1] ?? "") && !/\w/.test(sql[i - 2] ?? "");
      i++;
      while (i < sql.length) {
        if (backslashes && sql[i] === "\\") i += 2;
        else if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i++;
      }
      i++;
      out += " '' ";
    } else if (c === "$" && !/\w/.test(sql[i - 1] ?? "")) {
      const tag = /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(sql.slice(i));
      if (!tag) {
        out += c;
        i++;
        continue;
      }
      const end = sql.indexOf(tag[0], i + tag[0].length);
      i = end < 0 ? sql.length : end + tag[0].length;
      out += " '' ";
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Why the script may not run, or null when it may. */
export function refusal(sql: string): string | null {
  if (bracketsTooDeep(sql, MAX_JSON_DEPTH)) {
    return `brackets nested more than ${MAX_JSON_DEPTH} levels deep (the embedded database cannot parse them)`;
  }
  // Inside function bodies and EXECUTE strings too, so on the raw text, not only statement heads.
  if (/\bcopy\b[^;]*?\b(to|from)\s+program\b/i.test(sql)) {
    return "COPY ... PROGRAM is not supported by the embedded database";
  }
  if (/\bcopy\b[^;]*?\bfrom\s+stdin\b/i.test(sql)) {
    return "COPY ... FROM STDIN needs a client copy stream, which /pg/query does not have";
  }
  for (const statement of blankLiterals(sql).split(";")) {
    if (/^\s*unlisten\b/i.test(statement)) return "UNLISTEN would stop the platform's own listeners";
  }
  return null;
}
