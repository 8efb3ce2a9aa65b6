-- Supabase Vault 0.3 as the local platform emulates it (`create extension supabase_vault`,
-- which the bootstrap runs, as a fresh hosted project has it enabled). Tables, the view and
-- function signatures follow supabase/vault (sql/supabase_vault--0.2.8--0.3.0.sql); encryption
-- is pgcrypto's instead of libsodium's. The schema `vault` is the control file's: Postgres
-- creates it before this script runs.


-- The key secrets are encrypted with. Hosted Vault keeps its root key outside the database
-- (pgsodium's server key); here it is a row only the superuser can read, so a dump or a SELECT
-- of vault.secrets alone reveals nothing.
create table vault._root_key (
  id boolean primary key default true check (id),
  key text not null default encode(extensions.gen_random_bytes(32), 'base64')
);
insert into vault._root_key default values;
revoke all on vault._root_key from public;

create table vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  -- base64 of pgp_sym_encrypt(secret, root key): random salt and IV per write.
  secret text not null,
  key_id uuid,
  nonce bytea default extensions.gen_random_bytes(16),
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
);
create unique index secrets_name_idx on vault.secrets (name) where name is not null;

create function vault._encrypt(plaintext text) returns text
language sql volatile security definer set search_path = '' as $$
  select encode(extensions.pgp_sym_encrypt($1, k.key, 'cipher-algo=aes256'), 'base64')
    from vault._root_key k
$$;

create function vault.create_secret(
  new_secret text,
  new_name text default null,
  new_description text default '',
  new_key_id uuid default null
) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  new_id uuid;
begin
  insert into vault.secrets (secret, name, description, key_id)
  values (vault._encrypt($1), $2, coalesce($3, ''), $4)
  returning id into new_id;
  return new_id;
end
$$;

create function vault.update_secret(
  secret_id uuid,
  new_secret text default null,
  new_name text default null,
  new_description text default null,
  new_key_id uuid default null
) returns void
language plpgsql security definer set search_path = '' as $$
begin
  update vault.secrets s
     set secret = coalesce(vault._encrypt($2), s.secret),
         name = coalesce($3, s.name),
         description = coalesce($4, s.description),
         key_id = coalesce($5, s.key_id),
         updated_at = now()
   where s.id = $1;
end
$$;

-- Runs with its owner's (the superuser's) rights, so it can read the root key; who may read
-- the view itself is decided by the grants below.
create view vault.decrypted_secrets as
select s.id, s.name, s.description, s.secret,
       extensions.pgp_sym_decrypt(decode(s.secret, 'base64'), k.key) as decrypted_secret,
       s.key_id, s.nonce, s.created_at, s.updated_at
  from vault.secrets s
 cross join vault._root_key k;

-- Only privileged roles: postgres and service_role. anon and authenticated have no usage on the
-- schema, so every object in it is refused to them. postgres gets what hosted gives it
-- (supabase/postgres migrations/db/migrations/20221207154255_create_vault.sql): usage, SELECT
-- and DELETE on the secrets and the view, and the two functions, all with grant option; so
-- secrets are written only through create_secret/update_secret.
revoke all on all functions in schema vault from public;
revoke all on vault.secrets, vault.decrypted_secrets from public;
grant usage on schema vault to postgres with grant option;
grant select, delete on vault.secrets, vault.decrypted_secrets to postgres with grant option;
grant execute on function
  vault.create_secret(text, text, text, uuid),
  vault.update_secret(uuid, text, text, text, uuid)
  to postgres with grant option;
grant usage on schema vault to service_role;
grant select on vault.secrets, vault.decrypted_secrets to service_role;
grant execute on function
  vault.create_secret(text, text, text, uuid),
  vault.update_secret(uuid, text, text, text, uuid)
  to service_role;

-- Vault's own: secrets are configuration, kept by pg_dump.
select pg_catalog.pg_extension_config_dump('vault.secrets', '');
