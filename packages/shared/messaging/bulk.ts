/**
 * send-bulk on the `messaging_bulk` queue (Supabase Queues; migration
 * 20260221011200_messaging_bulk_queue.sql has the SQL half and why):
 *   enqueueBulk (the request): prepare as send does -> record the bulk and every recipient
 *     (opted-out and invalid ones settled) and enqueue it, atomically -> kick the worker ->
 *     answer with what is known now (queued / opted_out / failed).
 *   runBulkWorker (messaging-bulk-worker, fired by pg_cron every minute and by the kick): read a
 *     bulk's message with a lease -> reconcile claims a dead worker left -> claim slots (pacing
 *     and quota in SQL) -> send each at its slot time, a few in flight -> record the sid -> after
 *     SLICE_MS let the message go (the next run continues) or archive it when none is left.
 *   bulkStatus (send-bulk-status): the bulk's progress and each recipient's outcome.
 * Every bulk goes through the queue, however small: one code path, one place where pacing,
 * quota and exactly-once are enforced.
 */
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { readInGroups, readPages, rows } from "../supabase/postgrest.ts";
import type { Clock } from "./clock.ts";
import type { ChannelRow, MessagingContext } from "./context.ts";
import { type ChannelType, toProviderAddress } from "./phone.ts";
import { type MessagingProvider, ProviderError, type SentMessage } from "./provider.ts";
import { OPTED_OUT_ERROR, outgoingMessage, type Planned, prepareSend, type SendPlan } from "./send.ts";

/** How long a read leases a bulk: past any slice (SLICE_MS) plus a provider call's timeout. */
export const LEASE_SECONDS = 120;
/** Sending time per worker run, well inside the Edge Runtime's 150 s answer and 400 s life. */
export const SLICE_MS = 50_000;
/** Recipients claimed per round trip, and how far ahead their slots may lie. */
const CLAIM_BATCH = 25;
const CLAIM_HORIZON_MS = 2_000;
/** Provider calls in flight per worker. */
const CONCURRENCY = 8;

export type BulkRecipientStatus = "queued" | "sending" | "sent" | "failed" | "opted_out";

export interface BulkAccepted {
  bulkId: string;
  total: number;
  queued: number;
  failed: number;
  optedOut: number;
  results: { to: string; status: "queued" | "failed" | "opted_out"; error?: string }[];
}

/**
 * Wakes the worker right after a bulk is recorded: pg_net POSTs to messaging-bulk-worker with
 * the service-role key from Vault (public.call_edge_function), sent once the call commits.
 * Tests that drive the worker themselves install their own (useBulkWorkerKick).
 */
export type BulkWorkerKick = (service: SupabaseClient) => Promise<void>;

const pgNetKick: BulkWorkerKick = async (service) => {
  const { error } = await service.rpc("call_edge_function", {
    p_path: "/functions/v1/messaging-bulk-worker",
    p_body: { kick: true },
    p_timeout_ms: 120_000,
  });
  // The bulk is on the queue either way; the per-minute job takes it if the kick is lost.
  if (error) console.error(`[messaging-bulk] could not kick the worker: ${error.message}`);
};

let kick: BulkWorkerKick = pgNetKick;

export function useBulkWorkerKick(k: BulkWorkerKick | null): void {
  kick = k ?? pgNetKick;
}

