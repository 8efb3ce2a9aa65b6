/**
 * supabase/schema/ is what `deno task schema` (scripts/schema_snapshot.ts) writes for the migrated
 * database: a migration without `deno task schema` fails here (and so in CI). It reads the shared
 * migrated template (stack/db/template.ts), as db_lint_test.ts does, so it costs one database copy.
 */
import assert from "node:assert/strict";
import { readSnapshot, snapshotFromMigrations, staleFiles } from "../../scripts/schema_snapshot.ts";

Deno.test({
  name: "schema snapshot: the checked-in supabase/schema/ matches the migrations (deno task schema)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const generated = await snapshotFromMigrations();
    // The current definitions, not an empty shell: a table with its policies, a function redefined
    // by three migrations written once, the cron jobs and the buckets.
    const products = generated.get("tables/products.sql") ?? "";
    assert.match(
      products,
      /^create table public\.products \(\n {2}id uuid default gen_random_uuid\(\) not null,$/m,
    );
    assert.match(products, /^alter table public\.products enable row level security;$/m);
    assert.match(products, /^create policy products_read on public\.products$/m);
    const search = generated.get("functions/kb_hybrid_search.sql") ?? "";
    assert.equal(search.match(/CREATE OR REPLACE FUNCTION public\.kb_hybrid_search\(/g)?.length, 1);
    assert.match(generated.get("cron.sql") ?? "", /^select cron\.schedule\('flow-scheduler-cron', /m);
    assert.match(generated.get("storage.sql") ?? "", /values \('quote-pdfs', 'quote-pdfs', false,/);
    const stale = staleFiles(generated, await readSnapshot());
    assert.deepEqual(stale, [], "supabase/schema/ is stale: run `deno task schema` and commit the result");
  },
});

Deno.test("schema snapshot: --check names each file that is missing, differs or is no longer generated", () => {
  const generated = new Map([["tables/a.sql", "a\n"], ["tables/b.sql", "b\n"], ["cron.sql", "c\n"]]);
  const onDisk = new Map([["tables/a.sql", "a\n"], ["tables/b.sql", "old\n"], ["tables/gone.sql", "g\n"]]);
  assert.deepEqual(staleFiles(generated, onDisk), [
    "cron.sql (missing)",
    "tables/b.sql (differs)",
    "tables/gone.sql (no longer in the schema)",
  ]);
});
