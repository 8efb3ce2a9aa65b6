-- Database advisor findings (issue 34), as `deno task db-lint` (scripts/db_lint.ts) reports them
-- with Supabase's splinter lints over the migrated database. Before this migration: 82 foreign
-- keys without a covering index (0001), 2 tables with two permissive SELECT policies for
-- `authenticated` (0006), 8 SECURITY DEFINER helpers executable by `anon` (0028), and a
-- redundant index on ai_prompt_history. After it: none (supabase/db-lint-allow.json lists what
-- stays on purpose, with the reason).

-- 0001 unindexed foreign keys. Without an index on the referencing columns, every delete or key
-- update of a referenced row (a user deleted from auth.users, a workspace, a product) scans the
-- whole referencing table under lock, and joins along the key cannot use an index. An index whose
-- leading columns are the key's covers it, so keys already led by one are left alone.
-- agent_chat_conversations
create index agent_chat_conversations_workspace_id_idx on public.agent_chat_conversations (workspace_id);
-- agent_runs
create index agent_runs_agent_id_workspace_id_idx on public.agent_runs (agent_id, workspace_id);
create index agent_runs_triggered_by_user_idx on public.agent_runs (triggered_by_user);
-- agent_tool_call_logs
create index agent_tool_call_logs_conversation_id_idx on public.agent_tool_call_logs (conversation_id);
create index agent_tool_call_logs_user_id_idx on public.agent_tool_call_logs (user_id);
-- ai_jobs
create index ai_jobs_credit_transaction_id_idx on public.ai_jobs (credit_transaction_id);
-- ai_prompt_history
create index ai_prompt_history_created_by_idx on public.ai_prompt_history (created_by);
create index ai_prompt_history_replaced_by_idx on public.ai_prompt_history (replaced_by);
-- ai_prompt_tests
create index ai_prompt_tests_tested_by_idx on public.ai_prompt_tests (tested_by);
-- ai_prompts
create index ai_prompts_updated_by_idx on public.ai_prompts (updated_by);
-- ai_usage_logs
create index ai_usage_logs_credit_transaction_id_idx on public.ai_usage_logs (credit_transaction_id);
create index ai_usage_logs_workspace_id_idx on public.ai_usage_logs (workspace_id);
-- background_agents
create index background_agents_created_by_idx on public.background_agents (created_by);
-- competitor_sources
create index competitor_sources_created_by_idx on public.competitor_sources (created_by);
-- crm_company_contacts
create index crm_company_contacts_created_by_idx on public.crm_company_contacts (created_by);
-- crm_contact_relationships
create index crm_contact_relationships_created_by_idx on public.crm_contact_relationships (created_by);
-- duplicate_detection_cache
create index duplicate_detection_cache_reviewed_by_idx on public.duplicate_detection_cache (reviewed_by);
-- email_domains
create index email_domains_created_by_idx on public.email_domains (created_by);
-- email_logs
create index email_logs_template_id_idx on public.email_logs (template_id);
create index email_logs_user_id_idx on public.email_logs (user_id);
-- email_suppressions
create index email_suppressions_source_log_id_idx on public.email_suppressions (source_log_id);
-- email_templates
create index email_templates_created_by_idx on public.email_templates (created_by);
-- flow_runs
create index flow_runs_initiated_by_idx on public.flow_runs (initiated_by);
-- flows
create index flows_created_by_idx on public.flows (created_by);
-- kb_categories
create index kb_categories_created_by_idx on public.kb_categories (created_by);
-- kb_doc_attachments
create index kb_doc_attachments_created_by_idx on public.kb_doc_attachments (created_by);
create index kb_doc_attachments_workspace_id_doc_id_idx on public.kb_doc_attachments (workspace_id, doc_id);
-- kb_docs
create index kb_docs_created_by_idx on public.kb_docs (created_by);
create index kb_docs_updated_by_idx on public.kb_docs (updated_by);
create index kb_docs_workspace_id_category_id_idx on public.kb_docs (workspace_id, category_id);
-- material_neighbours
create index material_neighbours_material_id_idx on public.material_neighbours (material_id);
-- material_preferences
create index material_preferences_material_id_idx on public.material_preferences (material_id);
create index material_preferences_user_id_idx on public.material_preferences (user_id);
-- messaging_logs
create index messaging_logs_template_id_idx on public.messaging_logs (template_id);
create index messaging_logs_user_id_idx on public.messaging_logs (user_id);
-- notifications
create index notifications_workspace_id_idx on public.notifications (workspace_id);
-- payment_checkouts
create index payment_checkouts_credit_transaction_id_idx on public.payment_checkouts (credit_transaction_id);
create index payment_checkouts_package_id_idx on public.payment_checkouts (package_id);
create index payment_checkouts_plan_id_idx on public.payment_checkouts (plan_id);
-- pdf_batches
create index pdf_batches_user_id_idx on public.pdf_batches (user_id);
create index pdf_batches_workspace_id_idx on public.pdf_batches (workspace_id);
-- price_entries
create index price_entries_workspace_id_kb_doc_id_idx on public.price_entries (workspace_id, kb_doc_id);
-- price_history
create index price_history_job_id_idx on public.price_history (job_id);
create index price_history_workspace_id_idx on public.price_history (workspace_id);
-- price_monitoring_jobs
create index price_monitoring_jobs_requested_by_idx on public.price_monitoring_jobs (requested_by);
create index price_monitoring_jobs_workspace_id_idx on public.price_monitoring_jobs (workspace_id);
-- price_monitoring_products
create index price_monitoring_products_started_by_idx on public.price_monitoring_products (started_by);
-- product_merge_history
create index product_merge_history_merged_by_idx on public.product_merge_history (merged_by);
create index product_merge_history_undone_by_idx on public.product_merge_history (undone_by);
-- product_prices
create index product_prices_confirmed_by_idx on public.product_prices (confirmed_by);
create index product_prices_price_lookup_call_id_workspace_id_idx on public.product_prices (price_lookup_call_id, workspace_id);
create index product_prices_product_id_workspace_id_idx on public.product_prices (product_id, workspace_id);
-- products
create index products_created_by_idx on public.products (created_by);
-- proposals
create index proposals_created_by_idx on public.proposals (created_by);
create index proposals_quote_request_id_workspace_id_idx on public.proposals (quote_request_id, workspace_id);
-- quote_items
create index quote_items_price_lookup_call_id_workspace_id_idx on public.quote_items (price_lookup_call_id, workspace_id);
create index quote_items_product_id_workspace_id_idx on public.quote_items (product_id, workspace_id);
create index quote_items_quote_id_workspace_id_idx on public.quote_items (quote_id, workspace_id);
-- quote_requests
create index quote_requests_quote_id_workspace_id_idx on public.quote_requests (quote_id, workspace_id);
-- quotes
create index quotes_created_by_idx on public.quotes (created_by);
-- recommendation_cache
create index recommendation_cache_material_id_idx on public.recommendation_cache (material_id);
-- recommendation_material_stats
create index recommendation_material_stats_material_id_idx on public.recommendation_material_stats (material_id);
-- recommendation_user_norms
create index recommendation_user_norms_user_id_idx on public.recommendation_user_norms (user_id);
-- scraped_materials_temp
create index scraped_materials_temp_page_id_idx on public.scraped_materials_temp (page_id);
create index scraped_materials_temp_product_id_idx on public.scraped_materials_temp (product_id);
create index scraped_materials_temp_workspace_id_idx on public.scraped_materials_temp (workspace_id);
-- scraping_field_templates
create index scraping_field_templates_created_by_idx on public.scraping_field_templates (created_by);
-- scraping_pages
create index scraping_pages_workspace_id_idx on public.scraping_pages (workspace_id);
-- scraping_session_payers
create index scraping_session_payers_user_id_idx on public.scraping_session_payers (user_id);
-- scraping_sessions
create index scraping_sessions_created_by_idx on public.scraping_sessions (created_by);
-- search_suggestion_clicks
create index search_suggestion_clicks_product_id_idx on public.search_suggestion_clicks (product_id);
create index search_suggestion_clicks_user_id_idx on public.search_suggestion_clicks (user_id);
-- search_synonyms
create index search_synonyms_workspace_id_idx on public.search_synonyms (workspace_id);
-- social_account_insights
create index social_account_insights_workspace_id_idx on public.social_account_insights (workspace_id);
-- social_accounts
create index social_accounts_connected_by_idx on public.social_accounts (connected_by);
-- social_oauth_states
create index social_oauth_states_user_id_idx on public.social_oauth_states (user_id);
create index social_oauth_states_workspace_id_idx on public.social_oauth_states (workspace_id);
-- social_post_analytics
create index social_post_analytics_social_account_id_idx on public.social_post_analytics (social_account_id);
create index social_post_analytics_workspace_id_idx on public.social_post_analytics (workspace_id);
-- social_posts
create index social_posts_created_by_idx on public.social_posts (created_by);
-- subscriptions
create index subscriptions_plan_id_idx on public.subscriptions (plan_id);
-- workspace_invitations
create index workspace_invitations_invited_by_idx on public.workspace_invitations (invited_by);

