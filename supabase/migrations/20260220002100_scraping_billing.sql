-- Scraping's model calls are billed (issue 31: suggest-fields and scrape-single-page, with prompts
-- of up to 10,000 characters the caller writes, called the language model for any signed-in user
-- with a zero balance: a free general-purpose model proxy).
--
-- Price: one cost key, scraping_llm, 1 credit per model call. A call is one extraction of one
-- page (scrape-single-page, or a session runner's page without structured data) or one
-- suggest-fields answer, its one corrective retry included. 1 credit is what the platform charges
-- for any other direct model call (gateway_action_costs `default`); a page costs at most ~8k input
-- and 4k output tokens of SCRAPER_MODEL (claude-haiku-4-5 by default), well within it. Pages
-- whose structured data (JSON-LD, microdata, OpenGraph) yields products call no model and cost
-- nothing. The debit comes first (a short balance: 402, no model call), a failed call is refunded
-- (packages/shared/scraping/billing.ts).
--
-- Who pays for a session's runner: the user who last started, resumed or retried it, recorded
-- by the functions from the JWT in scraping_session_payers. It is not a column of
-- scraping_sessions because clients write that table through /rest/v1 (created_by included): a
-- payer a client could write would let one member spend another user's credits. A session
-- without a payer row (driven only by the service role) calls no model: its pages that need one
-- fail, naming why.

insert into public.gateway_action_costs (cost_key, credits, description) values
  ('scraping_llm', 1, 'Scraping: one language-model call (a page extraction or a field suggestion)');

create table public.scraping_session_payers (
  session_id uuid primary key references public.scraping_sessions (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  updated_at timestamptz not null default now()
);
comment on table public.scraping_session_payers is
  'Who pays for the model calls of a scraping session''s runner: the user who last started, resumed or retried it.';

alter table public.scraping_session_payers enable row level security;
-- No policy for anon or authenticated: only the functions (service role) read and write it, with
-- the user id taken from the caller's JWT.
revoke all on public.scraping_session_payers from public, anon, authenticated;
grant all on public.scraping_session_payers to service_role;
