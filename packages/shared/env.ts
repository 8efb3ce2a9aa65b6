/**
 * Typed access to the environment. Secrets come only from here: in production Deno.env (Supabase
 * secrets); on the local platform the function environment the router scopes to each call
 * (runWithEnv), as the edge runtime gives every worker its own env. Scoping matters because one
 * process may run several platforms (parallel test modules) whose SUPABASE_URL differ.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scoped = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/** Runs `fn` with `vars` as the environment env() reads first. */
export function runWithEnv<T>(vars: Readonly<Record<string, string>>, fn: () => T): T {
  return scoped.run(vars, fn);
}

export class MissingEnvError extends Error {
  constructor(readonly variable: string) {
    super(`${variable} is not configured`);
    this.name = "MissingEnvError";
  }
}

export function env(name: string): string | undefined {
  const vars = scoped.getStore();
  const v = vars && Object.hasOwn(vars, name) ? vars[name] : Deno.env.get(name);
  return v === undefined || v === "" ? undefined : v;
}

export function requireEnv(name: string): string {
  const v = env(name);
  if (v === undefined) throw new MissingEnvError(name);
  return v;
}

/** Where the Supabase project is and the keys to it: what the HTTP core needs to resolve callers. */
export interface SupabaseConfig {
  /** The project URL (serves /rest/v1, /auth/v1, /storage/v1). */
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Optional: verifies HS256 user JWTs locally instead of asking /auth/v1/user. */
  jwtSecret?: string;
}

/** The variables Supabase gives every edge function. */
export function supabaseEnv(): SupabaseConfig {
  return {
    url: requireEnv("SUPABASE_URL"),
    anonKey: requireEnv("SUPABASE_ANON_KEY"),
    serviceRoleKey: requireEnv("SUPABASE_SERVICE_ROLE_KEY"),
    jwtSecret: env("JWT_SECRET"),
  };
}

/**
 * How a setting reaches code in production: `provided` by Supabase to every edge function (the
 * AI backend's container is given the same values by hand), a `secret` (a key, token or signing
 * secret: `supabase secrets set`, and the backend's secret store), or a plain `setting` (a URL, a
 * model name, a limit), which has a default unless said otherwise.
 */
export type SettingKind = "provided" | "secret" | "setting";

export interface Setting {
  name: string;
  kind: SettingKind;
  /** What it is for, and what happens without it. */
  about: string;
}

/**
 * Every environment variable the functions and the AI backend read: the one list docs/deploy.md's
 * table is generated from (`deno task secrets-doc`, which also finds who reads each one).
 * tests/foundation/secrets_doc_test.ts fails when code reads a variable missing here, or when an
 * entry here is missing from docs/deploy.md.
 */
