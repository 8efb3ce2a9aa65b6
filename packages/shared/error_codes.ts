/**
 * Every error code the platform's own code answers with, in one place (as GoTrue's
 * internal/api/apierrors/errorcode.go): code -> the HTTP statuses it is answered with and one line
 * of meaning. A client reads `code` from the error body `{error, code, details?}` (and from the
 * error chunk of a stream, or a recorded failure's `error_code`); `error` is for people and may
 * change, `code` does not.
 *
 * Scope: the codes of OUR edge functions (supabase/functions/), the AI backend (services/) and the
 * shared core (packages/shared/). Not listed: the local platform's (stack/) emulation of Supabase,
 * whose PostgREST (`PGRST116`, SQLSTATEs), GoTrue (`weak_password` ...) and Storage codes are
 * Supabase's own vocabulary, documented by Supabase, and answered the same by a hosted project;
 * nor its sandboxed providers' (Stripe, OpenAI) codes; nor the zod issue codes inside
 * `details` of a validation_failed; nor the price-list parser's `issues[].code` (diagnostics of a
 * successful parse, not errors).
 *
 * `statuses` lists every status a code is answered with; most have one. A code with several says
 * when each applies in its meaning (e.g. model_unavailable: 503 not configured, 502 the provider
 * failed). DomainError's and HttpError's `code` parameters are typed `ErrorCode`, so `deno check`
 * refuses an unlisted code; tests/foundation/error_codes_test.ts (scripts/error_codes.ts) scans the
 * code for every code thrown or answered and fails on one missing here, on a status not listed
 * for it, and on an entry nothing uses. docs/errors.md renders this list (`deno task error-codes`).
 *
 * Adding a code: add its line here (keep the group), use it, run `deno task error-codes`.
 */
export interface ErrorCodeEntry {
  /** The HTTP statuses the code is answered with (the first is the usual one). */
  readonly statuses: readonly number[];
  /** One line: what went wrong, for the client reading the code. */
  readonly meaning: string;
}

