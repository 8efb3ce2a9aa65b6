/**
 * The payment provider (Stripe), through its official SDK. Configuration only from env():
 * STRIPE_SECRET_KEY (a server secret), STRIPE_WEBHOOK_SECRET (the endpoint's whsec_...) and
 * STRIPE_API_BASE_URL, optional, where the API is (the local sandbox's stand-in; the SDK takes a
 * host, a port and a protocol, split from it here). Secrets are never logged nor returned.
 */
import Stripe from "stripe";
import { env, MissingEnvError, requireEnv } from "../env.ts";
import { DomainError } from "../errors.ts";

export type { Stripe };

/** Stripe refuses webhooks signed longer ago than this (seconds); so do we. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const clients = new Map<string, Stripe>();

function secret(name: string): string {
  try {
    return requireEnv(name);
  } catch (err) {
    if (err instanceof MissingEnvError) {
      throw DomainError.unavailable("Payments are not configured on this server", "payments_not_configured");
    }
    throw err;
  }
}

/** The SDK client for the configured key and base URL (one per pair). */
export function stripeClient(): Stripe {
  const key = secret("STRIPE_SECRET_KEY");
  const base = env("STRIPE_API_BASE_URL") ?? "";
  const cacheKey = `${base}\u0000${key}`;
  let client = clients.get(cacheKey);
  if (!client) {
    const config: Stripe.StripeConfig = {
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 1,
      timeout: 20_000,
      telemetry: false,
    };
    if (base) {
      const url = new URL(base);
      config.host = url.hostname;
      config.protocol = url.protocol === "http:" ? "http" : "https";
      config.port = url.port ? Number(url.port) : (url.protocol === "http:" ? 80 : 443);
    }
    client = new Stripe(key, config);
    clients.set(cacheKey, client);
  }
  return client;
}

const cryptoProvider = Stripe.createSubtleCryptoProvider();

/**
 * The event in `rawBody` when `signature` (the Stripe-Signature header) is a valid v1 HMAC of it
 * by STRIPE_WEBHOOK_SECRET, signed at most 300 s ago (the SDK compares in constant time); a
 * missing, forged, tampered or stale signature is a DomainError (400 invalid_signature).
 */
export async function verifyWebhook(rawBody: string, signature: string | null): Promise<Stripe.Event> {
  const whsec = secret("STRIPE_WEBHOOK_SECRET");
  if (!signature) {
    throw DomainError.invalid("Missing Stripe-Signature header", undefined, "invalid_signature");
  }
  try {
    return await stripeClient().webhooks.constructEventAsync(
      rawBody,
      signature,
      whsec,
      SIGNATURE_TOLERANCE_SECONDS,
      cryptoProvider,
    );
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw DomainError.invalid(`Invalid Stripe-Signature: ${err.message}`, undefined, "invalid_signature");
    }
    throw err;
  }
}

/** A provider failure as a 502 naming Stripe's own message and code (never the key). */
export function providerError(err: unknown, doing: string): DomainError {
  if (err instanceof Stripe.errors.StripeAuthenticationError) {
    // Stripe's message echoes part of the key: say what happened without it.
    return new DomainError(
      "upstream",
      "payment_provider_error",
      `Stripe could not ${doing}: it refused the server's API key`,
    );
  }
  if (err instanceof Stripe.errors.StripeError) {
    return new DomainError(
      "upstream",
      "payment_provider_error",
      `Stripe could not ${doing}: ${err.message}`,
      {
        type: err.type,
        code: err.code ?? null,
        status: err.statusCode ?? null,
        request_id: err.requestId ?? null,
      },
    );
  }
  return err instanceof DomainError
    ? err
    : new DomainError("upstream", "payment_provider_error", `Stripe could not ${doing}: ${String(err)}`);
}
