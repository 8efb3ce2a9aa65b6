/**
 * Fuzzing /rest/v1: random and malformed paths, query strings, headers and bodies, built from
 * fragments of the grammar and garbage. Every answer must be a PostgREST-shaped response below
 * 500, within a few seconds. The seed is printed so that a failure can be replayed with
 * REST_FUZZ_SEED=<seed>.
 */
import assert from "node:assert/strict";
import { PgrstError } from "../../stack/rest/errors.ts";
import { parseLogic, parseOpExpr, parseOrder, parseSelect, parseTreePath } from "../../stack/rest/grammar.ts";
import { rest, restTest } from "./helpers.ts";
import { seededRandom } from "../../fixtures/random.ts";

const SEED = Number(Deno.env.get("REST_FUZZ_SEED") ?? Date.now() % 1_000_000);
const random = seededRandom(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
const chance = (p: number) => random() < p;
const int = (n: number) => Math.floor(random() * n);

const JUNK = [
  "",
  " ",
  "(",
  ")",
  ",",
  ".",
  ":",
  "::",
  "!",
  '"',
  "\\",
  "*",
  "->",
  "->>",
  "...",
  "%",
  "%00",
  "%zz",
  "'",
  ";",
  "{",
  "}",
  "[",
  "]",
  "\u0000",
  "é",
  "😀",
  "null",
  "-1",
  "99999999999999999999",
  "1e309",
  "NaN",
  "drop table rt_items;--",
];
const READ_TABLES = [
  "rt_clients",
  "rt_projects",
  "rt_tasks",
  "rt_people",
  "rt_messages",
  "rt_slots",
  "rt_project_summaries",
  "rt_quote_items",
  "rt_nope",
  "rt%20x",
  'rt weird "names"',
];
const WRITE_TABLES = ["rt_items", "rt_kv", "rt_items_view", "rt_inbox", "rt_nope"];
const FUNCTIONS = [
  "rt_add",
  "rt_projects_over",
  "rt_doubles",
  "rt_echo",
  "rt_names",
  "rt_noop",
  "rt_fail",
  "rt_context",
  "nope",
];
const COLUMNS = [
  "id",
  "name",
  "budget",
  "tags",
  "meta",
  "status",
  "title",
  "done",
  "priority",
  "qty",
  "key",
  "value",
  "note",
  "amount",
  "nope",
];
const EMBEDS = [
  "rt_clients",
  "rt_projects",
  "rt_tasks",
  "rt_people",
  "rt_messages",
  "client_id",
  "rt_manager",
  "nope",
];
const OPS = [
  "eq",
  "neq",
  "gt",
  "gte",
  "lt",
  "lte",
  "like",
  "ilike",
  "match",
  "imatch",
  "is",
  "isdistinct",
  "in",
  "cs",
  "cd",
  "ov",
  "sl",
  "sr",
  "nxl",
  "nxr",
  "adj",
  "fts",
  "plfts",
  "phfts",
  "wfts",
  "eq(any)",
  "like(all)",
  "fts(english)",
  "bogus",
];
const VALUES = [
  "1",
  "0",
  "-5",
  "abc",
  "null",
  "true",
  "{1,2}",
  "{a",
  "(1,2)",
  '("a,b",c)',
  "()",
  "[1,5)",
  '{"a":1}',
  "*x*",
  "a b",
  ...JUNK,
];

function value(): string {
  return chance(0.9) ? pick(VALUES.slice(0, 15)) : Array.from({ length: int(4) }, () => pick(JUNK)).join("");
}

function field(): string {
  let f = pick(COLUMNS);
  if (chance(0.15)) f = `"${f}"`;
  if (chance(0.2)) f += `${pick(["->", "->>"])}${pick(["a", "0", "owner", "-1", "", '"x"'])}`;
  return f;
}

function selectItem(depth: number): string {
  const r = random();
  if (r < 0.15) return "*";
  if (r < 0.55 || depth > 2) {
    return `${chance(0.2) ? "alias:" : ""}${field()}${
      chance(0.15) ? `::${pick(["text", "int", "jsonb", "nope", "numeric(5"])}` : ""
    }`;
  }
  const hint = chance(0.2) ? `!${pick(["inner", "left", "fk", "client_id"])}` : "";
  const items = Array.from({ length: int(3) }, () => selectItem(depth + 1)).join(",");
  return `${chance(0.15) ? "..." : ""}${chance(0.2) ? "al:" : ""}${pick(EMBEDS)}${hint}(${items})`;
}

function logic(depth: number): string {
  const items = Array.from(
    { length: 1 + int(3) },
    () =>
      chance(0.3) && depth < 3
        ? `${chance(0.3) ? "not." : ""}${pick(["and", "or"])}${logic(depth + 1)}`
        : `${field()}.${pick(OPS)}.${value()}`,
  );
  return `(${items.join(",")}${chance(0.1) ? pick(JUNK) : ""})`;
}

function queryString(): string {
  const params: string[] = [];
  const n = int(6);
  for (let i = 0; i < n; i++) {
    const r = random();
    const prefix = chance(0.15) ? `${pick(EMBEDS)}.` : "";
    if (r < 0.2) params.push(`select=${selectItem(0)}${chance(0.5) ? `,${selectItem(0)}` : ""}`);
    else if (r < 0.5) params.push(`${prefix}${field()}=${chance(0.2) ? "not." : ""}${pick(OPS)}.${value()}`);
    else if (r < 0.6) params.push(`${prefix}${pick(["or", "and", "not.or"])}=${logic(0)}`);
    else if (r < 0.7) {
      params.push(
        `${prefix}order=${field()}${
          chance(0.5) ? pick([".asc", ".desc", ".nullsfirst", ".desc.nullslast", ".x"]) : ""
        }`,
      );
    } else if (r < 0.8) {
      params.push(
        `${prefix}${pick(["limit", "offset"])}=${
          pick(["0", "1", "2", "-1", "x", "1000000", "99999999999999999999"])
        }`,
      );
    } else if (r < 0.85) params.push(`${pick(["on_conflict", "columns"])}=${pick(COLUMNS)},${pick(COLUMNS)}`);
    else if (chance(0.3)) params.push(`${pick(JUNK)}=${pick(JUNK)}`);
  }
  return params.map((q) => (chance(0.7) ? encodeURI(q).replaceAll("#", "%23").replaceAll("&", "%26") : q))
    .join(pick(["&", "&", ";"]));
}

function headers(): Record<string, string> {
  const h: Record<string, string> = {};
  if (chance(0.5)) {
    h.Prefer = Array.from({ length: 1 + int(3) }, () =>
      pick([
        "return=representation",
        "return=minimal",
        "return=headers-only",
        "count=exact",
        "count=planned",
        "count=estimated",
        "resolution=merge-duplicates",
        "resolution=ignore-duplicates",
        "missing=default",
        "tx=rollback",
        "handling=strict",
        "max-affected=1",
        "timezone=Mars/Olympus",
        "params=single-object",
        "garbage",
      ])).join(pick([",", ", "]));
  }
  if (chance(0.3)) {
    h.Accept = pick([
      "application/json",
      "application/vnd.pgrst.object+json",
      "text/csv",
      "text/html",
      "*/*",
      "application/vnd.pgrst.plan",
      "application/vnd.pgrst.array+json;nulls=stripped",
      ";;;",
      "application/json;q=abc",
    ]);
  }
  if (chance(0.15)) h.Range = pick(["0-1", "5-2", "1-", "abc", "-3", "99999999999999999999-"]);
  if (chance(0.15)) h["Accept-Profile"] = pick(["public", "graphql_public", "rt_private", "", "pg_catalog"]);
  if (chance(0.15)) h["Content-Profile"] = pick(["public", "graphql_public", "nope"]);
  if (chance(0.05)) {
    h.Authorization = pick([
      "Bearer",
      "Bearer x",
      "Bearer a.b.c",
      "Basic Zm9vOmJhcg==",
      "Bearer ....",
      "bearer eyJ.eyJ.sig",
    ]);
  }
  if (chance(0.2)) {
    h["Content-Type"] = pick([
      "application/json",
      "text/csv",
      "application/x-www-form-urlencoded",
      "text/plain",
      "application/json; charset=utf-8",
      "x/y",
    ]);
  }
  return h;
}

function body(): string {
  const r = random();
  const obj = () => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < int(4); i++) {
      o[pick(COLUMNS)] = pick([1, "x", null, true, [1, 2], { a: 1 }, 1e308, -0, "", "\u0000"]);
    }
    return o;
  };
  if (r < 0.3) return JSON.stringify(obj());
  if (r < 0.5) return JSON.stringify(Array.from({ length: int(4) }, obj));
  if (r < 0.6) return "[".repeat(200) + "]".repeat(200);
  if (r < 0.7) return pick(["", "null", "1", '"str"', "{", "[{}, 1]", '{"a":', "true"]);
  if (r < 0.8) return `{"name": "n", "amount": ${"9".repeat(int(400) + 1)}.${"1".repeat(int(50))}}`;
  return Array.from({ length: int(20) }, () => pick([...JUNK, "\ud800"])).join("");
}

