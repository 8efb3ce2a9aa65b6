/**
 * The email provider: Resend through its official SDK. The API key is a server secret
 * (RESEND_API_KEY); RESEND_BASE_URL points the SDK elsewhere (the sandbox stand-in) and is read
 * through env(), which the local platform scopes per function call. The SDK never throws on an
 * HTTP error: it answers {data, error}, which becomes an `upstream` DomainError (502) naming
 * the provider's message, never the key.
 */
import { Resend } from "resend";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";

export interface OutgoingEmail {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo?: string;
  subject: string;
  html?: string;
  text?: string;
  tags: Record<string, string>;
  /** Our log id: the idempotency key, so a retried send is not mailed twice. */
  logId: string;
}

export interface ProviderDomain {
  id: string;
  status: string;
  records: unknown[];
}

function client(): Resend {
  const key = env("RESEND_API_KEY");
  if (!key) throw DomainError.unavailable("The email provider is not configured", "email_not_configured");
  return new Resend(key, { baseUrl: env("RESEND_BASE_URL") ?? "https://api.resend.com" });
}

function upstream(what: string, error: { message?: string; name?: string }): DomainError {
  return new DomainError(
    "upstream",
    "email_provider_error",
    `Email provider error (${what}): ${error.message ?? error.name ?? "unknown error"}`,
    { provider_error: error.name ?? null },
  );
}

/** Sends one email; returns the provider's message id. */
export async function sendWithProvider(mail: OutgoingEmail): Promise<string> {
  const { data, error } = await client().emails.send(
    {
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      ...(mail.cc.length ? { cc: mail.cc } : {}),
      ...(mail.bcc.length ? { bcc: mail.bcc } : {}),
      ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
      ...(mail.html !== undefined ? { html: mail.html } : {}),
      ...(mail.text !== undefined ? { text: mail.text } : {}),
      tags: Object.entries(mail.tags).map(([name, value]) => ({ name, value })),
      headers: { "X-Entity-Ref-ID": mail.logId },
    } as Parameters<Resend["emails"]["send"]>[0],
    { idempotencyKey: `email-log/${mail.logId}` },
  );
  if (error || !data?.id) throw upstream("send", error ?? { message: "no message id in the answer" });
  return data.id;
}

/** Registers a sending domain with the provider; its records are the DNS entries to publish. */
export async function createProviderDomain(name: string): Promise<ProviderDomain> {
  const { data, error } = await client().domains.create({ name });
  if (error || !data) throw upstream("add domain", error ?? { message: "no domain in the answer" });
  return { id: data.id, status: data.status, records: data.records ?? [] };
}

/** The webhook signing secret (whsec_...), a server secret. */
export function webhookSecret(): string {
  const secret = env("RESEND_WEBHOOK_SECRET");
  if (!secret) {
    throw DomainError.unavailable(
      "The email webhook secret is not configured",
      "email_webhook_not_configured",
    );
  }
  return secret;
}
