/**
 * The read side of email-api: the send log (logs, newest first, filters status and emailType,
 * limit 50 by default) and analytics over a date range from the daily counters.
 *
 * Analytics: totals are the sums of email_analytics over the range (UTC days, both ends
 * included; the last 30 days when no range is given, at most 366 days). Rates are percentages
 * with two decimals: deliveryRate and bounceRate of sent, complaintRate, openRate and clickRate
 * of delivered; 0 when the base is 0. dailyData has one entry per day of the range, zeros
 * included.
 */
import { DomainError } from "../errors.ts";
import { rows } from "../supabase/postgrest.ts";
import {
  ANALYTICS_DEFAULT_DAYS,
  ANALYTICS_MAX_DAYS,
  type AnalyticsInput,
  type AnalyticsResult,
  type ListLogsInput,
  LOG_COLUMNS,
} from "./schemas.ts";
import type { WorkspaceScope } from "../auth/scope.ts";

export async function listLogs(s: WorkspaceScope, q: ListLogsInput) {
  let query = s.db.from("email_logs").select(LOG_COLUMNS).eq("workspace_id", s.workspaceId);
  if (q.status) query = query.eq("status", q.status);
  if (q.emailType) query = query.eq("email_type", q.emailType);
  const r = await query.order("created_at", { ascending: false }).order("id", { ascending: false }).limit(
    q.limit,
  );
  return rows(r, "Email log");
}

const DAY_MS = 86_400_000;
const COUNTERS = ["sent", "delivered", "bounced", "complained", "opened", "clicked"] as const;
type Day = { date: string } & Record<(typeof COUNTERS)[number], number>;

export function rate(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;
}

function days(start: string, end: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += DAY_MS) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

export function defaultRange(now = new Date()): { start: string; end: string } {
  const end = now.toISOString().slice(0, 10);
  const start = new Date(Date.parse(`${end}T00:00:00Z`) - (ANALYTICS_DEFAULT_DAYS - 1) * DAY_MS).toISOString()
    .slice(0, 10);
  return { start, end };
}

export async function emailAnalytics(s: WorkspaceScope, q: AnalyticsInput): Promise<AnalyticsResult> {
  const range = q.dateRange ?? defaultRange();
  const dates = days(range.start, range.end);
  if (dates.length > ANALYTICS_MAX_DAYS) {
    throw DomainError.invalid(
      `dateRange spans ${dates.length} days; at most ${ANALYTICS_MAX_DAYS} are allowed`,
    );
  }
  const r = await s.db.from("email_analytics").select(`date, ${COUNTERS.join(", ")}`)
    .eq("workspace_id", s.workspaceId).gte("date", range.start).lte("date", range.end);
  const byDate = new Map(
    (rows(r, "Email analytics") as unknown as Day[]).map((d) => [d.date.slice(0, 10), d]),
  );
  const dailyData: Day[] = dates.map((date) => {
    const d = byDate.get(date);
    return { date, ...Object.fromEntries(COUNTERS.map((k) => [k, Number(d?.[k] ?? 0)])) } as Day;
  });
  const total = (k: (typeof COUNTERS)[number]) => dailyData.reduce((n, d) => n + d[k], 0);
  const [sent, delivered, bounced, complained, opened, clicked] = COUNTERS.map(total);
  return {
    success: true,
    totalSent: sent,
    totalDelivered: delivered,
    totalBounced: bounced,
    totalComplained: complained,
    totalOpened: opened,
    totalClicked: clicked,
    deliveryRate: rate(delivered, sent),
    bounceRate: rate(bounced, sent),
    complaintRate: rate(complained, delivered),
    openRate: rate(opened, delivered),
    clickRate: rate(clicked, delivered),
    dailyData,
  };
}