Deno.test(`grammar: random input only ever fails as PGRST100 (seed ${SEED})`, () => {
  const parsers = [
    (s: string) => parseSelect(s),
    (s: string) => parseOpExpr(s),
    (s: string) => parseOrder(s),
    (s: string) => parseTreePath(s),
    (s: string) => parseLogic("or", s),
  ];
  for (let i = 0; i < 4000; i++) {
    const s = chance(0.5)
      ? Array.from({ length: int(12) }, () => pick([...JUNK, "\ud800", ...COLUMNS, ...OPS, "(", ")", ","]))
        .join("")
      : pick([selectItem(0), logic(0), `${pick(OPS)}.${value()}`, `${field()}.desc`]);
    for (const parse of parsers) {
      try {
        parse(s);
      } catch (err) {
        if (!(err instanceof PgrstError) || err.code !== "PGRST100") {
          throw new Error(`seed ${SEED}: ${JSON.stringify(s)} threw ${err}`);
        }
      }
    }
  }
  // Deep nesting is refused, not a stack overflow.
  for (
    const s of ["a(".repeat(5000) + ")".repeat(5000), "(" + "or(".repeat(5000) + "a.eq.1" + ")".repeat(5001)]
  ) {
    assert.throws(() => (s.startsWith("a(") ? parseSelect(s) : parseLogic("or", s)), PgrstError);
  }
});