export const SETTINGS: readonly Setting[] = [
  // Supabase
  { name: "SUPABASE_URL", kind: "provided", about: "The project URL (REST, auth, storage, functions)." },
  { name: "SUPABASE_ANON_KEY", kind: "provided", about: "The anon key: callers without a user JWT." },
  {
    name: "SUPABASE_SERVICE_ROLE_KEY",
    kind: "provided",
    about: "The service-role key: system work past RLS. Never give it to a browser.",
  },
  {
    name: "SUPABASE_JWKS",
    kind: "provided",
    about: "The project's public signing keys: user JWTs signed with asymmetric keys are verified locally.",
  },
  {
    name: "JWT_SECRET",
    kind: "secret",
    about:
      "The project's legacy JWT secret: verifies HS256 user JWTs without a round trip to /auth/v1/user. " +
      "Optional (without it each request asks auth).",
  },
  // The AI backend
  {
    name: "AI_BACKEND_URL",
    kind: "setting",
    about:
      "Where the AI backend is served (https://ai.example.com, no trailing /api). Required: without it " +
      "ai-gateway answers 503 backend_not_configured and PDF batches and agent runs fail.",
  },
  { name: "PORT", kind: "setting", about: "AI backend: the port it listens on (default 8000)." },
  { name: "HOST", kind: "setting", about: "AI backend: the interface it listens on (default 0.0.0.0)." },
  // Models
  {
    name: "ANTHROPIC_API_KEY",
    kind: "secret",
    about: "Anthropic: the agent, RAG answers, the PDF pipeline's model stages, scraping extraction, SEO, " +
      "social captions, AI services. Without a model provider those features answer 503 model_unavailable.",
  },
  {
    name: "ANTHROPIC_BASE_URL",
    kind: "setting",
    about: "Anthropic API origin (default https://api.anthropic.com).",
  },
  {
    name: "LLM_PROVIDER",
    kind: "setting",
    about: "Model provider: anthropic | openai (any OpenAI-compatible server: OpenAI, Ollama, vLLM, " +
      "llama.cpp, LM Studio). Default: anthropic with ANTHROPIC_API_KEY, else openai with OPENAI_*.",
  },
  {
    name: "OPENAI_API_KEY",
    kind: "secret",
    about: "Key of the OpenAI-compatible model server (a local server needs none).",
  },
  {
    name: "OPENAI_BASE_URL",
    kind: "setting",
    about: "OpenAI-compatible API base incl. /v1 (default https://api.openai.com/v1; Ollama: " +
      "http://127.0.0.1:11434/v1).",
  },
  {
    name: "LLM_MODEL_MAP",
    kind: "setting",
    about:
      "Platform model ids to the server's models: vendor-sonnet-4-5=qwen2.5:14b,vendor-haiku-4-5=qwen2.5:7b.",
  },
  { name: "AGENT_MODEL_MAIN", kind: "setting", about: "agent-chat: model of the main agent." },
  {
    name: "AGENT_MODEL_INTERIOR_DESIGNER",
    kind: "setting",
    about: "agent-chat: model of the interior designer agent.",
  },
  { name: "AGENT_MODEL_DEMO", kind: "setting", about: "agent-chat: model of the demo agent." },
  {
    name: "AGENT_HEARTBEAT_MS",
    kind: "setting",
    about: "agent-chat: heartbeat interval of the stream (default 1000).",
  },
  {
    name: "BACKGROUND_AGENT_MODEL",
    kind: "setting",
    about: "Background agents: model of the catalog writer.",
  },
  { name: "RAG_MODEL", kind: "setting", about: "AI backend: model of grounded RAG answers." },
  { name: "SEO_LLM_MODEL", kind: "setting", about: "SEO pipeline: model of the plan, write and fix stages." },
  { name: "SCRAPER_MODEL", kind: "setting", about: "Scraping: model of field extraction." },
  { name: "SOCIAL_CONTENT_MODEL", kind: "setting", about: "generate-social-content: caption model." },
  // Embeddings
  {
    name: "EMBEDDINGS_API_KEY",
    kind: "secret",
    about:
      "Text embeddings (OpenAI-compatible or Voyage). Without it a local deterministic provider embeds " +
      "(fine for tests, not for search quality).",
  },
  {
    name: "EMBEDDINGS_PROVIDER",
    kind: "setting",
    about: "openai | voyage | local (default: openai with a key).",
  },
  { name: "EMBEDDINGS_BASE_URL", kind: "setting", about: "Embeddings API base (default the provider's)." },
  {
    name: "EMBEDDINGS_MODEL",
    kind: "setting",
    about: "Embeddings model (default the provider's; 1024 dimensions).",
  },
  {
    name: "CLIP_API_KEY",
    kind: "secret",
    about: "Jina CLIP image/text embeddings. Without it a local provider embeds (no real visual similarity).",
  },
  { name: "CLIP_PROVIDER", kind: "setting", about: "jina | local (default: jina with a key)." },
  { name: "CLIP_BASE_URL", kind: "setting", about: "Jina API origin (default https://api.jina.ai)." },
  { name: "CLIP_MODEL", kind: "setting", about: "CLIP model (default jina-clip-v2)." },
  {
    name: "IMAGE_FETCH_ALLOWED_HOSTS",
    kind: "setting",
    about: "AI backend: hosts image_url may fetch although private (comma-separated; default none: " +
      "public addresses only).",
  },
  // Payments
  { name: "STRIPE_SECRET_KEY", kind: "secret", about: "Stripe API key: checkout, customer portal, billing." },
  {
    name: "STRIPE_WEBHOOK_SECRET",
    kind: "secret",
    about: "Signing secret of the Stripe webhook endpoint (payments-webhook refuses events without it).",
  },
  {
    name: "STRIPE_API_BASE_URL",
    kind: "setting",
    about: "Stripe API origin (default Stripe's; tests only).",
  },
  {
    name: "SITE_URL",
    kind: "setting",
    about: "The frontend's origin: checkout success/cancel and OAuth landing pages are under it " +
      "(default http://127.0.0.1:3000: set it in production).",
  },
  {
    name: "PAYMENTS_SUCCESS_URL",
    kind: "setting",
    about:
      "Checkout success page (default {SITE_URL}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}).",
  },
  {
    name: "PAYMENTS_CANCEL_URL",
    kind: "setting",
    about: "Checkout cancel page (default {SITE_URL}/billing?checkout=cancelled).",
  },
  // Email
  { name: "RESEND_API_KEY", kind: "secret", about: "Resend API key: email-api sends through it." },
  {
    name: "RESEND_WEBHOOK_SECRET",
    kind: "secret",
    about: "Signing secret (whsec_...) of the Resend webhook: email-webhooks refuses events without it.",
  },
  { name: "RESEND_BASE_URL", kind: "setting", about: "Resend API origin (default Resend's; tests only)." },
  {
    name: "EMAIL_PLATFORM_FROM",
    kind: "setting",
    about: "Sender of platform mail when a workspace has no verified domain (an address at a domain " +
      "verified in Resend).",
  },
  { name: "EMAIL_PLATFORM_FROM_NAME", kind: "setting", about: "Display name of that sender." },
  {
    name: "EMAIL_DEFAULT_LOCAL_PART",
    kind: "setting",
    about: "Local part used at a workspace's verified domain when none is given (default noreply).",
  },
  // Messaging
  { name: "TWILIO_ACCOUNT_SID", kind: "secret", about: "Twilio account SID (AC...)." },
  {
    name: "TWILIO_AUTH_TOKEN",
    kind: "secret",
    about: "Twilio auth token: sends, and checks X-Twilio-Signature on messaging-webhook.",
  },
  { name: "TWILIO_BASE_URL", kind: "setting", about: "Twilio API origin (default Twilio's; tests only)." },
  {
    name: "MESSAGING_WEBHOOK_URL",
    kind: "setting",
    about: "The public URL of messaging-webhook when served under another domain (signatures are " +
      "computed over it; default {SUPABASE_URL}/functions/v1/messaging-webhook).",
  },
  // Social
  { name: "LATE_API_KEY", kind: "secret", about: "Late (Zernio) API key: social accounts and publishing." },
  {
    name: "ZERNIO_API_KEY",
    kind: "secret",
    about: "The same key under Late's new name (LATE_API_KEY wins).",
  },
  {
    name: "LATE_WEBHOOK_SECRET",
    kind: "secret",
    about: "Signing secret of the Late webhook: social-webhook-handler refuses events without it.",
  },
  { name: "LATE_BASE_URL", kind: "setting", about: "Late API origin (default Late's; tests only)." },
  {
    name: "SOCIAL_OAUTH_REDIRECT_URL",
    kind: "setting",
    about: "Where the browser lands after connecting a social account (default SITE_URL).",
  },
  {
    name: "SOCIAL_OAUTH_STATE_SECRET",
    kind: "secret",
    about: "Key of the signed OAuth state (default: derived from the service-role key).",
  },
  {
    name: "IMAGE_API_KEY",
    kind: "secret",
    about: "Image generation (OpenAI Images API shape): social images.",
  },
  {
    name: "IMAGE_API_BASE_URL",
    kind: "setting",
    about: "Images API base (default https://api.openai.com/v1).",
  },
  { name: "IMAGE_MODEL", kind: "setting", about: "Image model (default gpt-image-1)." },
  // SEO, worlds, monitoring, scraping, PDF batches
  {
    name: "DATAFORSEO_LOGIN",
    kind: "secret",
    about: "DataForSEO login: keyword data of the SEO research stage.",
  },
  { name: "DATAFORSEO_PASSWORD", kind: "secret", about: "DataForSEO password." },
  { name: "DATAFORSEO_BASE_URL", kind: "setting", about: "DataForSEO API origin (default DataForSEO's)." },
  { name: "WORLDLABS_API_KEY", kind: "secret", about: "World Labs API key: generate-vr-world." },
  { name: "WORLDLABS_BASE_URL", kind: "setting", about: "World Labs API origin (default World Labs')." },
  {
    name: "VR_WORLD_TIMEOUT_MS",
    kind: "setting",
    about: "generate-vr-world: give up (and refund) after this long.",
  },
  { name: "VR_WORLD_POLL_INTERVAL_MS", kind: "setting", about: "generate-vr-world: poll interval." },
  {
    name: "PRICE_MONITORING_ALLOWED_HOSTS",
    kind: "setting",
    about: "price-monitoring: hosts checks may fetch although private (comma-separated; default none).",
  },
  { name: "PRICE_MONITORING_USER_AGENT", kind: "setting", about: "price-monitoring: User-Agent of checks." },
  {
    name: "SCRAPER_ALLOWED_HOSTS",
    kind: "setting",
    about: "Scraping: hosts sessions may fetch although private (comma-separated; default none).",
  },
  {
    name: "SCRAPER_USER_AGENT",
    kind: "setting",
    about: "Scraping: User-Agent (robots.txt is matched against it).",
  },
  {
    name: "PDF_BATCH_WEBHOOK_SECRET",
    kind: "secret",
    about: "pdf-batch-process: signs completion webhooks (x-batch-signature); without it none is sent.",
  },
];
