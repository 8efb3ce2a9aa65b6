/**
 * Test harness: one in-process local platform per test module, on a free port, with an in-memory
 * database copied from the migrated template (cached under .cache/, so a module boots in about a
 * second). Tests talk to it over HTTP with supabase-js and fetch, as a client would, and may read
 * the rows left behind through `platform.db`.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { type Platform, startPlatform } from "../../stack/platform.ts";

let current: Promise<Platform> | null = null;

/** The module's platform, started on first use and stopped when the module's tests end. */
export function getPlatform(): Promise<Platform> {
  if (!current) {
    // bcrypt cost 4 keeps hundreds of sign-ups fast; the hashing code path is the same.
    current = startPlatform({ ephemeral: true, apiPort: 0, quiet: true, bcryptCost: 4 });
  }
  return current;
}

export async function stopPlatform(): Promise<void> {
  if (current) {
    const p = await current;
    current = null;
    await p.stop();
  }
}

const noSession = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

export function anonClient(p: Platform): SupabaseClient {
  return createClient(p.url, p.config.anonKey, noSession);
}

export function serviceClient(p: Platform): SupabaseClient {
  return createClient(p.url, p.config.serviceRoleKey, noSession);
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  /** supabase-js signed in as this user. */
  client: SupabaseClient;
}

let counter = 0;

export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${
    crypto.randomUUID().slice(0, 6)
  }@example.com`;
}

/** Signs up a fresh user through /auth/v1 and returns a client signed in as them. */
export async function createUser(p: Platform, prefix = "user"): Promise<TestUser> {
  const email = uniqueEmail(prefix);
  const password = "password-123";
  const client = anonClient(p);
  const { data, error } = await client.auth.signUp({ email, password });
  if (error || !data.session || !data.user) throw new Error(`signUp failed: ${error?.message}`);
  const userClient = createClient(p.url, p.config.anonKey, {
    ...noSession,
    global: { headers: { Authorization: `Bearer ${data.session.access_token}` } },
  });
  return {
    id: data.user.id,
    email,
    password,
    accessToken: data.session.access_token,
    refreshToken: data.session.refresh_token,
    client: userClient,
  };
}

/** Gives a user a platform role (admin, manager, factory, user) directly in the database. */
export async function setPlatformRole(p: Platform, userId: string, role: string): Promise<void> {
  const r = await p.db.query(
    `update public.user_profiles set role_id = (select id from public.roles where name = $2) where user_id = $1`,
    [userId, role],
  );
  if (r.affectedRows !== 1) throw new Error(`no profile for ${userId}`);
}

/** Creates a workspace owned by `owner` and adds members with roles, directly in the database. */
export async function createWorkspace(
  p: Platform,
  owner: string,
  members: Record<string, "admin" | "member" | "viewer"> = {},
  name = "Workspace",
): Promise<string> {
  const r = await p.db.query<{ id: string }>(
    `insert into public.workspaces (name, owner_id) values ($1, $2) returning id`,
    [name, owner],
  );
  const id = r.rows[0].id;
  for (const [userId, role] of Object.entries(members)) {
    await p.db.query(
      `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)`,
      [
        id,
        userId,
        role,
      ],
    );
  }
  return id;
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
