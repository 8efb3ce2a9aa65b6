/**
 * `deno task gen-types`: the database's TypeScript types, written to supabase/types/database.ts by
 * the generator Supabase uses (postgres-meta's: `supabase gen types typescript` runs postgres-meta
 * with PG_META_GENERATE_TYPES=typescript, whose server.ts calls exactly getGeneratorMetadata and
 * @supabase/postgrest-typegen's generateTypescript, as here), over the Postgres port.
 *
 *   (no flag)         an in-memory platform from the migrations (stack/db/template.ts), served on
 *                     a free Postgres port for the generator; the file depends on the migrations only
 *   --db-url <url>    another database instead, e.g. a running `deno task start`'s DB URL
 *   --check           write nothing; exit 1 when the file differs (CI, tests/foundation/db_types_test.ts)
 *
 * Schemas: supabase/config.toml's [api] schemas (what PostgREST serves), as the CLI's
 * `gen types --local` with one-to-one relationships detected.
 */
import { parseArgs } from "node:util";
import { PostgresMeta } from "@supabase/postgres-meta/dist/lib/index.js";
import { getGeneratorMetadata } from "@supabase/postgres-meta/dist/lib/generators.js";
import { generateTypescript } from "@supabase/postgrest-typegen";
import { startPlatform } from "../stack/platform.ts";

export const TYPES_PATH = new URL("../supabase/types/database.ts", import.meta.url);
const SCHEMAS = ["public", "graphql_public"];

/** Runs postgres-meta's TypeScript generator against `dbUrl`. */
export async function generateTypes(dbUrl: string): Promise<string> {
  const pgMeta = new PostgresMeta({ connectionString: dbUrl, max: 1 });
  // Ends pgMeta's pool, on errors too.
  const { data, error } = await getGeneratorMetadata(pgMeta, { includedSchemas: SCHEMAS });
  if (error) throw new Error(`postgres-meta introspection failed: ${error.message}`);
  return await generateTypescript(data!, { detectOneToOneRelationships: true, defaultSchema: "public" });
}

/** The types of the migrated database (an in-memory platform, stopped afterwards). */
export async function generateFromMigrations(): Promise<string> {
  // An in-memory platform from the migrated template, as tests start one, with its Postgres port.
  const p = await startPlatform({ ephemeral: true, apiPort: 0, dbPort: 0 });
  try {
    return await generateTypes(p.dbUrl!);
  } finally {
    await p.stop();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { "db-url": { type: "string" }, check: { type: "boolean", default: false } },
  });
  const text = values["db-url"] ? await generateTypes(values["db-url"]) : await generateFromMigrations();
  const path = TYPES_PATH.pathname;
  if (values.check) {
    const current = await Deno.readTextFile(path).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    });
    if (current !== text) {
      console.error(`${path} is stale: run \`deno task gen-types\` and commit the result`);
      Deno.exit(1);
    }
    console.log(`${path} is up to date`);
  } else {
    await Deno.mkdir(new URL(".", TYPES_PATH), { recursive: true });
    await Deno.writeTextFile(path, text);
    console.log(`wrote ${path}`);
  }
}
