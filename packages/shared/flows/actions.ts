/**
 * Stage 3 for action nodes, act: each action type calls its domain module directly (messaging's
 * deliver, email's sendEmail, the quote PDF store, safe_fetch), with the service client and
 * always scoped to the flow's workspace: an SMS goes through the workspace's channel, an email
 * from a verified domain of the workspace, a quote must belong to the workspace, a notification
 * must be for a member of it. The dry-run executor acts on nothing.
 */
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import { deliver, type MessagingContext, twilioProvider, webhookUrl } from "../messaging/mod.ts";
import { messagingClock } from "../messaging/clock.ts";
import { SendEmail } from "../email/schemas.ts";
import { sendEmail } from "../email/send.ts";
import { quoteDocument } from "../quotes/requests.ts";
import { quotePdf } from "../quotes/pdf_store.ts";
import { safeFetch, type SafeFetchOptions } from "../net/safe_fetch.ts";
import { describeIssues } from "../http/validate.ts";
import type { ActionExecutor } from "./engine.ts";
import type { FlowNode } from "./graph.ts";
import type { WorkspaceScope } from "../auth/scope.ts";

export interface ActionDeps {
  service: SupabaseClient;
  workspaceId: string;
  /** Who started the run (null: the scheduler, a webhook, an event). */
  userId: string | null;
  /** Tests inject name resolution and fetch for the http_request node. */
  fetchOptions?: Pick<SafeFetchOptions, "resolve" | "fetch">;
}

type Config = Record<string, unknown>;

const str = (v: unknown, what: string): string => {
  if (typeof v === "string" && v.trim() !== "") return v.trim();
  if (typeof v === "number") return String(v);
  throw DomainError.invalid(`${what} must be a non-empty text after templates are resolved`);
};

function scalars(v: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === "string" || typeof x === "number" || typeof x === "boolean") out[k] = x;
      else if (x !== null && x !== undefined) out[k] = JSON.stringify(x);
    }
  }
  return out;
}

async function sendSms(d: ActionDeps, c: Config) {
  const ctx: MessagingContext = {
    db: d.service,
    service: d.service,
    workspaceId: d.workspaceId,
    userId: d.userId,
    role: "service",
    provider: () => twilioProvider(),
    statusCallbackUrl: `${webhookUrl()}?type=status`,
    clock: messagingClock(),
  };
  const [r] = await deliver(ctx, {
    channel: (c.channel as "sms" | "whatsapp") ?? "sms",
    from: typeof c.from === "string" && c.from ? c.from : undefined,
    recipients: [{ to: str(c.to, "to") }],
    content: typeof c.content === "string" ? c.content : undefined,
    templateSlug: typeof c.templateSlug === "string" ? c.templateSlug : undefined,
    variables: scalars(c.variables),
    messageType: "transactional",
    tags: { source: "flow" },
    single: true,
  });
  if (r.status !== "sent") throw new DomainError("upstream", "provider_error", r.error ?? "SMS not sent");
  return { message_id: r.messageId, log_id: r.logId, to: r.to, status: r.status };
}

async function email(d: ActionDeps, input: Config) {
  const parsed = SendEmail.safeParse({ action: "send", ...input });
  if (!parsed.success) throw DomainError.invalid(`Invalid email: ${describeIssues(parsed.error.issues)}`);
  const scope: WorkspaceScope = {
    workspaceId: d.workspaceId,
    userId: d.userId,
    role: "service",
    db: d.service,
    service: d.service,
  };
  const r = await sendEmail(scope, parsed.data);
  return { message_id: r.messageId, log_id: r.logId };
}

async function httpRequest(d: ActionDeps, c: Config) {
  const method = (c.method as string) ?? "GET";
  const body = c.body === undefined || method === "GET"
    ? undefined
    : typeof c.body === "string"
    ? c.body
    : JSON.stringify(c.body);
  const headers = { ...(c.headers as Record<string, string> | undefined) };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
    headers["content-type"] = "application/json";
  }
  const res = await safeFetch(str(c.url, "url"), {
    method,
    headers,
    body,
    timeoutMs: (c.timeout_ms as number | undefined) ?? 10_000,
    maxBytes: 256 * 1024,
    ...d.fetchOptions,
  });
  let parsed: unknown = res.body;
  if ((res.headers["content-type"] ?? "").includes("json")) {
    try {
      parsed = JSON.parse(res.body);
    } catch { /* kept as text */ }
  }
  return { status: res.status, ok: res.status < 400, body: parsed, url: res.url };
}

async function notify(d: ActionDeps, c: Config) {
  const userId = str(c.user_id, "user_id");
  if (!/^[0-9a-f-]{36}$/i.test(userId)) throw DomainError.invalid(`user_id is not a uuid: ${userId}`);
  const member = rows(
    await d.service.from("workspace_members").select("user_id").eq("workspace_id", d.workspaceId)
      .eq("user_id", userId).limit(1),
  ) as unknown[];
  if (member.length === 0) {
    throw DomainError.forbidden(`User ${userId} is not a member of the flow's workspace`);
  }
  const r = rows(
    await d.service.from("notifications").insert({
      user_id: userId,
      workspace_id: d.workspaceId,
      type: (c.type as string) || "info",
      title: str(c.title, "title"),
      message: typeof c.message === "string" ? c.message : null,
      data: c.data ?? {},
    }).select("id").single(),
  ) as { id: string };
  return { notification_id: r.id };
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );

async function sendQuote(d: ActionDeps, c: Config) {
  const quoteId = str(c.quote_id, "quote_id");
  if (!/^[0-9a-f-]{36}$/i.test(quoteId)) throw DomainError.invalid(`quote_id is not a uuid: ${quoteId}`);
  const found = rows(
    await d.service.from("quotes").select("id").eq("id", quoteId).eq("workspace_id", d.workspaceId).limit(1),
  ) as unknown[];
  if (found.length === 0) throw DomainError.notFound(`Quote ${quoteId} not found in the flow's workspace`);
  const doc = await quoteDocument(d.service, quoteId);
  const { path, url } = await quotePdf(d.service, doc, false);
  const number = doc.quote.quote_number;
  const intro = typeof c.message === "string" && c.message ? `<p>${escapeHtml(c.message)}</p>` : "";
  const sent = await email(d, {
    to: c.to,
    from: c.from,
    subject: (c.subject as string) || `Quote ${number}`,
    html: `${intro}<p><a href="${escapeHtml(url)}">Quote ${escapeHtml(String(number))} (PDF)</a></p>`,
    text: `${typeof c.message === "string" ? c.message + "\n\n" : ""}Quote ${number}: ${url}`,
  });
  return { ...sent, quote_number: number, pdf_url: url, pdf_storage_path: path };
}

/** The executor of a real run: every action fires. */
export function liveExecutor(d: ActionDeps): ActionExecutor {
  return (node: FlowNode, c: Config) => {
    switch (node.type) {
      case "send_sms":
        return sendSms(d, c);
      case "send_email":
        return email(d, { to: c.to, from: c.from, subject: c.subject, html: c.html, text: c.text });
      case "http_request":
        return httpRequest(d, c);
      case "create_notification":
        return notify(d, c);
      case "send_quote":
        return sendQuote(d, c);
      default:
        throw DomainError.internal(`No executor for node type ${node.type}`);
    }
  };
}

/** The executor of a test run: nothing is sent, charged or written. */
export const dryRunExecutor: ActionExecutor = (node) => Promise.resolve({ dry_run: true, action: node.type });