export async function enqueueBulk(ctx: MessagingContext, plan: SendPlan): Promise<BulkAccepted> {
  const { channel, template, contentSid, planned, blocked } = await prepareSend(ctx, plan);
  const results: BulkAccepted["results"] = [];
  const recipients = planned.map((p, position) => {
    const to = p.to;
    if ("status" in p) {
      results.push({ to, status: "failed", error: p.error });
      return { position, to_number: to, status: "failed", error: p.error };
    }
    const q = p as Planned;
    const optedOut = blocked.has(to);
    results.push(optedOut ? { to, status: "opted_out", error: OPTED_OUT_ERROR } : { to, status: "queued" });
    return {
      position,
      to_number: to,
      variables: q.variables,
      content: q.content,
      content_variables: q.contentVariables ?? null,
      status: optedOut ? "opted_out" : "queued",
      error: optedOut ? OPTED_OUT_ERROR : null,
    };
  });
  const mediaUrl = plan.mediaUrl ?? template?.media_url ?? null;
  const bulkId = crypto.randomUUID();
  const { error } = await ctx.service.rpc("messaging_bulk_enqueue", {
    p_bulk: {
      id: bulkId,
      workspace_id: ctx.workspaceId,
      user_id: ctx.userId,
      channel_id: channel.id,
      channel_type: plan.channel,
      template_id: template?.id ?? null,
      message_type: plan.messageType,
      content_sid: contentSid ?? null,
      media_url: mediaUrl === null ? null : Array.isArray(mediaUrl) ? mediaUrl : [mediaUrl],
      tags: plan.tags ?? {},
    },
    p_recipients: recipients,
  });
  if (error) throw DomainError.internal(`Could not queue the bulk: ${error.message}`);
  await kick(ctx.service);
  const count = (s: string) => results.filter((r) => r.status === s).length;
  console.log(
    `[messaging-bulk] bulk ${bulkId} queued: ${count("queued")} to send, ${count("opted_out")} opted out, ` +
      `${count("failed")} refused`,
  );
  return {
    bulkId,
    total: results.length,
    queued: count("queued"),
    failed: count("failed"),
    optedOut: count("opted_out"),
    results,
  };
}

// ---- the worker ----

export interface BulkWorkerDeps {
  service: SupabaseClient;
  provider: () => MessagingProvider;
  clock: Clock;
  statusCallbackUrl: string;
  /** Sending time of this run (SLICE_MS). */
  sliceMs?: number;
}

export interface SliceReport {
  bulkId: string;
  sent: number;
  failed: number;
  /** Claims a dead worker left: found at the provider (adopted) or put back (requeued). */
  adopted: number;
  requeued: number;
  completed: boolean;
}

interface Lease {
  msg_id: number;
  read_ct: number;
  bulk_id: string;
}

interface Claim {
  id: number;
  to: string;
  content: string | null;
  content_variables: Record<string, string> | null;
  log_id: string;
  at: string;
}

type ClaimResult =
  | { state: "claimed"; claims: Claim[]; channel: Pick<ChannelRow, "channel_type" | "sender_id" | "config"> }
  | { state: "wait"; retry_at: string }
  | { state: "empty" | "quota" | "fenced" };

interface BulkRow {
  id: string;
  channel_id: string | null;
  channel_type: ChannelType;
  content_sid: string | null;
  media_url: string[] | null;
}

async function rpc<T>(service: SupabaseClient, fn: string, args: Record<string, unknown>): Promise<T> {
  const { data, error } = await service.rpc(fn, args);
  if (error) throw DomainError.internal(`${fn} failed: ${error.message}`);
  return data as T;
}

/** One worker run: bulks in queue order, each for what is left of the run's time. */
export async function runBulkWorker(deps: BulkWorkerDeps): Promise<{ slices: SliceReport[] }> {
  const deadline = deps.clock.now() + (deps.sliceMs ?? SLICE_MS);
  const slices: SliceReport[] = [];
  const seen = new Set<string>();
  while (deps.clock.now() < deadline) {
    const [lease] = await rpc<Lease[]>(deps.service, "messaging_bulk_read", { p_vt: LEASE_SECONDS });
    if (!lease) break;
    if (seen.has(lease.bulk_id)) {
      // Back from this run's own release (its next slot is past the run): the next run's.
      await rpc(deps.service, "messaging_bulk_release", { p_msg_id: lease.msg_id, p_delay: 0 });
      break;
    }
    seen.add(lease.bulk_id);
    slices.push(await runSlice(deps, { ...lease, msg_id: Number(lease.msg_id) }, deadline));
  }
  return { slices };
}