restTest(`HTTP: random requests never give a 500 or hang (seed ${SEED})`, async (p) => {
  const keys = [
    ...Array(9).fill(p.config.anonKey),
    ...Array(9).fill(p.config.serviceRoleKey),
    "not-a-key",
    p.config.publishableKey,
  ];
  const seen = new Map<number, number>();
  const n = Number(Deno.env.get("REST_FUZZ_REQUESTS") ?? 500);
  for (let i = 0; i < n; i++) {
    const method = pick([
      "GET",
      "GET",
      "GET",
      "GET",
      "HEAD",
      "POST",
      "POST",
      "POST",
      "PATCH",
      "PATCH",
      "DELETE",
      "DELETE",
      "PUT",
      "PROPFIND",
    ]);
    const isWrite = !["GET", "HEAD"].includes(method);
    const path = chance(0.3)
      ? `/rpc/${pick(isWrite ? FUNCTIONS.filter((f) => f !== "rt_context") : FUNCTIONS)}`
      : chance(0.05)
      ? pick(["/", "/a/b", "//", "/rpc", "/rpc/", "/%", "/rt_clients/"])
      : `/${encodeURIComponent(pick(isWrite ? WRITE_TABLES : READ_TABLES))}`;
    const url = `${path}?${queryString()}`;
    const init = {
      method,
      headers: headers(),
      apikey: pick(keys),
      body: isWrite && chance(0.8) ? body() : undefined,
    };
    const started = performance.now();
    let status: number;
    let text: string;
    try {
      const res = await Promise.race([
        rest(p, url, init),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out after 5 s")), 5000)),
      ]);
      status = res.status;
      text = res.text;
    } catch (err) {
      throw new Error(`seed ${SEED}, request ${i}: ${method} ${url} ${JSON.stringify(init)}: ${err}`);
    }
    assert.ok(
      status < 500,
      `seed ${SEED}, request ${i}: ${method} ${url} ${JSON.stringify(init)} -> ${status} ${text}`,
    );
    assert.ok(performance.now() - started < 5000);
    if (status >= 400 && method !== "HEAD" && status !== 405 && text !== "") {
      const err = JSON.parse(text);
      assert.ok(typeof err.code === "string" && typeof err.message === "string", text);
    }
    seen.set(status, (seen.get(status) ?? 0) + 1);
  }
  if (Deno.env.get("REST_FUZZ_VERBOSE")) console.log([...seen].sort((a, b) => a[0] - b[0]));
  // The fuzzer exercised both successes and refusals.
  assert.ok(
    [...seen.keys()].some((s) => s < 300) && [...seen.keys()].some((s) => s >= 400),
    JSON.stringify([...seen]),
  );
});
