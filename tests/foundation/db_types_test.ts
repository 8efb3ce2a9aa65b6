/**
 * supabase/types/database.ts is what postgres-meta's TypeScript generator (the one
 * `supabase gen types typescript` runs) gives for the migrated database, read through the
 * Postgres port: a migration without `deno task gen-types` fails here (and so in CI).
 */
import assert from "node:assert/strict";
import { generateFromMigrations, TYPES_PATH } from "../../scripts/gen_types.ts";

Deno.test({
  name:
    "database types: the checked-in supabase/types/database.ts matches the migrations (deno task gen-types)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const generated = await generateFromMigrations();
    // The generator's own output, not an empty shell: the tables the platform serves are typed.
    assert.ok(generated.includes("export type Database = {\n  public: {\n    Tables: {"));
    assert.ok(generated.includes("\n      roles: {\n        Row: {"));
    const checkedIn = await Deno.readTextFile(TYPES_PATH);
    assert.ok(
      checkedIn === generated,
      "supabase/types/database.ts is stale: run `deno task gen-types` and commit the result",
    );
  },
});
