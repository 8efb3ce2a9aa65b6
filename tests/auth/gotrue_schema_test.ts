/**
 * The auth schema matches GoTrue's (supabase/auth `migrations/*.up.sql`, as `supabase db dump`
 * shows it on a hosted project): same tables, same columns in the same order, so seeds written
 * for Supabase's auth schema apply unchanged.
 */
import assert from "node:assert/strict";
import { anonClient, platformTest, uniqueEmail } from "../helpers/platform.ts";

async function columns(
  p: { db: { query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> } },
  table: string,
) {
  const r = await p.db.query<{ column_name: string; data_type: string }>(
    `select column_name, data_type from information_schema.columns
      where table_schema = 'auth' and table_name = $1 order by ordinal_position`,
    [table],
  );
  return r.rows.map((c) => c.column_name);
}

// supabase/auth migrations/00_init_auth_schema.up.sql and the migrations that altered auth.users
// after it (20210710035447_alter_users, 20210722035447_adds_confirmed_at,
// 20210730183235_add_email_change_confirmed, 20220114185340_add_banned_until,
// 20220323170000_add_user_reauthentication, 20221130112646_add_deleted_at,
// 20240214120130_add_is_anonymous_column ...): the column order of auth.users on hosted Supabase.
const GOTRUE_USERS = [
  "instance_id",
  "id",
  "aud",
  "role",
  "email",
  "encrypted_password",
  "email_confirmed_at",
  "invited_at",
  "confirmation_token",
  "confirmation_sent_at",
  "recovery_token",
  "recovery_sent_at",
  "email_change_token_new",
  "email_change",
  "email_change_sent_at",
  "last_sign_in_at",
  "raw_app_meta_data",
  "raw_user_meta_data",
  "is_super_admin",
  "created_at",
  "updated_at",
  "phone",
  "phone_confirmed_at",
  "phone_change",
  "phone_change_token",
  "phone_change_sent_at",
  "confirmed_at",
  "email_change_token_current",
  "email_change_confirm_status",
  "banned_until",
  "reauthentication_token",
  "reauthentication_sent_at",
  "is_sso_user",
  "deleted_at",
  "is_anonymous",
];

platformTest("auth.users has GoTrue's columns, in GoTrue's order (supabase/auth migrations)", async (p) => {
  assert.deepEqual(await columns(p, "users"), GOTRUE_USERS);
  // 20231117164230_add_id_pkey_identities, 20221215195800_add_identities_email_column.
  assert.deepEqual(await columns(p, "identities"), [
    "provider_id",
    "user_id",
    "identity_data",
    "provider",
    "last_sign_in_at",
    "created_at",
    "updated_at",
    "email",
    "id",
  ]);
  // 20220811173540_add_sessions_table, 20221003041400_add_aal_and_factor_id_to_sessions,
  // 20230116124310_alter_phone_type ... (user_agent, ip inet, tag), OAuth server columns.
  assert.deepEqual(await columns(p, "sessions"), [
    "id",
    "user_id",
    "created_at",
    "updated_at",
    "factor_id",
    "aal",
    "not_after",
    "refreshed_at",
    "user_agent",
    "ip",
    "tag",
    "oauth_client_id",
    "refresh_token_hmac_key",
    "refresh_token_counter",
    "scopes",
  ]);
  assert.deepEqual(await columns(p, "refresh_tokens"), [
    "instance_id",
    "id",
    "token",
    "user_id",
    "revoked",
    "created_at",
    "updated_at",
    "parent",
    "session_id",
  ]);
  const tables = (await p.db.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = 'auth'`,
  )).rows.map((r) => r.table_name);
  for (
    const t of [
      "audit_log_entries",
      "instances",
      "schema_migrations",
      "flow_state",
      "one_time_tokens",
      "mfa_factors",
      "mfa_challenges",
      "mfa_amr_claims",
      "sso_providers",
      "sso_domains",
      "saml_providers",
      "saml_relay_states",
      "oauth_clients",
      "oauth_authorizations",
      "oauth_consents",
      "oauth_client_states",
      "webauthn_challenges",
      "webauthn_credentials",
    ]
  ) assert.ok(tables.includes(t), `auth.${t} missing`);
  // users_email_change_confirm_status_check (20210730183235_add_email_change_confirmed).
  await assert.rejects(
    p.db.query(`insert into auth.users (id, email_change_confirm_status) values (gen_random_uuid(), 3)`),
  );
});

platformTest("a seed written for Supabase's auth schema applies and its user signs in", async (p) => {
  // The seed snippet commonly used with `supabase db reset`: every token column set to '' (GoTrue
  // scans them as strings), identities with provider_id, bcrypt from pgcrypto.
  const email = uniqueEmail("seeded");
  const id = crypto.randomUUID();
  await p.db.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
       recovery_sent_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
       confirmation_token, email_change, email_change_token_new, recovery_token,
       email_change_token_current, email_change_confirm_status, phone_change, phone_change_token,
       reauthentication_token, is_sso_user)
     values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2,
       extensions.crypt('seed-password', extensions.gen_salt('bf')), now(), now(), now(),
       '{"provider":"email","providers":["email"]}', '{"name":"Seeded"}', now(), now(),
       '', '', '', '', '', 0, '', '', '', false)`,
    [id, email],
  );
  await p.db.query(
    `insert into auth.identities (id, user_id, provider_id, identity_data, provider, last_sign_in_at,
       created_at, updated_at)
     values (gen_random_uuid(), $1::uuid, $2, jsonb_build_object('sub', $2::text, 'email', $3::text),
       'email', now(), now(), now())`,
    [id, id, email],
  );
  const { data, error } = await anonClient(p).auth.signInWithPassword({ email, password: "seed-password" });
  assert.equal(error, null);
  assert.equal(data.user?.id, id);
  assert.equal(data.user?.user_metadata.name, "Seeded");
  // The session row carries GoTrue's aal enum.
  const s = await p.db.query<{ aal: string }>(`select aal::text from auth.sessions where user_id = $1`, [id]);
  assert.equal(s.rows[0].aal, "aal1");
});
