/**
 * messaging-api request bodies (spec "Messaging" under Endpoints): {action, ...params}, one
 * schema per action, with both documented parameter spellings (variables / templateVariables,
 * channelType / channel, dateRange / startDate+endDate, templateSlug / templateId). `workspaceId`
 * (alias `workspace_id`) names the workspace when the caller belongs to several; it is only
 * ever checked against the caller's memberships. Bodies are strict: a key the action does not
 * know (a typo, a made-up parameter) is a 400 naming it, never ignored (docs/request-bodies.md).
 */
import { z } from "zod";
import { withAliases } from "../http/validate.ts";

const WORKSPACE_ALIAS = { workspace_id: "workspaceId" };

export const ChannelTypeSchema = z.enum(["sms", "whatsapp"]);
export const MessageType = z.enum(["transactional", "marketing", "otp", "notification"]);
const VarValue = z.union([z.string(), z.number(), z.boolean()]);
export const VariablesSchema = z.record(z.string(), VarValue);
const Tags = z.union([z.record(z.string(), z.unknown()), z.array(z.string())]);
const Phone = z.string().min(1).max(40);
const Content = z.string().min(1).max(1600);
/** Named when the caller belongs to several workspaces; `workspace_id` is its alias (below). */
const base = { workspaceId: z.uuid().optional() };

const Send = z.strictObject({
  ...base,
  action: z.literal("send"),
  channel: ChannelTypeSchema.default("sms"),
  to: z.union([Phone, z.array(Phone).min(1).max(100)]),
  from: Phone.optional(),
  content: Content.optional(),
  templateSlug: z.string().min(1).optional(),
  templateId: z.uuid().optional(),
  variables: VariablesSchema.optional(),
  templateVariables: VariablesSchema.optional(),
  mediaUrl: z.union([z.url(), z.array(z.url()).max(10)]).optional(),
  messageType: MessageType.default("transactional"),
  tags: Tags.optional(),
  whatsappContentSid: z.string().regex(/^HX[0-9a-fA-F]{32}$/, "a Content SID (HX...)").optional(),
});

const SendBulk = z.strictObject({
  ...base,
  action: z.literal("send-bulk"),
  channel: ChannelTypeSchema.default("sms"),
  recipients: z.array(z.strictObject({ to: Phone, variables: VariablesSchema.optional() })).min(1).max(
    10_000,
  ),
  from: Phone.optional(),
  content: Content.optional(),
  templateSlug: z.string().min(1).optional(),
  templateId: z.uuid().optional(),
  variables: VariablesSchema.optional(),
  templateVariables: VariablesSchema.optional(),
  mediaUrl: z.union([z.url(), z.array(z.url()).max(10)]).optional(),
  messageType: MessageType.default("marketing"),
  tags: Tags.optional(),
  whatsappContentSid: z.string().regex(/^HX[0-9a-fA-F]{32}$/, "a Content SID (HX...)").optional(),
});

/** A bulk's progress and each recipient's outcome, a page of them in the bulk's order. */
const SendBulkStatus = z.strictObject({
  ...base,
  action: z.literal("send-bulk-status"),
  bulkId: z.uuid(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
});

const ByType = { channelType: ChannelTypeSchema.optional() };

const Logs = z.strictObject({
  ...base,
  action: z.literal("logs"),
  channelType: ChannelTypeSchema.optional(),
  channel: ChannelTypeSchema.optional(),
  status: z.enum(["queued", "sent", "delivered", "read", "failed"]).optional(),
  messageType: MessageType.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

const DateLike = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "a date (YYYY-MM-DD or ISO 8601)");

const Analytics = z.strictObject({
  ...base,
  action: z.literal("analytics"),
  ...ByType,
  dateRange: z.strictObject({ start: DateLike, end: DateLike }).optional(),
  startDate: DateLike.optional(),
  endDate: DateLike.optional(),
});

const SendTest = z.strictObject({
  ...base,
  action: z.literal("send-test"),
  testNumber: Phone,
  campaignId: z.uuid().optional(),
  channel: ChannelTypeSchema.default("sms"),
  content: Content.optional(),
  variables: VariablesSchema.optional(),
}).refine((b) => b.campaignId || b.content, "send-test needs campaignId, or channel and content");

/**
 * The body of every action. `workspace_id` (the spelling the spec gives the field elsewhere) is
 * accepted as an alias of `workspaceId`; both in one body are refused.
 */
export const MessagingRequest = withAliases(
  z.discriminatedUnion("action", [
    Send,
    SendBulk,
    SendBulkStatus,
    z.strictObject({ ...base, action: z.literal("channels"), ...ByType }),
    z.strictObject({ ...base, action: z.literal("templates"), ...ByType }),
    Logs,
    Analytics,
    z.strictObject({ ...base, action: z.literal("balance") }),
    SendTest,
    z.strictObject({ ...base, action: z.literal("sync-channels") }),
    z.strictObject({ ...base, action: z.literal("get-settings") }),
    z.strictObject({
      ...base,
      action: z.literal("update-settings"),
      settings: z.record(z.string(), z.unknown()),
    }),
  ]),
  WORKSPACE_ALIAS,
);

export type MessagingRequest = z.infer<typeof MessagingRequest>;
export type Action = MessagingRequest["action"];
export type ActionBody<A extends Action> = Extract<MessagingRequest, { action: A }>;
export type SendBody = ActionBody<"send">;
export type SendBulkBody = ActionBody<"send-bulk">;
