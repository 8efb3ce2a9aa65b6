/**
 * The REST part of the local platform: builds the schema cache from the platform database and
 * mounts the PostgREST-compatible service at /rest/v1. Exposed schemas and max rows come from
 * supabase/config.toml's [api] section (platform.project.api, see ../project_config.ts), the same
 * settings the Supabase CLI hands PostgREST.
 */
import type { PGlite } from "../db/database.ts";
import type { Platform, PlatformPart } from "../part.ts";
import { RestService } from "./app.ts";

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
    const { schemas, maxRows } = p.project.api;
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
