/**
 * auth.users, identities, sessions and refresh tokens: the storage side of the GoTrue-compatible
 * service. Runs as the database superuser, as GoTrue runs as supabase_auth_admin.
 */
import type { PGlite, Queryable } from "../db/database.ts";

export interface UserRow {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  phone: string | null;
  phone_confirmed_at: Date | null;
  confirmed_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  banned_until: Date | null;
  deleted_at: Date | null;
  is_anonymous: boolean;
  /** Set by the email flows (flows.ts); GoTrue shows them on the user when present. */
  confirmation_sent_at?: Date | null;
  recovery_sent_at?: Date | null;
  email_change?: string | null;
  email_change_sent_at?: Date | null;
  invited_at?: Date | null;
}

interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
  email: string | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : undefined);

/** GoTrue's user JSON (models.User). */
export async function userJson(db: Queryable, u: UserRow): Promise<Record<string, unknown>> {
  const identities = (await db.query<IdentityRow>(
    `select * from auth.identities where user_id = $1 order by created_at`,
    [u.id],
  )).rows;
  return {
    id: u.id,
    aud: u.aud,
    role: u.role,
    email: u.email ?? "",
    email_confirmed_at: iso(u.email_confirmed_at),
    phone: u.phone ?? "",
    phone_confirmed_at: iso(u.phone_confirmed_at),
    confirmation_sent_at: iso(u.confirmation_sent_at ?? null),
    confirmed_at: iso(u.confirmed_at),
    recovery_sent_at: iso(u.recovery_sent_at ?? null),
    new_email: u.email_change || undefined,
    email_change_sent_at: iso(u.email_change_sent_at ?? null),
    invited_at: iso(u.invited_at ?? null),
    last_sign_in_at: iso(u.last_sign_in_at),
    app_metadata: u.raw_app_meta_data,
    user_metadata: u.raw_user_meta_data,
    identities: identities.map((i) => ({
      identity_id: i.id,
      id: i.provider_id,
      user_id: i.user_id,
      identity_data: i.identity_data,
      provider: i.provider,
      last_sign_in_at: iso(i.last_sign_in_at),
      created_at: iso(i.created_at),
      updated_at: iso(i.updated_at),
      email: i.email ?? undefined,
    })),
    created_at: iso(u.created_at),
    updated_at: iso(u.updated_at),
    banned_until: iso(u.banned_until),
    is_anonymous: u.is_anonymous,
  };
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | null> {
  const r = await db.query<UserRow>(`select * from auth.users where id = $1 and deleted_at is null`, [id]);
  return r.rows[0] ?? null;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const r = await db.query<UserRow>(
    `select * from auth.users where lower(email) = lower($1) and deleted_at is null and is_sso_user = false`,
    [email],
  );
  return r.rows[0] ?? null;
}

export async function findUserByPhone(db: Queryable, phone: string): Promise<UserRow | null> {
  const r = await db.query<UserRow>(`select * from auth.users where phone = $1 and deleted_at is null`, [
    phone,
  ]);
  return r.rows[0] ?? null;
}

export interface NewUser {
  email: string | null;
  phone: string | null;
  passwordHash: string | null;
  userMetadata: Record<string, unknown>;
  appMetadata: Record<string, unknown>;
  emailConfirmed: boolean;
  phoneConfirmed: boolean;
  role?: string;
}

/** Inserts the user and its email/phone identity in the caller's transaction. */
export async function insertUser(tx: Queryable, u: NewUser): Promise<UserRow> {
  const provider = u.email ? "email" : "phone";
  const appMeta = { provider, providers: [provider], ...u.appMetadata };
  const r = await tx.query<UserRow>(
    `insert into auth.users (id, aud, role, email, phone, encrypted_password, email_confirmed_at,
       phone_confirmed_at, raw_app_meta_data, raw_user_meta_data, instance_id)
     values (gen_random_uuid(), 'authenticated', $1, $2, $3, $4,
       case when $5 then now() end, case when $6 then now() end, $7, $8,
       '00000000-0000-0000-0000-000000000000')
     returning *`,
    [
      u.role ?? "authenticated",
      u.email ? u.email.toLowerCase() : null,
      u.phone,
      u.passwordHash,
      u.emailConfirmed,
      u.phoneConfirmed,
      appMeta,
      u.userMetadata,
    ],
  );
  const user = r.rows[0];
  const identityData: Record<string, unknown> = {
    sub: user.id,
    email_verified: u.emailConfirmed,
    phone_verified: u.phoneConfirmed,
  };
  if (u.email) identityData.email = user.email;
  if (u.phone) identityData.phone = u.phone;
  await tx.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider) values ($1, $2, $3, $4)`,
    [user.id, user.id, identityData, provider],
  );
  return user;
}

/** Removes keys whose value is null and sets the rest, as GoTrue merges metadata updates. */
export function mergeMetadata(
  current: Record<string, unknown>,
  updates: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...current };
  for (const [k, v] of Object.entries(updates)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

export async function countUsers(db: PGlite): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from auth.users where deleted_at is null`,
  );
  return r.rows[0].n;
}
