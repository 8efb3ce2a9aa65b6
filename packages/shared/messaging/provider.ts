/**
 * The messaging provider: Twilio Programmable Messaging through the official `twilio` SDK, with
 * basic authentication from the server secrets TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN. The SDK
 * has no base-URL option; TWILIO_BASE_URL (optional, e.g. the sandbox stand-in) replaces
 * https://api.twilio.com through `client.api.baseUrl`, which every call made here goes through.
 * Secrets stay in this module: errors carry the provider's code and message, never the request.
 */
import twilio from "twilio";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";

export interface OutgoingMessage {
  to: string;
  from?: string;
  messagingServiceSid?: string;
  body?: string;
  mediaUrl?: string[];
  contentSid?: string;
  contentVariables?: Record<string, string>;
  statusCallback: string;
}

export interface SentMessage {
  sid: string;
  status: string;
  segmentCount: number | null;
  /** Absolute cost when the provider already knows it. */
  price: number | null;
  priceUnit: string | null;
}

export interface IncomingNumber {
  sid: string;
  phoneNumber: string;
  friendlyName: string | null;
  sms: boolean;
}

/** A message the provider accepted earlier, as its list returns it. */
export interface ListedMessage extends SentMessage {
  to: string;
  from: string | null;
  body: string;
}

export interface MessagingProvider {
  send(message: OutgoingMessage): Promise<SentMessage>;
  /**
   * The latest messages sent to `to` from `from` (Twilio's Messages list, newest first, one page
   * of `limit`): how the bulk worker learns whether a send it lost the answer to went out.
   */
  sentTo(to: string, from: string | null, limit: number): Promise<ListedMessage[]>;
  balance(): Promise<{ balance: number; currency: string; raw: Record<string, unknown> }>;
  incomingNumbers(): Promise<IncomingNumber[]>;
}

/** The provider refused or failed a call; code is the provider's error code when it gave one. */
export class ProviderError extends Error {
  constructor(message: string, readonly code: string | null, readonly status: number | null) {
    super(message);
    this.name = "ProviderError";
  }
}

export const CREDENTIALS_MISSING = "the service credentials not configured";
export const PROVIDER_API_ERROR = "the service API error";

function providerError(err: unknown): ProviderError {
  const e = err as { status?: unknown; code?: unknown; message?: unknown };
  const status = typeof e?.status === "number" ? e.status : null;
  const code = e?.code === undefined || e?.code === null ? null : String(e.code);
  const message = typeof e?.message === "string" && e.message ? e.message : "provider request failed";
  return new ProviderError(message, code, status);
}

function numberOrNull(v: unknown): number | null {
  if (v === null || v === undefined || v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The Twilio adapter, or the spec's configuration error when the secrets are missing. */
export function twilioProvider(): MessagingProvider {
  const accountSid = env("TWILIO_ACCOUNT_SID");
  const authToken = env("TWILIO_AUTH_TOKEN");
  if (!accountSid || !authToken) {
    throw new DomainError("unavailable", "credentials_missing", CREDENTIALS_MISSING);
  }
  const client = twilio(accountSid, authToken, { autoRetry: false });
  const baseUrl = env("TWILIO_BASE_URL");
  if (baseUrl) client.api.baseUrl = baseUrl.replace(/\/+$/, "");

  return {
    async send(m) {
      try {
        const msg = await client.messages.create({
          to: m.to,
          ...(m.messagingServiceSid ? { messagingServiceSid: m.messagingServiceSid } : { from: m.from! }),
          ...(m.body !== undefined ? { body: m.body } : {}),
          ...(m.mediaUrl?.length ? { mediaUrl: m.mediaUrl } : {}),
          ...(m.contentSid
            ? { contentSid: m.contentSid, contentVariables: JSON.stringify(m.contentVariables ?? {}) }
            : {}),
          statusCallback: m.statusCallback,
        });
        const price = numberOrNull(msg.price);
        return {
          sid: msg.sid,
          status: msg.status,
          segmentCount: numberOrNull(msg.numSegments),
          price: price === null ? null : Math.abs(price),
          priceUnit: msg.priceUnit ?? null,
        };
      } catch (err) {
        throw providerError(err);
      }
    },
    async sentTo(to, from, limit) {
      try {
        const list = await client.messages.list({ to, ...(from ? { from } : {}), limit });
        return list.map((msg) => {
          const price = numberOrNull(msg.price);
          return {
            sid: msg.sid,
            status: msg.status,
            to: msg.to,
            from: msg.from ?? null,
            body: msg.body ?? "",
            segmentCount: numberOrNull(msg.numSegments),
            price: price === null ? null : Math.abs(price),
            priceUnit: msg.priceUnit ?? null,
          };
        });
      } catch (err) {
        throw providerError(err);
      }
    },
    async balance() {
      try {
        const b = await client.balance.fetch();
        return {
          balance: Number(b.balance),
          currency: b.currency,
          raw: { account_sid: b.accountSid, balance: b.balance, currency: b.currency },
        };
      } catch (err) {
        throw providerError(err);
      }
    },
    async incomingNumbers() {
      try {
        const numbers = await client.incomingPhoneNumbers.list({ pageSize: 100 });
        return numbers.map((n) => ({
          sid: n.sid,
          phoneNumber: n.phoneNumber,
          friendlyName: n.friendlyName ?? null,
          sms: n.capabilities?.sms !== false,
        }));
      } catch (err) {
        throw providerError(err);
      }
    },
  };
}

/** A provider failure as the spec's error (502), the provider's code kept in details. */
export function providerApiError(err: ProviderError): DomainError {
  return new DomainError("upstream", "provider_error", PROVIDER_API_ERROR, {
    providerCode: err.code,
    providerMessage: err.message,
  });
}
