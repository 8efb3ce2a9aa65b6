// The 400 text of http/validate.ts: unknown keys named with their paths and listed first, and
// withAliases (a documented second spelling renamed to the field; both spellings refused).
import assert from "node:assert/strict";
import { z } from "zod";
import { describeIssues, validate, withAliases } from "@shared/http/validate.ts";
import { HttpError } from "@shared/http/errors.ts";

const ID = "3f2b8c1e-9a7d-4e6f-8b5a-1c2d3e4f5a6b";

const Body = z.strictObject({
  workspace_id: z.uuid(),
  name: z.string().optional(),
  brief: z.strictObject({ tone: z.string().optional() }).optional(),
  items: z.array(z.strictObject({ qty: z.number() })).optional(),
});
const Action = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("connect"), workspace_id: z.uuid() }),
  z.strictObject({ action: z.literal("disconnect"), account_id: z.uuid() }),
]);
const Aliased = withAliases(Body, { workspaceId: "workspace_id" });

/** The 400 message validate() throws for `value`, or "ok" when it passes. */
function message(schema: z.ZodType, value: unknown): string {
  try {
    validate(schema, value);
    return "ok";
  } catch (err) {
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 400);
    assert.equal(err.code, "validation_failed");
    return err.message;
  }
}

Deno.test("unknown keys: a 400 naming each key with its path, before any other issue", () => {
  const cases: [string, z.ZodType, unknown, string][] = [
    ["known keys only", Body, { workspace_id: ID, name: "a" }, "ok"],
    ["one unknown key", Body, { workspace_id: ID, bogus: 1 }, 'Invalid request body: unknown field "bogus"'],
    [
      "two unknown keys",
      Body,
      { workspace_id: ID, bogus: 1, extra: null },
      'Invalid request body: unknown fields "bogus", "extra"',
    ],
    [
      "a misspelling: the unknown key leads, the missing field follows",
      Body,
      { workspaceId: ID },
      'Invalid request body: unknown field "workspaceId"; workspace_id: Invalid input: expected string, ' +
      "received undefined",
    ],
    [
      "nested object",
      Body,
      { workspace_id: ID, brief: { tone: "dry", voice: "x" } },
      'Invalid request body: unknown field "brief.voice"',
    ],
    [
      "array item",
      Body,
      { workspace_id: ID, items: [{ qty: 1 }, { qty: 2, sku: "x" }] },
      'Invalid request body: unknown field "items.1.sku"',
    ],
    [
      "after five other issues it is still named",
      z.strictObject({ a: z.string(), b: z.string(), c: z.string(), d: z.string(), e: z.string() }),
      { zz: 1 },
      'Invalid request body: unknown field "zz"; a: Invalid input: expected string, received undefined; ' +
      "b: Invalid input: expected string, received undefined; c: Invalid input: expected string, received " +
      "undefined; d: Invalid input: expected string, received undefined",
    ],
    [
      "an action's own keys only (another action's key is unknown)",
      Action,
      { action: "connect", workspace_id: ID, account_id: ID },
      'Invalid request body: unknown field "account_id"',
    ],
    ["an action with its keys", Action, { action: "disconnect", account_id: ID }, "ok"],
    ["alias renamed to the field", Aliased, { workspaceId: ID, name: "a" }, "ok"],
    ["the field itself", Aliased, { workspace_id: ID }, "ok"],
    [
      "alias and field together",
      Aliased,
      { workspaceId: ID, workspace_id: ID },
      'Invalid request body: "workspaceId" and "workspace_id" are the same field: send only "workspace_id"',
    ],
    [
      "an undocumented spelling is still unknown",
      Aliased,
      { workspace_Id: ID },
      'Invalid request body: unknown field "workspace_Id"; workspace_id: Invalid input: expected string, ' +
      "received undefined",
    ],
  ];
  for (const [name, schema, value, want] of cases) assert.equal(message(schema, value), want, name);
});

Deno.test("withAliases: handlers see the field's one spelling", () => {
  assert.deepEqual(Aliased.parse({ workspaceId: ID }), { workspace_id: ID });
});

Deno.test("describeIssues: issues other than unknown keys keep their `path: message` form", () => {
  const r = Body.safeParse({ workspace_id: "x", items: [{ qty: "1" }] });
  assert.ok(!r.success);
  assert.equal(
    describeIssues(r.error.issues),
    "workspace_id: Invalid UUID; items.0.qty: Invalid input: expected number, received string",
  );
});
