-- Extensions this project uses beyond a fresh Supabase project's defaults (uuid-ossp, pgcrypto,
-- pg_stat_statements, pg_graphql, supabase_vault). Available is not enabled: without these,
-- `supabase db push` to a fresh project fails at the first table that uses them.
--   vector   pgvector: kb_doc_chunks.embedding and its HNSW index, kb_hybrid_search
--   pg_trgm  trigram GIN indexes for fuzzy name search (products, crm_companies)
-- In schema `extensions`, as the dashboard installs them; code names them schema-qualified
-- (extensions.vector, extensions.gin_trgm_ops).
create extension if not exists vector with schema extensions;
create extension if not exists pg_trgm with schema extensions;
