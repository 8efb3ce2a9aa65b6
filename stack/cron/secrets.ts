/**
 * The two Vault secrets every scheduled call reads (public.call_edge_function, flow events):
 * `project_url`, where the platform answers, and `service_role_key`, the key the call carries.
 * startPlatform writes both at every start, so scheduled work runs on a fresh `deno task start`
 * and keeps running after a restart on another port (the URL is updated, not added again).
 * On hosted Supabase the project creates them once: docs/scheduled-work.md has the statement.
 */
import type { PGlite } from "../db/database.ts";

export const PROJECT_URL_SECRET = "project_url";
export const SERVICE_ROLE_KEY_SECRET = "service_role_key";

/** Creates the secret, or replaces its value when one of that name exists (names are unique). */
async function upsertSecret(db: PGlite, name: string, value: string): Promise<void> {
  await db.transaction(async (tx) => {
    const updated = await tx.query(
      `select vault.update_secret(id, $1) from vault.secrets where name = $2`,
      [value, name],
    );
    if (updated.rows.length === 0) await tx.query(`select vault.create_secret($1, $2)`, [value, name]);
  });
}

/** Writes both secrets; false (nothing written) when supabase_vault has been dropped. */
export async function writeScheduledCallSecrets(
  db: PGlite,
  url: string,
  serviceRoleKey: string,
): Promise<boolean> {
  const vault = await db.query<{ ok: boolean }>(`select to_regclass('vault.secrets') is not null as ok`);
  if (!vault.rows[0].ok) return false;
  await upsertSecret(db, PROJECT_URL_SECRET, url);
  await upsertSecret(db, SERVICE_ROLE_KEY_SECRET, serviceRoleKey);
  return true;
}
