/**
 * Test harness: one in-process local platform per test module (fixtures/platform.ts's ephemeral
 * platform: free port, in-memory database copied from the migrated template). Tests talk to it
 * over HTTP with supabase-js and fetch, as a client would, and may read the rows left behind
 * through `platform.db`. The clients, users and workspaces tests and benches share live in
 * fixtures/platform.ts and are re-exported here.
 */
import type { Platform } from "../../stack/platform.ts";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";

export {
  anonClient,
  createUser,
  createWorkspace,
  personalWorkspace,
  serviceClient,
  type TestUser,
  uniqueEmail,
} from "../../fixtures/platform.ts";

let current: Promise<Platform> | null = null;

/** The module's platform, started on first use and stopped when the module's tests end. */
export function getPlatform(): Promise<Platform> {
  if (!current) current = startEphemeralPlatform();
  return current;
}

export async function stopPlatform(): Promise<void> {
  if (current) {
    const p = await current;
    current = null;
    await p.stop();
  }
}

/** Gives a user a platform role (admin, manager, factory, user) directly in the database. */
export async function setPlatformRole(p: Platform, userId: string, role: string): Promise<void> {
  const r = await p.db.query(
    `update public.user_profiles set role_id = (select id from public.roles where name = $2) where user_id = $1`,
    [userId, role],
  );
  if (r.affectedRows !== 1) throw new Error(`no profile for ${userId}`);
}

/** Deno.test for platform tests: the shared server outlives single tests, so no sanitizers. */
export function platformTest(name: string, fn: (p: Platform) => Promise<void>): void {
  Deno.test({
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => fn(await getPlatform()),
  });
}
