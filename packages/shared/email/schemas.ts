/**
 * Request and response schemas of email-api (spec "Email"): one body {action, ...params} per
 * action, the removed actions, and the records the actions answer with. Every action may name
 * the workspace (`workspaceId`, alias `workspace_id`); without it the caller's only workspace
 * is used. Bodies are strict: a key an action does not know (a typo, a made-up parameter) is a
 * 400 naming it, never ignored (docs/request-bodies.md).
 */
import { z } from "zod";
import { withAliases } from "../http/validate.ts";

const WORKSPACE_ALIAS = { workspace_id: "workspaceId" };

export const EMAIL_TYPES = ["transactional", "marketing", "notification"] as const;
export const LOG_STATUSES = ["queued", "sent", "delivered", "bounced", "complained", "failed"] as const;
/** Actions dropped when the provider changed on 2026-03-11: they answer 400 naming them. */
export const REMOVED_ACTIONS = [
  "verify-domain",
  "check-domain",
  "list-ses-domains",
  "sending-stats",
] as const;
/** Resend accepts at most 50 recipients per email. */
export const MAX_RECIPIENTS = 50;
export const LOGS_DEFAULT_LIMIT = 50;
export const LOGS_MAX_LIMIT = 200;
export const ANALYTICS_DEFAULT_DAYS = 30;
export const ANALYTICS_MAX_DAYS = 366;

