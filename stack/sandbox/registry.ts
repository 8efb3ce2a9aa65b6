/**
 * The providers the sandbox stands in for, and how code finds each one: the environment
 * variable holding the real key, and the one the official SDK reads for its base URL. Adding a
 * provider is one entry here plus its stand-in under providers/.
 */
import type { StandIn } from "./standin.ts";
import { AnthropicStandIn } from "./providers/anthropic.ts";
import { OpenAIStandIn } from "./providers/openai.ts";
import { PLATFORM_DASHBOARD_PRICES, StripeStandIn } from "./providers/stripe.ts";
import { ResendStandIn } from "./providers/resend.ts";
import { TWILIO_SANDBOX_TOKEN, TwilioStandIn } from "./providers/twilio.ts";
import { WorldLabsStandIn } from "./providers/worldlabs.ts";
import { DATAFORSEO_SANDBOX_PASSWORD, DataForSeoStandIn } from "./providers/dataforseo.ts";
import { LateStandIn } from "./providers/late.ts";
import { ImagesStandIn } from "./providers/images.ts";
import { JinaStandIn } from "./providers/jina.ts";

export interface ProviderDefinition {
  /** Route prefix on the sandbox server (/anthropic/...) and the name tests look it up by. */
  name: string;
  title: string;
  /** Holds the real key; when it is set (outside tests) code talks to the real provider. */
  keyEnv: string;
  /** The variable the official SDK reads for its base URL; pointed at the stand-in. */
  baseUrlEnv: string;
  /**
   * Appended to the stand-in's URL to make its base URL (baseUrl, given in baseUrlEnv): OpenAI's
   * SDK wants the base with /v1. Requests still reach the stand-in with their full path.
   */
  basePath?: string;
  /** Given to code in keyEnv while the stand-in serves, so SDKs that demand a key start. */
  placeholderKey: string;
  /**
   * Serve on a port of its own instead of a path prefix, for SDKs that take only a host and a
   * port (Stripe).
   */
  ownServer?: boolean;
  /**
   * Wires the stand-in to the platform while code uses it: may point its callbacks (webhooks) at
   * `platformUrl`, and returns more variables for code (e.g. the webhook signing secret).
   */
  connect?(standIn: StandIn, platformUrl: string): Record<string, string>;
  /**
   * The secret code verifies the stand-in's callbacks with (webhook signing secret, Twilio's auth
   * token): configured (the process environment outside tests, supabase/functions/.env) or made up,
   * kept in the data folder and shown in the status block as `label`. The sandbox sets it on the
   * stand-in before connect() runs and gives it to code in `env`.
   */
  secret?: {
    env: string;
    label: string;
    get(standIn: StandIn): string;
    set(standIn: StandIn, value: string): void;
  };
  create(): StandIn;
}

/** A provider the sandbox serves: its definition, its stand-in, and whether code uses it. */
export interface StandInEntry {
  def: ProviderDefinition;
  standIn: StandIn;
  /** Code in this process is pointed at the stand-in (no real key configured). */
  sandboxed: boolean;
}

/** Typed access from tests: sandbox.get("anthropic") is an AnthropicStandIn. */
export interface StandIns {
  anthropic: AnthropicStandIn;
  openai: OpenAIStandIn;
  stripe: StripeStandIn;
  resend: ResendStandIn;
  twilio: TwilioStandIn;
  worldlabs: WorldLabsStandIn;
  late: LateStandIn;
  images: ImagesStandIn;
  jina: JinaStandIn;
  dataforseo: DataForSeoStandIn;
}