-- 0009 (redundant index). ai_prompt_history_prompt_idx (prompt_id, version desc) repeats the
-- unique constraint's index on (prompt_id, version): the only read (the history of one prompt,
-- newest first) scans the unique index backwards, and every insert paid for both.
drop index public.ai_prompt_history_prompt_idx;

-- 0006 multiple permissive policies. Postgres evaluates every permissive policy for a role and
-- ORs them; one policy with the OR says the same and is evaluated once per row.

-- Users read their own interactions in workspaces they (still) belong to; workspace owners and
-- admins read every interaction of their workspace (analytics).
drop policy material_interactions_read_own on public.material_interactions;
drop policy material_interactions_read_admin on public.material_interactions;
create policy material_interactions_read on public.material_interactions for select to authenticated
  using (
    (user_id = (select auth.uid()) and public.is_workspace_member(workspace_id))
    or public.is_workspace_admin(workspace_id)
  );

-- The author reads their own articles (poll by id: /rest/v1/seo_articles?id=eq.<article_id>);
-- members of the workspace an article was made for read it too.
drop policy seo_articles_read_own on public.seo_articles;
drop policy seo_articles_read_workspace on public.seo_articles;
create policy seo_articles_read on public.seo_articles for select to authenticated
  using (
    user_id = (select auth.uid())
    or (workspace_id is not null and public.is_workspace_member(workspace_id))
  );

-- 0028 SECURITY DEFINER functions executable by anon. These helpers run with their owner's rights
-- (they read memberships and roles past RLS). Every policy that calls them is `to authenticated`,
-- so no query by anon evaluates them, and no view or function anon uses needs them; anon had
-- EXECUTE only from the explicit grants of earlier migrations or from the schema's default
-- privileges (`revoke ... from public` does not remove those). Signed-in users and the service
-- role keep it: RLS policies call them for every signed-in read.
revoke execute on function
  public.current_platform_role(),
  public.has_platform_role(text[]),
  public.has_workspace_role(uuid, text[]),
  public.is_workspace_admin(uuid),
  public.is_workspace_member(uuid),
  public.kb_readable_category_ids(),
  public.kb_workspace_ids(text[]),
  public.owns_quote_request(uuid)
from public, anon;
