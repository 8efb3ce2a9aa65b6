/**
 * Auth mail: GoTrue's default templates (supabase/auth internal/mailer/template.go: subjects and
 * bodies with {{ .ConfirmationURL }}, {{ .Token }}, {{ .Email }}, {{ .NewEmail }}), delivered
 * the way the CLI delivers them to Mailpit: locally every auth mail lands in the provider
 * sandbox's Resend stand-in (POST /emails on its API), so it shows in the sandbox page's mail
 * viewer (?provider=resend) next to the app's own mail, and tests read it from
 * `p.sandbox.get("resend")`. Nothing is ever sent to a real inbox.
 */
import { AuthError } from "./errors.ts";

export type MailKind = "signup" | "invite" | "magiclink" | "recovery" | "email_change" | "reauthentication";

export interface AuthMail {
  kind: MailKind;
  to: string;
  /** The link to /auth/v1/verify ("" for reauthentication, which mails only a code). */
  confirmationUrl: string;
  token: string;
  tokenHash: string;
  siteUrl: string;
  email: string;
  newEmail?: string;
  redirectTo: string;
}

/** Delivers one rendered message; the platform points it at the sandbox. */
export type MailTransport = (
  msg: { to: string; subject: string; html: string; text: string },
) => Promise<void>;

/** GOTRUE_SMTP_ADMIN_EMAIL / SENDER_NAME as `supabase start` sets them. */
export const AUTH_MAIL_FROM = "Supabase Auth <admin@email.com>";

const SUBJECTS: Record<MailKind, string> = {
  signup: "Confirm Your Signup",
  invite: "You have been invited",
  magiclink: "Your Magic Link",
  recovery: "Reset Your Password",
  email_change: "Confirm Email Change",
  reauthentication: "Confirm reauthentication",
};

const esc = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

function body(m: AuthMail): { html: string; text: string } {
  const url = esc(m.confirmationUrl);
  const code = `<p>Alternatively, enter the code: ${esc(m.token)}</p>`;
  switch (m.kind) {
    case "signup":
      return {
        html: `<h2>Confirm your signup</h2>\n<p>Follow this link to confirm your user:</p>\n` +
          `<p><a href="${url}">Confirm your mail</a></p>\n${code}`,
        text: `Confirm your signup\n\nFollow this link to confirm your user: ${m.confirmationUrl}\n\n` +
          `Alternatively, enter the code: ${m.token}`,
      };
    case "invite":
      return {
        html: `<h2>You have been invited</h2>\n<p>You have been invited to create a user on ${
          esc(m.siteUrl)
        }. Follow this link to accept the invite:</p>\n<p><a href="${url}">Accept the invite</a></p>\n${code}`,
        text:
          `You have been invited to create a user on ${m.siteUrl}.\n\nAccept the invite: ${m.confirmationUrl}\n\n` +
          `Alternatively, enter the code: ${m.token}`,
      };
    case "magiclink":
      return {
        html:
          `<h2>Magic Link</h2>\n<p>Follow this link to login:</p>\n<p><a href="${url}">Log In</a></p>\n${code}`,
        text:
          `Magic Link\n\nFollow this link to login: ${m.confirmationUrl}\n\nAlternatively, enter the code: ${m.token}`,
      };
    case "recovery":
      return {
        html: `<h2>Reset Password</h2>\n<p>Follow this link to reset the password for your user:</p>\n` +
          `<p><a href="${url}">Reset Password</a></p>\n${code}`,
        text:
          `Reset Password\n\nFollow this link to reset the password for your user: ${m.confirmationUrl}\n\n` +
          `Alternatively, enter the code: ${m.token}`,
      };
    case "email_change":
      return {
        html:
          `<h2>Confirm Change of Email</h2>\n<p>Follow this link to confirm the update of your email from ${
            esc(m.email)
          } to ${esc(m.newEmail ?? "")}:</p>\n<p><a href="${url}">Change Email</a></p>\n${code}`,
        text:
          `Confirm Change of Email\n\nFollow this link to confirm the update of your email from ${m.email} to ${
            m.newEmail ?? ""
          }: ${m.confirmationUrl}\n\nAlternatively, enter the code: ${m.token}`,
      };
    case "reauthentication":
      return {
        html: `<h2>Confirm reauthentication</h2>\n<p>Enter the code: ${esc(m.token)}</p>`,
        text: `Confirm reauthentication\n\nEnter the code: ${m.token}`,
      };
  }
}

export async function sendAuthMail(transport: MailTransport | undefined, m: AuthMail): Promise<void> {
  if (!transport) {
    throw new AuthError(500, "unexpected_failure", `Error sending ${m.kind} email: no mail transport`);
  }
  const { html, text } = body(m);
  try {
    await transport({ to: m.to, subject: SUBJECTS[m.kind], html, text });
  } catch (err) {
    console.error("auth: sending mail failed", err);
    throw new AuthError(500, "unexpected_failure", `Error sending ${m.kind} email`);
  }
}

/** A transport posting to a Resend(-compatible) API, as the sandbox stand-in serves it. */
export function resendTransport(baseUrl: () => string | undefined, apiKey: string): MailTransport {
  return async (msg) => {
    const base = baseUrl();
    if (!base) throw new Error("the mail sandbox is not running");
    const res = await fetch(`${base.replace(/\/+$/, "")}/emails`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        from: AUTH_MAIL_FROM,
        to: [msg.to],
        subject: msg.subject,
        html: msg.html,
        text: msg.text,
      }),
    });
    const answer = await res.text();
    if (!res.ok) throw new Error(`mail sandbox answered ${res.status}: ${answer}`);
  };
}