export const PROVIDERS: ProviderDefinition[] = [
  {
    name: "anthropic",
    title: "Anthropic Messages API",
    keyEnv: "ANTHROPIC_API_KEY",
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    placeholderKey: "sk-ant-sandbox-local-placeholder",
    create: () => new AnthropicStandIn(),
  },
  {
    name: "openai",
    title: "OpenAI API: chat completions and embeddings (any OpenAI-compatible server)",
    keyEnv: "OPENAI_API_KEY",
    // The official SDK reads it; the base includes /v1, as the SDK expects.
    baseUrlEnv: "OPENAI_BASE_URL",
    basePath: "/v1",
    placeholderKey: "sk-openai-sandbox-local-placeholder",
    create: () => new OpenAIStandIn(),
  },
  {
    name: "stripe",
    title: "Stripe API",
    keyEnv: "STRIPE_SECRET_KEY",
    // The SDK takes host and port, not a URL: packages/shared/payments/provider.ts splits this.
    baseUrlEnv: "STRIPE_API_BASE_URL",
    placeholderKey: "sk_test_sandbox_local_placeholder",
    ownServer: true,
    connect: (standIn, platformUrl) => {
      const stripe = standIn as StripeStandIn;
      stripe.webhookUrl = `${platformUrl}/functions/v1/payments-webhook`;
      return { STRIPE_WEBHOOK_SECRET: stripe.webhookSecret };
    },
    secret: {
      env: "STRIPE_WEBHOOK_SECRET",
      label: "Stripe webhook secret",
      get: (s) => (s as StripeStandIn).webhookSecret,
      set: (s, v) => (s as StripeStandIn).webhookSecret = v,
    },
    create: () => new StripeStandIn(PLATFORM_DASHBOARD_PRICES),
  },
  {
    name: "resend",
    title: "Resend email API (mail viewer below)",
    keyEnv: "RESEND_API_KEY",
    // packages/shared/email/provider.ts passes it to the SDK as baseUrl (the SDK reads it too).
    baseUrlEnv: "RESEND_BASE_URL",
    placeholderKey: "re_sandbox_local_placeholder",
    connect: (standIn, platformUrl) => {
      const resend = standIn as ResendStandIn;
      resend.webhookUrl = `${platformUrl}/functions/v1/email-webhooks`;
      return { RESEND_WEBHOOK_SECRET: resend.webhookSecret };
    },
    secret: {
      env: "RESEND_WEBHOOK_SECRET",
      label: "Resend webhook secret",
      get: (s) => (s as ResendStandIn).webhookSecret,
      set: (s, v) => (s as ResendStandIn).webhookSecret = v,
    },
    create: () => new ResendStandIn(),
  },
  {
    name: "twilio",
    title: "Twilio Programmable Messaging (SMS, WhatsApp)",
    keyEnv: "TWILIO_AUTH_TOKEN",
    // The SDK has no base-URL option: packages/shared/messaging/provider.ts sets client.api.baseUrl.
    baseUrlEnv: "TWILIO_BASE_URL",
    placeholderKey: TWILIO_SANDBOX_TOKEN,
    connect: (standIn, platformUrl) => {
      const tw = standIn as TwilioStandIn;
      tw.incomingUrl = `${platformUrl}/functions/v1/messaging-webhook?type=incoming`;
      return { TWILIO_ACCOUNT_SID: tw.accountSid, TWILIO_AUTH_TOKEN: tw.authToken };
    },
    // Not made up: the well-known TWILIO_SANDBOX_TOKEN unless .env configures one.
    secret: {
      env: "TWILIO_AUTH_TOKEN",
      label: "Twilio auth token",
      get: (s) => (s as TwilioStandIn).authToken,
      set: (s, v) => (s as TwilioStandIn).authToken = v,
    },
    create: () => new TwilioStandIn(),
  },
  {
    name: "worldlabs",
    title: "World Labs Marble API (3D worlds)",
    keyEnv: "WORLDLABS_API_KEY",
    // packages/shared/worlds/provider.ts reads it (there is no official TypeScript SDK).
    baseUrlEnv: "WORLDLABS_BASE_URL",
    placeholderKey: "wlt_sandbox_local_placeholder",
    create: () => new WorldLabsStandIn(),
  },
  {
    name: "dataforseo",
    title: "DataForSEO keyword data and SERP API",
    // Basic auth login:password; packages/shared/seo/dataforseo.ts reads all three variables.
    keyEnv: "DATAFORSEO_PASSWORD",
    baseUrlEnv: "DATAFORSEO_BASE_URL",
    placeholderKey: DATAFORSEO_SANDBOX_PASSWORD,
    connect: (standIn) => ({ DATAFORSEO_LOGIN: (standIn as DataForSeoStandIn).login }),
    create: () => new DataForSeoStandIn(),
  },
  {
    name: "late",
    title: "Late / Zernio social publishing API (accounts and posts below)",
    keyEnv: "LATE_API_KEY",
    // packages/shared/social/late.ts reads it (the API has no base-URL variable of its own).
    baseUrlEnv: "LATE_BASE_URL",
    placeholderKey: "sk_late_sandbox_local_placeholder",
    connect: (standIn, platformUrl) => {
      const late = standIn as LateStandIn;
      late.webhookUrl = `${platformUrl}/functions/v1/social-webhook-handler`;
      return { LATE_WEBHOOK_SECRET: late.webhookSecret };
    },
    secret: {
      env: "LATE_WEBHOOK_SECRET",
      label: "Late webhook secret",
      get: (s) => (s as LateStandIn).webhookSecret,
      set: (s, v) => (s as LateStandIn).webhookSecret = v,
    },
    create: () => new LateStandIn(),
  },
  {
    name: "images",
    title: "Image generation (OpenAI Images API shape)",
    keyEnv: "IMAGE_API_KEY",
    // packages/shared/social/images.ts appends /images/generations to it.
    baseUrlEnv: "IMAGE_API_BASE_URL",
    placeholderKey: "sk-images-sandbox-local-placeholder",
    create: () => new ImagesStandIn(),
  },
  {
    name: "jina",
    title: "Jina embeddings API (CLIP image/text embeddings)",
    keyEnv: "CLIP_API_KEY",
    // packages/shared/embeddings/clip.ts posts to {CLIP_BASE_URL}/v1/embeddings.
    baseUrlEnv: "CLIP_BASE_URL",
    placeholderKey: "jina_sandbox_local_placeholder",
    create: () => new JinaStandIn(),
  },
];