const Email = z.email().max(320).transform((s) => s.toLowerCase());
const Recipients = z.union([Email.transform((e) => [e]), z.array(Email).min(1).max(MAX_RECIPIENTS)]);
/** Named when the caller belongs to several workspaces; `workspace_id` is its alias (below). */
const Workspace = { workspaceId: z.uuid().optional() };
/** Resend's tag rule: ASCII letters, digits, underscores and dashes, at most 256 characters. */
const TagPart = z.string().regex(/^[A-Za-z0-9_-]{1,256}$/, "only ASCII letters, digits, _ and -");
// A hostname: labels of letters, digits and dashes, with a dot and a TLD.
const Domain = z.string().trim().toLowerCase().regex(
  /^(?=.{3,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
  "must be a domain name such as mail.example.com",
);

export const SendEmail = z.strictObject({
  action: z.literal("send"),
  ...Workspace,
  to: Recipients,
  /** Optional: without it, the workspace's default verified domain, else the platform sender (sender.ts). */
  from: Email.optional(),
  fromName: z.string().trim().min(1).max(200).regex(
    /^[^<>"\r\n]*$/,
    'must not contain <, >, " or line breaks',
  )
    .optional(),
  subject: z.string().min(1).max(998).regex(/^[^\r\n]*$/, "must be one line").optional(),
  html: z.string().min(1).max(1_000_000).optional(),
  text: z.string().min(1).max(1_000_000).optional(),
  templateSlug: z.string().min(1).max(100).optional(),
  variables: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  cc: z.array(Email).max(MAX_RECIPIENTS).optional(),
  bcc: z.array(Email).max(MAX_RECIPIENTS).optional(),
  replyTo: Email.optional(),
  tags: z.record(TagPart, TagPart).optional(),
  emailType: z.enum(EMAIL_TYPES).default("transactional"),
}).superRefine((b, ctx) => {
  const content = b.html !== undefined || b.text !== undefined;
  if (!content && !b.templateSlug) {
    ctx.addIssue({ code: "custom", path: ["html"], message: "Either html/text or templateSlug is required" });
  }
  if (content && b.templateSlug) {
    ctx.addIssue({
      code: "custom",
      path: ["templateSlug"],
      message: "Give either html/text or templateSlug",
    });
  }
  if (!b.templateSlug && !b.subject) {
    ctx.addIssue({ code: "custom", path: ["subject"], message: "subject is required without a template" });
  }
});
export type SendEmailInput = z.infer<typeof SendEmail>;

export const AddDomain = z.strictObject({ action: z.literal("add-domain"), ...Workspace, domain: Domain });
export const MarkDomainVerified = z.strictObject({
  action: z.literal("mark-domain-verified"),
  ...Workspace,
  domain: Domain,
});
export const ListDomains = z.strictObject({ action: z.literal("domains"), ...Workspace });
export const ListLogs = z.strictObject({
  action: z.literal("logs"),
  ...Workspace,
  status: z.enum(LOG_STATUSES).optional(),
  emailType: z.enum(EMAIL_TYPES).optional(),
  limit: z.coerce.number().int().min(1).max(LOGS_MAX_LIMIT).default(LOGS_DEFAULT_LIMIT),
});
export type ListLogsInput = z.infer<typeof ListLogs>;

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}(T.*)?$/, "must be a date (YYYY-MM-DD or ISO 8601)")
  .refine((s) => !Number.isNaN(Date.parse(s)), "must be a valid date")
  .transform((s) => s.slice(0, 10));
export const Analytics = z.strictObject({
  action: z.literal("analytics"),
  ...Workspace,
  dateRange: z.strictObject({ start: Day, end: Day }).refine((r) => r.start <= r.end, {
    message: "start must not be after end",
  }).optional(),
});
export type AnalyticsInput = z.infer<typeof Analytics>;

/**
 * The body of every action. `workspace_id` (the spelling the spec gives the field elsewhere) is
 * accepted as an alias of `workspaceId`; both in one body are refused.
 */
export const EmailApiRequest = withAliases(
  z.discriminatedUnion("action", [
    SendEmail,
    AddDomain,
    MarkDomainVerified,
    ListDomains,
    ListLogs,
    Analytics,
  ]),
  WORKSPACE_ALIAS,
);
export type EmailApiRequest = z.infer<typeof EmailApiRequest>;

// ---- responses ----

export const DomainRecord = z.object({
  id: z.uuid(),
  domain: z.string(),
  verification_status: z.enum(["pending", "verified"]),
  is_default: z.boolean(),
  bounce_rate: z.number(),
  complaint_rate: z.number(),
  reputation_status: z.enum(["good", "warning", "poor"]),
  created_at: z.string(),
});
export type DomainRecord = z.infer<typeof DomainRecord>;

export const EmailLog = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  user_id: z.uuid().nullable(),
  template_id: z.uuid().nullable(),
  provider_message_id: z.string().nullable(),
  from_email: z.string(),
  from_name: z.string().nullable(),
  to_emails: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  reply_to: z.string().nullable(),
  subject: z.string(),
  email_type: z.enum(EMAIL_TYPES),
  status: z.enum(LOG_STATUSES),
  tags: z.record(z.string(), z.unknown()),
  error_message: z.string().nullable(),
  bounce_type: z.string().nullable(),
  open_count: z.number(),
  click_count: z.number(),
  sent_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  bounced_at: z.string().nullable(),
  complained_at: z.string().nullable(),
  opened_at: z.string().nullable(),
  clicked_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  created_at: z.string(),
});
export const LOG_COLUMNS = Object.keys(EmailLog.shape).join(", ");

export const DailyData = z.object({
  date: z.string(),
  sent: z.number(),
  delivered: z.number(),
  bounced: z.number(),
  complained: z.number(),
  opened: z.number(),
  clicked: z.number(),
});

export const AnalyticsResult = z.object({
  success: z.literal(true),
  totalSent: z.number(),
  totalDelivered: z.number(),
  totalBounced: z.number(),
  totalComplained: z.number(),
  totalOpened: z.number(),
  totalClicked: z.number(),
  deliveryRate: z.number(),
  bounceRate: z.number(),
  complaintRate: z.number(),
  openRate: z.number(),
  clickRate: z.number(),
  dailyData: z.array(DailyData),
});
export type AnalyticsResult = z.infer<typeof AnalyticsResult>;

export const EmailApiResponse = z.union([
  z.object({ success: z.literal(true), messageId: z.string(), logId: z.uuid() }),
  z.object({
    success: z.literal(true),
    domain: DomainRecord.pick({ id: true, domain: true, verification_status: true, created_at: true }),
    message: z.string(),
  }),
  z.object({ success: z.literal(true), domains: z.array(DomainRecord) }),
  z.object({ success: z.literal(true), logs: z.array(EmailLog) }),
  AnalyticsResult,
  z.object({ success: z.literal(true) }),
]);
