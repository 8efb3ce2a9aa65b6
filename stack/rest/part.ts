/**
 * The REST part of the local platform: builds the schema cache from the platform database and
 * mounts the PostgREST-compatible service at /rest/v1. Exposed schemas and max rows come from
 * supabase/config.toml's [api] section, the same settings the Supabase CLI hands PostgREST.
 */
import { parse as parseToml } from "smol-toml";
import type { PGlite } from "../db/database.ts";
import type { Platform, PlatformPart } from "../platform.ts";
import { RestService } from "./app.ts";

export interface ApiConfig {
  schemas: string[];
  maxRows: number;
}

/** `[api] schemas` and `max_rows`, with the CLI's defaults. */
export async function readApiConfig(rootDir: string): Promise<ApiConfig> {
  const defaults: ApiConfig = { schemas: ["public", "graphql_public"], maxRows: 1000 };
  let text: string;
  try {
    text = await Deno.readTextFile(`${rootDir}/supabase/config.toml`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return defaults;
    throw err;
  }
  const api = (parseToml(text).api ?? {}) as { schemas?: unknown; max_rows?: unknown };
  const schemas =
    Array.isArray(api.schemas) && api.schemas.every((s) => typeof s === "string") && api.schemas.length
      ? api.schemas as string[]
      : defaults.schemas;
  const maxRows = typeof api.max_rows === "number" && api.max_rows > 0 ? api.max_rows : defaults.maxRows;
  return { schemas, maxRows };
}

const services = new WeakMap<PGlite, RestService>();

/**
 * Reloads the REST schema cache of the platform using `db`, as `NOTIFY pgrst, 'reload schema'`
 * does; resolves once the new cache is in place. For parts that change the schema at run time.
 */
export async function reloadSchemaCache(db: PGlite): Promise<void> {
  await services.get(db)?.reload();
}

export const restPart: PlatformPart = {
  name: "rest",
  async start(p: Platform) {
    const { schemas, maxRows } = await readApiConfig(p.config.rootDir);
    const service = await RestService.create({ db: p.db, jwtSecret: p.config.jwtSecret, schemas, maxRows });
    services.set(p.db, service);
    p.gateway.mount("/rest/v1", service.fetch);
    return {
      async stop() {
        services.delete(p.db);
        await service.close();
      },
    };
  },
};