async function runSlice(deps: BulkWorkerDeps, lease: Lease, deadline: number): Promise<SliceReport> {
  const { service, clock } = deps;
  const report: SliceReport = {
    bulkId: lease.bulk_id,
    sent: 0,
    failed: 0,
    adopted: 0,
    requeued: 0,
    completed: false,
  };
  const bulk = rows(
    await service.from("messaging_bulks").select("id, channel_id, channel_type, content_sid, media_url")
      .eq("id", lease.bulk_id).maybeSingle(),
  ) as BulkRow | null;
  const iso = (ms: number) => new Date(ms).toISOString();
  if (bulk) await reconcile(deps, lease, bulk, report);

  const inflight = new Set<Promise<void>>();
  let failure: unknown = null;
  // Whether to let the message go at the end (visible at once: the next run continues), or not
  // (null: fenced, a newer lease owns it).
  let release: 0 | null = 0;
  const log = (how: string) =>
    console.log(
      `[messaging-bulk] bulk ${lease.bulk_id} (lease ${lease.read_ct}) ${how}: sent ${report.sent}, ` +
        `failed ${report.failed}, adopted ${report.adopted}, requeued ${report.requeued}`,
    );
  try {
    while (bulk && failure === null) {
      const now = clock.now();
      if (now >= deadline) break;
      const res = await rpc<ClaimResult>(service, "messaging_bulk_claim", {
        p_msg_id: lease.msg_id,
        p_lease: lease.read_ct,
        p_bulk_id: bulk.id,
        p_now: iso(now),
        p_max: CLAIM_BATCH,
        p_horizon_ms: CLAIM_HORIZON_MS,
      });
      if (res.state === "fenced") {
        release = null; // a newer read owns the bulk
        break;
      }
      if (res.state === "empty") break;
      if (res.state !== "claimed" && res.state !== "wait") continue; // quota: the rest failed
      if (res.state === "wait") {
        const retry = Date.parse(res.retry_at);
        if (retry <= now || retry >= deadline) break; // the next slot is the next run's
        await clock.sleep(retry - now);
        continue;
      }
      for (const claim of res.claims) {
        const wait = Date.parse(claim.at) - clock.now();
        if (wait > 0) await clock.sleep(wait);
        while (inflight.size >= CONCURRENCY) await Promise.race(inflight);
        if (failure !== null) break;
        const p: Promise<void> = sendClaim(deps, bulk, res.channel, claim, report)
          .catch((err) => {
            failure ??= err;
          })
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
    }
  } finally {
    await Promise.all(inflight);
  }
  if (failure !== null) {
    // The run dies as a killed worker would: its claims stay `sending` until the lease ends and
    // the next reader reconciles them.
    log("stopped by an error");
    throw failure;
  }
  if (release === null) {
    log("fenced: a newer lease owns it");
    return report;
  }
  report.completed = await rpc<boolean>(service, "messaging_bulk_finish", {
    p_msg_id: lease.msg_id,
    p_bulk_id: lease.bulk_id,
    p_now: iso(clock.now()),
  });
  if (!report.completed) {
    await rpc(service, "messaging_bulk_release", { p_msg_id: lease.msg_id, p_delay: release });
  }
  log(report.completed ? "completed" : "slice done");
  return report;
}

async function sendClaim(
  deps: BulkWorkerDeps,
  bulk: BulkRow,
  channel: Pick<ChannelRow, "channel_type" | "sender_id" | "config">,
  claim: Claim,
  report: SliceReport,
): Promise<void> {
  const message = outgoingMessage(
    bulk.channel_type,
    channel,
    { to: claim.to, content: claim.content, contentVariables: claim.content_variables ?? undefined },
    bulk.content_sid,
    bulk.media_url,
    deps.statusCallbackUrl,
  );
  let outcome: Record<string, unknown>;
  try {
    outcome = sentOutcome(await deps.provider().send(message), deps.clock.now());
    report.sent++;
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    outcome = {
      status: "failed",
      error_code: err.code,
      error_message: err.message,
      at: new Date(deps.clock.now()).toISOString(),
    };
    report.failed++;
  }
  await rpc(deps.service, "messaging_bulk_record", { p_recipient_id: claim.id, p_outcome: outcome });
}

function sentOutcome(sent: SentMessage, at: number): Record<string, unknown> {
  return {
    status: "sent",
    sid: sent.sid,
    segment_count: sent.segmentCount,
    cost: sent.price,
    currency: sent.priceUnit,
    at: new Date(at).toISOString(),
  };
}

/**
 * Claims an earlier lease left `sending`: its worker died between the claim and the record.
 * Each is looked up at the provider (the latest messages to that number from the sender whose
 * body matches and whose sid no log holds yet): found, its sid is recorded as sent; not found,
 * the recipient goes back to `queued` and is claimed again. Nothing is sent blind.
 */
async function reconcile(deps: BulkWorkerDeps, lease: Lease, bulk: BulkRow, report: SliceReport) {
  const stale = rows(
    await readPages(
      () =>
        deps.service.from("messaging_bulk_recipients").select("id, to_number, content")
          .eq("bulk_id", bulk.id).eq("status", "sending").lt("lease", lease.read_ct).order("position"),
    ),
  ) as { id: number; to_number: string; content: string | null }[];
  if (stale.length === 0) return;
  const channel = rows(
    await deps.service.from("messaging_channels").select("sender_id, config").eq("id", bulk.channel_id ?? "")
      .maybeSingle(),
  ) as Pick<ChannelRow, "sender_id" | "config"> | null;
  const viaService = bulk.channel_type === "whatsapp" && !!channel?.config.messaging_service_sid;
  const from = channel && !viaService ? toProviderAddress(bulk.channel_type, channel.sender_id) : null;
  for (const r of stale) {
    const listed = await deps.provider().sentTo(toProviderAddress(bulk.channel_type, r.to_number), from, 20);
    const candidates = listed.filter((m) => bulk.content_sid || m.body === (r.content ?? ""));
    const known = new Set(
      (rows(
        await readInGroups(
          candidates.map((m) => m.sid),
          (sids) =>
            deps.service.from("messaging_logs").select("provider_message_id").filter(
              "provider_message_id",
              "in",
              sids,
            ),
        ),
      ) as { provider_message_id: string }[]).map((l) => l.provider_message_id),
    );
    const found = candidates.find((m) => !known.has(m.sid));
    const outcome = found ? sentOutcome(found, deps.clock.now()) : { status: "queued" };
    await rpc(deps.service, "messaging_bulk_record", { p_recipient_id: r.id, p_outcome: outcome });
    if (found) report.adopted++;
    else report.requeued++;
  }
}

// ---- progress ----

export interface BulkStatus {
  bulkId: string;
  status: "queued" | "sending" | "completed";
  total: number;
  queued: number;
  sending: number;
  sent: number;
  failed: number;
  optedOut: number;
  createdAt: string;
  completedAt: string | null;
  results: { to: string; status: BulkRecipientStatus; messageId?: string; error?: string }[];
}

/** A bulk of the caller's workspace (read as the caller: RLS applies), 404 for any other. */
export async function bulkStatus(
  ctx: MessagingContext,
  bulkId: string,
  page: { limit: number; offset: number },
): Promise<BulkStatus> {
  const bulk = rows(
    await ctx.db.from("messaging_bulks").select("id, status, total, created_at, completed_at")
      .eq("id", bulkId).eq("workspace_id", ctx.workspaceId).maybeSingle(),
  ) as {
    id: string;
    status: BulkStatus["status"];
    total: number;
    created_at: string;
    completed_at: string | null;
  } | null;
  if (!bulk) throw DomainError.notFound("Bulk not found");
  const counts = rows(await ctx.db.rpc("messaging_bulk_progress", { p_bulk_id: bulkId })) as {
    status: BulkRecipientStatus;
    n: number;
  }[];
  const n = (s: BulkRecipientStatus) => counts.find((c) => c.status === s)?.n ?? 0;
  const recipients = rows(
    await ctx.db.from("messaging_bulk_recipients").select("to_number, status, provider_message_id, error")
      .eq("bulk_id", bulkId).order("position").range(page.offset, page.offset + page.limit - 1),
  ) as {
    to_number: string;
    status: BulkRecipientStatus;
    provider_message_id: string | null;
    error: string | null;
  }[];
  return {
    bulkId,
    status: bulk.status,
    total: bulk.total,
    queued: n("queued"),
    sending: n("sending"),
    sent: n("sent"),
    failed: n("failed"),
    optedOut: n("opted_out"),
    createdAt: bulk.created_at,
    completedAt: bulk.completed_at,
    results: recipients.map((r) => ({
      to: r.to_number,
      status: r.status,
      ...(r.provider_message_id ? { messageId: r.provider_message_id } : {}),
      ...(r.error ? { error: r.error } : {}),
    })),
  };
}
