/**
 * `deno task route-lint`: route files stay route tables. A route file is an AI-backend route
 * module (services/ai-backend/routes/*.ts) or an edge function's app.ts. In them:
 *
 * - no database calls: `.from(...)`, `.rpc(...)`, `.schema(...)`, `.storage.` and tagged `sql`
 *   belong in the domain modules of packages/shared/ (Array.from and friends are not database calls);
 * - no handler over MAX_HANDLER_LINES lines: an arrow or function taking the request context
 *   (`(c) => {...}`, `async (c: Ctx) => {...}`) validates, authorises, calls a domain function and
 *   responds; anything longer is domain code in the wrong place.
 *
 * Prints every finding as `file:line: message` and exits 1 when there is any; `--list` prints the
 * handler sizes too. The scan is lexical (strings, template literals and comments are skipped when
 * matching braces), which is enough for code formatted by `deno fmt`.
 */

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
export const MAX_HANDLER_LINES = 15;
const NOT_DB = new Set([
  "Array",
  "Buffer",
  "Uint8Array",
  "Uint16Array",
  "Int16Array",
  "Float32Array",
  "Float64Array",
  "Object",
  "Set",
  "Map",
  "String",
]);

export interface Finding {
  file: string;
  line: number;
  message: string;
}

/** The source with string, template-literal and comment contents blanked (newlines kept). */
export function blank(src: string): string {
  let out = "";
  let i = 0;
  const stack: string[] = []; // "`" for template text, "{" for ${ } nesting inside templates
  while (i < src.length) {
    const ch = src[i];
    const top = stack[stack.length - 1];
    if (top === "`") {
      if (ch === "\\") {
        out += "  ";
        i += 2;
      } else if (ch === "`") {
        stack.pop();
        out += ch;
        i++;
      } else if (ch === "$" && src[i + 1] === "{") {
        stack.push("{");
        out += "${";
        i += 2;
      } else {
        out += ch === "\n" ? "\n" : " ";
        i++;
      }
      continue;
    }
    if (ch === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") {
        out += " ";
        i++;
      }
      continue;
    }
    if (ch === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
      continue;
    }
    if (ch === '"' || ch === "'") {
      out += ch;
      i++;
      while (i < src.length && src[i] !== ch && src[i] !== "\n") {
        const step = src[i] === "\\" ? 2 : 1;
        out += " ".repeat(step);
        i += step;
      }
      out += src[i] ?? "";
      i++;
      continue;
    }
    if (ch === "`") {
      stack.push("`");
      out += ch;
      i++;
      continue;
    }
    if (top === "{" && ch === "}") {
      stack.pop();
      out += ch;
      i++;
      continue;
    }
    if (top === "{" && ch === "{") stack.push("{");
    out += ch;
    i++;
  }
  return out;
}

function lineOf(src: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (src.charCodeAt(i) === 10) n++;
  return n;
}

function matchBrace(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    if (src[i] === "{") depth++;
    else if (src[i] === "}" && --depth === 0) return i;
  }
  return src.length - 1;
}

/** The findings for one route file's source (`file` is only used in the messages). */
export function lintRouteSource(file: string, source: string, list = false): Finding[] {
  const src = blank(source);
  const findings: Finding[] = [];
  for (const m of src.matchAll(/(\w+)?\s*\.\s*(from|rpc|schema)\s*\(/g)) {
    if (m[1] && NOT_DB.has(m[1])) continue;
    findings.push({ file, line: lineOf(src, m.index!), message: `database call .${m[2]}() in a route file` });
  }
  for (const m of src.matchAll(/\.storage\s*\.|\bsql\s*`/g)) {
    findings.push({ file, line: lineOf(src, m.index!), message: "database call in a route file" });
  }
  const handler =
    /(?:async\s*)?(?:\(\s*c\s*(?::[^)]*)?\)\s*=>|function\s*\w*\s*\(\s*c\s*(?::[^)]*)?\))\s*\{/g;
  for (const m of src.matchAll(handler)) {
    const open = m.index! + m[0].length - 1;
    const close = matchBrace(src, open);
    const first = lineOf(src, open);
    const lines = lineOf(src, close) - first - 1;
    if (list) console.log(`${file}:${first}: handler of ${lines} lines`);
    if (lines > MAX_HANDLER_LINES) {
      findings.push({
        file,
        line: first,
        message:
          `handler of ${lines} lines (at most ${MAX_HANDLER_LINES}): move its work into a domain function`,
      });
    }
  }
  return findings;
}

/** Every route file of the repository, relative to its root. */
export async function routeFiles(root = ROOT): Promise<string[]> {
  const files: string[] = [];
  for await (const e of Deno.readDir(`${root}/services/ai-backend/routes`)) {
    if (e.isFile && e.name.endsWith(".ts")) files.push(`services/ai-backend/routes/${e.name}`);
  }
  for await (const e of Deno.readDir(`${root}/supabase/functions`)) {
    if (!e.isDirectory) continue;
    try {
      await Deno.stat(`${root}/supabase/functions/${e.name}/app.ts`);
      files.push(`supabase/functions/${e.name}/app.ts`);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return files.sort();
}

if (import.meta.main) {
  const list = Deno.args.includes("--list");
  const findings: Finding[] = [];
  for (const f of await routeFiles()) {
    findings.push(...lintRouteSource(f, await Deno.readTextFile(`${ROOT}/${f}`), list));
  }
  for (const f of findings) console.log(`${f.file}:${f.line}: ${f.message}`);
  if (findings.length) {
    console.log(`route-lint: ${findings.length} finding(s)`);
    Deno.exit(1);
  }
  console.log("route-lint: route files hold no database calls and no handler is over 15 lines");
}
