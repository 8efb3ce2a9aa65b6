/** The migration runner's statement splitter: semicolons end statements only outside quotes and bodies. */
import assert from "node:assert/strict";
import { splitStatements } from "../../../../stack/db/statements.ts";

Deno.test("splitStatements: quotes, dollar quotes, comments and BEGIN ATOMIC bodies keep their semicolons", () => {
  const cases: [string, string[]][] = [
    ["select 1; select 2;", ["select 1;", "select 2;"]],
    ["select 'a;b'; select \"x;y\" from t", [`select 'a;b';`, `select "x;y" from t`]],
    ["select E'it\\'s;'; select 'it''s;';", ["select E'it\\'s;';", "select 'it''s;';"]],
    [
      "create function f() returns int language plpgsql as $fn$ begin return 1; end $fn$; select 3;",
      ["create function f() returns int language plpgsql as $fn$ begin return 1; end $fn$;", "select 3;"],
    ],
    ["-- a; comment\nselect 1; /* b; /* nested; */ c; */ select 2;", [
      "-- a; comment\nselect 1;",
      "/* b; /* nested; */ c; */ select 2;",
    ]],
    [
      "create function g() returns int language sql begin atomic select case when true then 1 end; end; select 4;",
      [
        "create function g() returns int language sql begin atomic select case when true then 1 end; end;",
        "select 4;",
      ],
    ],
    ["select 1; -- trailing comment\n", ["select 1;"]],
    [";;select 5", ["select 5"]],
  ];
  for (const [sql, expected] of cases) assert.deepEqual(splitStatements(sql), expected, sql);
});
