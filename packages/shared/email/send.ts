/**
 * The send action's stages: resolve the content (html/text as written, or a template rendered
 * with the variables) -> resolve the sender (sender.ts: `from` at a verified domain of the
 * workspace; without `from`, the workspace's default verified domain, else the platform's own
 * sender) -> check the recipients
 * against the suppression list -> log the email as queued -> hand it to the provider -> record
 * the outcome (sent with the provider's message id, or failed) with email_apply_event, which
 * also counts it in the day's analytics.
 *
 * Suppression: hard-bounced and complained addresses are never mailed; unsubscribed addresses
 * get no marketing email. A suppressed recipient refuses the whole send (422
 * recipient_suppressed), and the refusal is logged as a failed email.
 */
import { DomainError } from "../errors.ts";
import { one, rows } from "../supabase/postgrest.ts";
import type { SendEmailInput } from "./schemas.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { type EmailTemplate, type RenderedEmail, renderTemplate } from "./templates.ts";
import { resolveSender } from "./sender.ts";
import { sendWithProvider } from "./provider.ts";

export interface SendResult {
  messageId: string;
  logId: string;
}

async function content(
  s: WorkspaceScope,
  input: SendEmailInput,
): Promise<RenderedEmail & { templateId: string | null }> {
  if (!input.templateSlug) {
    return { subject: input.subject!, html: input.html, text: input.text, templateId: null };
  }
  const r = await s.db.from("email_templates").select(
    "id, subject, html_content, text_content, variables, email_type",
  )
    .eq("workspace_id", s.workspaceId).eq("slug", input.templateSlug).eq("is_active", true).maybeSingle();
  const template = rows(r, "Email template") as EmailTemplate | null;
  if (!template) {
    throw DomainError.notFound(`Template not found: ${input.templateSlug}`, "template_not_found");
  }
  return { ...renderTemplate(template, input.variables ?? {}, input.subject), templateId: template.id };
}

/** The recipients the workspace must not mail with this email type. */
async function suppressed(s: WorkspaceScope, recipients: string[], emailType: string): Promise<string[]> {
  const reasons = emailType === "marketing"
    ? ["hard_bounce", "complaint", "unsubscribe"]
    : ["hard_bounce", "complaint"];
  const r = await s.service.from("email_suppressions").select("email").eq("workspace_id", s.workspaceId)
    .in("email", recipients).in("reason", reasons);
  return [...new Set((rows(r, "Email suppression") as { email: string }[]).map((x) => x.email))];
}

async function applyEvent(s: WorkspaceScope, logId: string, event: string, details: Record<string, unknown>) {
  rows(
    await s.service.rpc("email_apply_event", {
      p_log_id: logId,
      p_event: event,
      p_at: new Date().toISOString(),
      p_details: details,
    }),
    "Email log",
  );
}

export async function sendEmail(s: WorkspaceScope, input: SendEmailInput): Promise<SendResult> {
  const mail = await content(s, input);
  const sender = await resolveSender(s, input);
  const cc = input.cc ?? [];
  const bcc = input.bcc ?? [];
  const blocked = await suppressed(s, [...new Set([...input.to, ...cc, ...bcc])], input.emailType);

  const log = one(
    await s.service.from("email_logs").insert({
      workspace_id: s.workspaceId,
      user_id: s.userId,
      domain_id: sender.domainId,
      template_id: mail.templateId,
      from_email: sender.address,
      from_name: sender.name,
      to_emails: input.to,
      cc,
      bcc,
      reply_to: input.replyTo ?? null,
      subject: mail.subject,
      email_type: input.emailType,
      tags: input.tags ?? {},
      variables: input.variables ?? {},
    }).select("id").single(),
    "Email log",
  ) as { id: string };

  if (blocked.length) {
    const message = `Suppressed recipients: ${blocked.join(", ")}`;
    await applyEvent(s, log.id, "failed", { message });
    throw new DomainError(
      "unprocessable",
      "recipient_suppressed",
      `Not sent: ${blocked.join(", ")} ${blocked.length === 1 ? "is" : "are"} on the suppression list ` +
        `(hard bounce or complaint${input.emailType === "marketing" ? ", or unsubscribed" : ""})`,
      { suppressed: blocked, logId: log.id },
    );
  }

  let messageId: string;
  try {
    messageId = await sendWithProvider({
      from: sender.name ? `${sender.name} <${sender.address}>` : sender.address,
      to: input.to,
      cc,
      bcc,
      replyTo: input.replyTo,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      tags: input.tags ?? {},
      logId: log.id,
    });
  } catch (err) {
    // The log keeps why it failed; the error itself goes on to the caller.
    await applyEvent(s, log.id, "failed", { message: err instanceof Error ? err.message : String(err) });
    throw err;
  }
  await applyEvent(s, log.id, "sent", { provider_message_id: messageId });
  return { messageId, logId: log.id };
}