export const ERROR_CODES = {
  // ---- the general codes of the error helpers (DomainError.* / HttpError.*) ------------------
  bad_request: {
    statuses: [400],
    meaning: "The request is not valid as sent (the message names the problem); also any other 4xx a " +
      "framework exception carries",
  },
  validation_failed: {
    statuses: [400],
    meaning: "The body, query or path failed its schema; `details` lists the issues",
  },
  invalid_json: { statuses: [400], meaning: "The request body is not valid JSON" },
  invalid_value: {
    statuses: [400],
    meaning: "The database refused a value (not null, check, format, range)",
  },
  unauthorized: {
    statuses: [401],
    meaning: "Missing or invalid authentication (no bearer token, an expired or bad one)",
  },
  insufficient_credits: { statuses: [402], meaning: "The workspace has too few credits for the operation" },
  forbidden: {
    statuses: [403],
    meaning: "The caller may not do this (role, membership, row-level security)",
  },
  not_found: {
    statuses: [404],
    meaning: "The resource (or route) does not exist or is not visible to the caller",
  },
  method_not_allowed: { statuses: [405], meaning: "The function does not answer this HTTP method" },
  conflict: {
    statuses: [409],
    meaning: "The request conflicts with the current state (a duplicate, a referenced row)",
  },
  payload_too_large: {
    statuses: [413],
    meaning: "The request body, upload or database write is over its size limit",
  },
  rate_limited: {
    statuses: [429],
    meaning: "Too many requests in the window; retry after the time it names",
  },
  internal_error: {
    statuses: [500],
    meaning: "An unexpected failure; nothing internal is said, the request id is logged",
  },
  db_error: { statuses: [500], meaning: "A database request failed unexpectedly (logged)" },
  db_request_failed: {
    statuses: [400, 401, 403, 404, 405, 406, 409, 416],
    meaning: "The database API refused the request (a PostgREST request error): its 4xx status kept",
  },

  // ---- authentication and workspaces ---------------------------------------------------------
  access_lookup_failed: { statuses: [500], meaning: "The caller's workspace membership could not be read" },
  user_suspended: { statuses: [403], meaning: "The caller's account is suspended" },
  workspace_required: {
    statuses: [400],
    meaning: "The caller belongs to several workspaces and the request does not name one",
  },
  auth_admin_failed: { statuses: [500], meaning: "An auth admin call (create/read a user) failed" },
  rate_limiter_unavailable: {
    statuses: [503],
    meaning: "The rate limiter could not be consulted; the request is refused",
  },

  // ---- signed webhooks and callbacks ---------------------------------------------------------
  signature_required: { statuses: [401], meaning: "The signature header is missing" },
  invalid_signature: {
    statuses: [401, 400],
    meaning: "The signature does not match the body (400 for Stripe's webhook, as Stripe expects)",
  },
  signature_expired: { statuses: [401], meaning: "The signed timestamp is outside the tolerance window" },
  webhook_not_configured: { statuses: [503], meaning: "The webhook's signing secret is not configured" },
  webhook_failed: {
    statuses: [500],
    meaning: "Processing the verified webhook event failed; the sender retries",
  },
  invalid_state: { statuses: [400], meaning: "The OAuth state is malformed or not signed by us" },
  state_mismatch: {
    statuses: [400],
    meaning: "The OAuth state was issued for another workspace, platform or user",
  },
  state_expired: { statuses: [400], meaning: "The OAuth state has expired; start the connection again" },
  state_used: { statuses: [400], meaning: "The OAuth state was already used; start the connection again" },

  // ---- credits, billing and payments ---------------------------------------------------------
  billing_failed: { statuses: [500], meaning: "Debiting or refunding credits failed" },
  no_payer: { statuses: [403], meaning: "No workspace can be charged for the request" },
  payments_not_configured: { statuses: [503], meaning: "The payment provider is not configured" },
  payment_provider_error: { statuses: [502], meaning: "The payment provider refused or failed the call" },
  profile_not_found: { statuses: [404], meaning: "The caller has no billing profile" },
  subscription_exists: { statuses: [409], meaning: "The workspace already has an active subscription" },
  unknown_credit_package: {
    statuses: [400, 404],
    meaning: "No credit package matches (400 a checkout asking for one, 404 a paid price matching none)",
  },
  unknown_plan: {
    statuses: [404, 400],
    meaning: "No subscription plan matches (404 by id, 400 a price no plan has)",
  },

  // ---- the model layer and AI features --------------------------------------------------------
  model_unavailable: {
    statuses: [503, 502],
    meaning: "No model provider is configured (503), or the provider could not be reached or failed (502)",
  },
  model_bad_output: { statuses: [502], meaning: "The model's answer was unusable twice" },
  agent_failed: { statuses: [500], meaning: "The agent turn or background run failed (credits refunded)" },
  unknown_agent: { statuses: [400], meaning: "No chat agent of that name" },
  unknown_agent_type: { statuses: [400], meaning: "No background agent type of that name" },
  invalid_input: { statuses: [400], meaning: "A background agent's input does not fit its type" },
  agent_disabled: { statuses: [409], meaning: "The background agent is disabled" },
  run_not_pending: { statuses: [409], meaning: "The background run is no longer pending" },
  delegation_failed: {
    statuses: [502],
    meaning: "The AI backend did not take the background run (recorded `error_code`)",
  },
  conversation_not_found: { statuses: [404], meaning: "The conversation does not exist in the workspace" },
  conversation_lookup_failed: { statuses: [500], meaning: "The conversation could not be read" },
  invalid_images: { statuses: [400], meaning: "The chat turn's images are not valid" },
  invalid_ai_config: { statuses: [400], meaning: "The workspace's AI model settings are not valid" },
  invalid_image: {
    statuses: [400, 422],
    meaning: "The image is not valid (400) or cannot be decoded or analysed (422)",
  },
  image_fetch_failed: { statuses: [400], meaning: "The image at image_url could not be fetched" },
  too_many_images: { statuses: [400], meaning: "More images than the request allows" },
  embedding_failed: { statuses: [502], meaning: "The embedding model failed" },
  clip_misconfigured: { statuses: [503], meaning: "The image-embedding (CLIP) service is not configured" },
  unknown_action: { statuses: [400], meaning: "The AI gateway has no action of that name" },
  backend_not_configured: { statuses: [503], meaning: "The AI gateway has no AI backend URL configured" },
  backend_malformed: {
    statuses: [502],
    meaning: "The AI backend answered something that is not its JSON envelope",
  },
  backend_unreachable: { statuses: [502], meaning: "The AI gateway could not reach the AI backend" },
  backend_timeout: { statuses: [504], meaning: "The AI backend did not answer within the gateway's timeout" },
  backend_error: {
    statuses: [500, 502, 503],
    meaning: "The AI backend failed without a code of its own; its status is passed through",
  },

  // ---- documents, knowledge base and pipeline -------------------------------------------------
  content_too_large: { statuses: [413], meaning: "A document's content is over its size limit" },
  no_text: {
    statuses: [422, 400],
    meaning: "The document has no text (422 a PDF without a text layer, 400 an empty text)",
  },
  not_a_pdf: { statuses: [400], meaning: "The file is not a PDF" },
  pdf_unreadable: { statuses: [400], meaning: "The PDF cannot be read" },
  job_not_created: { statuses: [400], meaning: "The pipeline job could not be created" },
  job_busy: { statuses: [409], meaning: "The pipeline job is already running a stage" },
  stage_not_ready: { statuses: [409], meaning: "The pipeline stage's inputs are not ready" },
  pipeline_failed: { statuses: [422], meaning: "A pipeline stage failed on this document" },
  storage_failed: { statuses: [502], meaning: "A storage call (upload, remove) failed" },
  storage_error: { statuses: [500], meaning: "A stored file could not be written or read" },
  record_failed: { statuses: [502], meaning: "The upload was stored but recording it failed" },
  database_failed: { statuses: [500], meaning: "An admin database operation failed" },
  backup_too_large: { statuses: [413], meaning: "The backup is over its size limit" },
  image_file_missing: { statuses: [404], meaning: "The image's stored file does not exist" },
  not_an_image: { statuses: [422], meaning: "The stored file is not an image" },
  batch_finished: { statuses: [409], meaning: "The PDF batch is already finished" },
  search_failed: { statuses: [500], meaning: "The search query failed" },

  // ---- CRM, flows and messaging ---------------------------------------------------------------
  flow_not_found: { statuses: [404], meaning: "The flow does not exist in the workspace" },
  flow_disabled: { statuses: [409], meaning: "The flow is disabled" },
  invalid_flow: { statuses: [400], meaning: "The flow's graph is not valid (the message names the node)" },
  provider_error: { statuses: [502], meaning: "The messaging provider refused or failed the send" },
  credentials_missing: {
    statuses: [503],
    meaning: "The messaging provider's credentials are not configured",
  },
  no_default_channel: { statuses: [400], meaning: "No channel given and the workspace has no default" },
  all_opted_out: { statuses: [400], meaning: "Every recipient has opted out" },
  daily_quota: { statuses: [429], meaning: "The workspace's daily message quota is spent" },
  missing_variable: { statuses: [400], meaning: "A message template variable has no value" },

  // ---- email ---------------------------------------------------------------------------------
  action_removed: {
    statuses: [400],
    meaning: "The email API action was removed; the message names its replacement",
  },
  email_not_configured: { statuses: [503], meaning: "The email provider is not configured" },
  email_provider_error: { statuses: [502], meaning: "The email provider refused or failed the call" },
  email_sender_misconfigured: { statuses: [503], meaning: "The platform's default sender is not configured" },
  email_webhook_not_configured: {
    statuses: [503],
    meaning: "The email provider's webhook secret is not configured",
  },
  from_required: { statuses: [400], meaning: "No sender address given and no default sender" },
  domain_exists: { statuses: [409], meaning: "The workspace already has this sending domain" },
  domain_taken: { statuses: [409], meaning: "Another workspace has this sending domain" },
  unverified_sender: { statuses: [403], meaning: "The sender's domain is not verified for the workspace" },
  template_not_found: { statuses: [404], meaning: "The email template does not exist" },
  missing_variables: {
    statuses: [400],
    meaning: "Email template variables have no value; `details` names them",
  },
  recipient_suppressed: {
    statuses: [422],
    meaning: "The recipient is on the suppression list (bounced, complained)",
  },

  // ---- scraping, monitoring, SEO ---------------------------------------------------------------
  unsafe_url: { statuses: [400], meaning: "The URL is refused (not http(s), private or local address)" },
  fetch_failed: { statuses: [502], meaning: "The page could not be fetched" },
  robots_disallowed: { statuses: [422], meaning: "The site's robots.txt disallows fetching the page" },
  sitemap_invalid: { statuses: [400], meaning: "The sitemap cannot be parsed" },
  page_busy: { statuses: [409], meaning: "The page is being scraped by another request" },
  invalid_transition: {
    statuses: [409],
    meaning: "The scraping session cannot move to that status from its current one",
  },
  no_sources: { statuses: [422], meaning: "The product has no price sources to check" },
  too_many_sources: { statuses: [422], meaning: "The product has more price sources than one check allows" },
  price_monitoring_db_error: { statuses: [500], meaning: "Recording the price check failed" },
  keyword_data_not_configured: { statuses: [503], meaning: "The keyword-data provider is not configured" },
  keyword_data_unreachable: { statuses: [502], meaning: "The keyword-data provider could not be reached" },
  keyword_data_error: { statuses: [502], meaning: "The keyword-data provider refused or failed the call" },
  seo_pipeline_failed: { statuses: [500], meaning: "The SEO article pipeline failed" },
  seo_store_failed: { statuses: [500], meaning: "The SEO pipeline could not store its result" },

  // ---- social --------------------------------------------------------------------------------
  account_not_found: { statuses: [404], meaning: "The social account does not exist in the workspace" },
  account_taken: { statuses: [409], meaning: "The social account is connected to another workspace" },
  account_disconnected: { statuses: [409], meaning: "The social account is disconnected; connect it again" },
  platform_limits: { statuses: [400], meaning: "The post breaks the platform's rules (length, media)" },
  platform_mismatch: { statuses: [400], meaning: "The post's platform does not match the account's" },
  publish_failed: { statuses: [502], meaning: "The social platform refused the post" },
  social_provider_not_configured: {
    statuses: [503],
    meaning: "The social publishing provider is not configured",
  },
  social_provider_unreachable: {
    statuses: [502],
    meaning: "The social publishing provider could not be reached",
  },
  social_provider_error: {
    statuses: [502],
    meaning: "The social publishing provider refused or failed the call",
  },
  image_provider_not_configured: {
    statuses: [503],
    meaning: "The image-generation provider is not configured",
  },
  image_provider_unreachable: {
    statuses: [502],
    meaning: "The image-generation provider could not be reached",
  },
  image_provider_error: {
    statuses: [502],
    meaning: "The image-generation provider refused or failed the call",
  },
  image_generation_failed: { statuses: [502], meaning: "The image generation produced no image" },

  // ---- VR worlds -----------------------------------------------------------------------------
  worlds_not_configured: { statuses: [503], meaning: "The world-generation provider is not configured" },
  generation_failed: { statuses: [500], meaning: "The world generation failed (credits refunded)" },
  generation_timeout: { statuses: [500], meaning: "The world generation timed out (credits refunded)" },
} as const satisfies Record<string, ErrorCodeEntry>;

/** Every error code (the catalog's keys): the type of DomainError's and HttpError's `code`. */
export type ErrorCode = keyof typeof ERROR_CODES;
