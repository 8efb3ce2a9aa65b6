/**
 * The parser core under the REST grammar: a backtracking cursor with Parsec's `try`, the
 * furthest-failure error report PostgREST's PGRST100 messages carry, and the lexical pieces
 * (quoted values, identifiers, field names, JSON paths) shared by select, filter and order.
 */
import { Errors } from "./errors.ts";
import type { Field, JsonStep } from "./types.ts";

export class Failure {
  constructor(readonly pos: number) {}
}

const IDENT_CHAR = /[\p{L}\p{Nd}_ $]/u;
/** Embeds and logic trees nest by recursion; bound it so that no input can exhaust the stack. */
const MAX_DEPTH = 64;
const JSON_KEY_STOP = new Set(["(", "-", ":", ".", ",", ">", ")"]);

export class Parser {
  pos = 0;
  depth = 0;
  private furthest = -1;
  private expected = new Set<string>();

  constructor(readonly src: string) {}

  fail(what: string): never {
    if (this.pos > this.furthest) {
      this.furthest = this.pos;
      this.expected = new Set();
    }
    if (this.pos === this.furthest) this.expected.add(what);
    throw new Failure(this.pos);
  }

  /** Runs `fn`; on failure restores the position (Parsec's `try`) and returns undefined. */
  attempt<T>(fn: () => T): T | undefined {
    const start = this.pos;
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof Failure)) throw err;
      this.pos = start;
      return undefined;
    }
  }

  get rest(): string {
    return this.src.slice(this.pos);
  }

  at(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  eat(s: string): boolean {
    if (!this.at(s)) return false;
    this.pos += s.length;
    return true;
  }

  expect(s: string, what = JSON.stringify(s)): void {
    if (!this.eat(s)) this.fail(what);
  }

  eof(): boolean {
    return this.pos >= this.src.length;
  }

  ws(): void {
    while (this.src[this.pos] === " " || this.src[this.pos] === "\t") this.pos++;
  }

  nest<T>(fn: () => T): T {
    if (this.depth >= MAX_DEPTH) this.fail(`at most ${MAX_DEPTH} nested levels`);
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  report(): { column: number; details: string } {
    const pos = Math.max(this.furthest, 0);
    const ch = this.src[pos];
    const unexpected = ch === undefined ? "end of input" : JSON.stringify(ch);
    return {
      column: pos + 1,
      details: `unexpected ${unexpected} expecting ${[...this.expected].join(", ")}`,
    };
  }
}

/** Parses `src`; errors name `shown` (PostgREST shows the parameter, not what it parsed). */
export function run<T>(context: string, src: string, fn: (p: Parser) => T, shown = src): T {
  const p = new Parser(src);
  try {
    return fn(p);
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    const { column, details } = p.report();
    throw Errors.queryParam(`"failed to parse ${context} (${shown})" (line 1, column ${column})`, details);
  }
}

// ---- lexical pieces ----

export function quotedValue(p: Parser): string {
  p.expect('"');
  let out = "";
  for (;;) {
    const c = p.src[p.pos];
    if (c === undefined) p.fail('"\\""');
    p.pos++;
    if (c === '"') return out;
    if (c === "\\") {
      const next = p.src[p.pos];
      if (next === undefined) p.fail("any character");
      out += next;
      p.pos++;
    } else out += c;
  }
}

export function identifier(p: Parser): string {
  const start = p.pos;
  while (p.pos < p.src.length && IDENT_CHAR.test(p.src[p.pos])) p.pos++;
  if (p.pos === start) p.fail("letter or digit");
  return p.src.slice(start, p.pos).trim();
}

/** `a-b-c` where a dash is not the start of `->`. */
function sepByDash(p: Parser, piece: (p: Parser) => string): string {
  const parts = [piece(p)];
  while (p.at("-") && !p.at("->")) {
    p.pos++;
    parts.push(piece(p));
  }
  return parts.join("-");
}

export function fieldName(p: Parser): string {
  if (p.at('"')) return quotedValue(p);
  if (!IDENT_CHAR.test(p.src[p.pos] ?? "")) p.fail("field name (* or [a..z0..9_$])");
  return sepByDash(p, identifier);
}

function jsonKeyPiece(p: Parser): string {
  const start = p.pos;
  while (p.pos < p.src.length && !JSON_KEY_STOP.has(p.src[p.pos])) p.pos++;
  if (p.pos === start) p.fail("any non reserved character different from: .,>()");
  return p.src.slice(start, p.pos).trim();
}

export function jsonPath(p: Parser): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    const arrow = p.eat("->>") ? "->>" : p.eat("->") ? "->" : null;
    if (!arrow) return steps;
    const index = p.attempt(() => {
      const m = /^-?\d+/.exec(p.rest);
      if (!m) p.fail("digit");
      p.pos += m[0].length;
      if (!(p.at("->") || p.at("::") || p.at(".") || p.at(",") || p.eof())) p.fail('"->", "::", ".", ","');
      return m[0];
    });
    if (index !== undefined) steps.push({ arrow, key: index, index: true });
    else steps.push({ arrow, key: p.at('"') ? quotedValue(p) : sepByDash(p, jsonKeyPiece), index: false });
  }
}

export function field(p: Parser): Field {
  p.ws();
  const name = fieldName(p);
  const path = jsonPath(p);
  p.ws();
  return { name, path };
}

export function aliasPrefix(p: Parser): string | undefined {
  return p.attempt(() => {
    const alias = fieldName(p);
    if (!p.at(":") || p.at("::")) p.fail('":"');
    p.pos++;
    return alias;
  });
}
