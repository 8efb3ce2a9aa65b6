-- The AI services' model calls (public.ai_service_calls, 20260215000100_ai_services.sql) now go
-- through the platform's model layer (packages/shared/llm, issue 33), which accounts every call
-- attempt with the provider it went to and an estimated USD cost (list prices in
-- packages/shared/llm/models.ts). The recorder writes both:
--
-- provider   anthropic or openai (LLM_PROVIDER); null on rows written before this migration.
-- cost_usd   estimated cost of the attempt; null when the model has no listed price or the call
--            failed before the provider answered (no tokens).
--
-- RLS is unchanged: users read their own and their workspaces' rows; only the AI backend (service
-- role) writes. No new foreign keys, so no new indexes.

alter table public.ai_service_calls
  add column provider text check (provider in ('anthropic', 'openai')),
  add column cost_usd numeric(12, 6) check (cost_usd >= 0);

comment on column public.ai_service_calls.provider is
  'Model provider the call went to (anthropic | openai); null on rows from before issue 33';
comment on column public.ai_service_calls.cost_usd is
  'Estimated USD cost of the call attempt (list prices); null when unpriced or nothing was answered';
