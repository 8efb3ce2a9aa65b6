/**
 * Splits a SQL file into statements the way the Supabase CLI does before running a migration
 * (supabase/cli pkg/parser: semicolons outside quotes, dollar quotes, comments and
 * `BEGIN ATOMIC ... END` bodies end a statement). Used where one statement of a file must run
 * differently from the rest (see migrate.ts: event triggers).
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  let atomicDepth = 0;
  const n = sql.length;
  const word = (at: number) => /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(at, at + 64))?.[0] ?? "";
  while (i < n) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === "/" && sql[i + 1] === "*") (depth++, i += 2);
        else if (sql[i] === "*" && sql[i + 1] === "/") (depth--, i += 2);
        else i++;
      }
    } else if (c === "'" || c === '"') {
      // E'...' strings allow backslash escapes; '' and "" are escaped quotes in both.
      const backslash = c === "'" && /[eE]/.test(sql[i - 1] ?? "") && !/[A-Za-z0-9_]/.test(sql[i - 2] ?? "");
      i++;
      while (i < n) {
        if (backslash && sql[i] === "\\") i += 2;
        else if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === "$" && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? "")) {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (m) {
        const end = sql.indexOf(m[0], i + m[0].length);
        i = end < 0 ? n : end + m[0].length;
      } else i++;
    } else if (/[A-Za-z_]/.test(c) && !/[A-Za-z0-9_$]/.test(sql[i - 1] ?? "")) {
      const w = word(i);
      const lower = w.toLowerCase();
      if (lower === "begin" && /^\s+atomic\b/i.test(sql.slice(i + w.length, i + w.length + 16))) {
        atomicDepth++;
      } else if (lower === "case" && atomicDepth > 0) atomicDepth++;
      else if (lower === "end" && atomicDepth > 0) atomicDepth--;
      i += w.length;
    } else if (c === ";" && atomicDepth === 0) {
      const stmt = sql.slice(start, i + 1).trim();
      if (stmt !== ";") out.push(stmt);
      start = i + 1;
      i++;
    } else i++;
  }
  const rest = sql.slice(start).trim();
  if (rest && !/^(\s|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*$/.test(rest)) out.push(rest);
  return out;
}
