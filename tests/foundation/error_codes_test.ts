/**
 * One error vocabulary: every code the functions, the AI backend and the shared core throw or
 * answer is listed in packages/shared/error_codes.ts with the status it is answered with, every
 * listed code is used, and docs/errors.md's table is what `deno task error-codes` generates.
 */
import assert from "node:assert/strict";
import { ERROR_CODES } from "../../packages/shared/error_codes.ts";
import { compare, DOC, scanErrorCodes, scanSource, table, withTable } from "../../scripts/error_codes.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("every code thrown or answered is in the catalog with its status, and every entry is used", async () => {
  const uses = await scanErrorCodes();
  const report = compare(uses);
  assert.deepEqual(report.unlisted, [], "thrown or answered, missing from packages/shared/error_codes.ts");
  assert.deepEqual(report.wrongStatus, [], "answered with a status the catalog does not list for the code");
  assert.deepEqual(report.unused, [], "in packages/shared/error_codes.ts but used by no code");
  // The scan sees each way a code is raised.
  const seen = (code: string, file: string) => uses.some((u) => u.code === code && u.file === file);
  assert.ok(seen("conversation_not_found", "packages/shared/agent/conversations.ts")); // DomainError helper
  assert.ok(seen("model_unavailable", "packages/shared/llm/errors.ts")); // a constant
  assert.ok(seen("generation_timeout", "packages/shared/worlds/generate.ts")); // a conditional
  assert.ok(seen("signature_expired", "packages/shared/webhook_signature.ts")); // a file's helper
  assert.ok(seen("method_not_allowed", "supabase/functions/generate-vr-world/app.ts")); // c.json({error, code})
  assert.ok(seen("delegation_failed", "packages/shared/background_agents/runs.ts")); // a recorded error_code
});

Deno.test("the catalog check fails both ways: a new code thrown, a stale entry", () => {
  const src = `
    throw DomainError.conflict("Taken", undefined, "slug_taken");
    throw new HttpError(
      418,
      "not_found",
      \`no \${"tea, here"}\`,
    );
    return c.json({ error: "Gone", code: "gone_for_good" }, 410);
    const refused = (code: ErrorCode, message: string) => new DomainError("unauthenticated", code, message);
    throw refused("signature_required", "x");
    throw DomainError.notFound(\`\${what} not found\`);
    throw new DomainError("invalid", someCode, "from a variable: checked by its type");
  `;
  const uses = scanSource(src, "x.ts");
  assert.deepEqual(
    uses.map((u) => `${u.code} ${u.status} ${u.line}`),
    [
      "not_found 418 3",
      "slug_taken 409 2",
      "not_found 404 11",
      "signature_required 401 10",
      "gone_for_good 410 8",
    ],
  );
  const report = compare(uses, {
    not_found: { statuses: [404], meaning: "." },
    signature_required: { statuses: [401], meaning: "." },
    stale: { statuses: [400], meaning: "." },
  });
  assert.deepEqual(report.unlisted, ["slug_taken (x.ts:2)", "gone_for_good (x.ts:8)"]);
  assert.deepEqual(report.wrongStatus, ["not_found 418 (x.ts:3)"]);
  assert.deepEqual(report.unused, ["stale"]);
});

Deno.test("docs/errors.md renders the catalog, as deno task error-codes generates it", async () => {
  const text = await Deno.readTextFile(`${ROOT}/${DOC}`);
  assert.equal(withTable(text), text, `${DOC} is out of date: run deno task error-codes`);
  for (const [code, e] of Object.entries(ERROR_CODES)) {
    const row = text.split("\n").find((l) => l.startsWith(`| \`${code}\` `)) ?? "";
    assert.deepEqual(
      row.split("|").slice(2, 4).map((c) => c.trim()),
      [e.statuses.join(", "), e.meaning],
      code,
    );
  }
  const added = withTable(text, table({ ...ERROR_CODES, new_code: { statuses: [400], meaning: "New." } }));
  assert.notEqual(added, text);
  assert.match(added, /\| `new_code` +\| 400 +\| New\. +\|/);
});
