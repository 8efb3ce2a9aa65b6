/**
 * The one shape of scheduled work. pg_cron fires an edge function every minute through pg_net
 * with the service-role key from Vault; the function is a tick:
 *
 *   guard   the route (group) uses `serviceRoleOnly` (auth/context.ts): anon 401, users 403;
 *   sweep   work left in progress longer than its domain's STALE_AFTER_MS (`staleBefore`) is a
 *           crashed worker's: closed (never replayed when its actions are not idempotent) or
 *           handed to a new worker;
 *   claim   due work is claimed atomically in SQL, so overlapping ticks never share an item;
 *   run     the claimed items, `concurrency` at a time; with `batch`, a full claim is followed
 *           by another while the time budget lasts (the rest waits for the next tick);
 *   report  one log line, and the counts the route answers.
 *
 * `runTick` is that sequence; queue workers (supabase/run_queue.ts, messaging/bulk.ts) use the
 * same `timeBudget`. The ticks: flows/scheduler.ts, background_agents/scheduler.ts,
 * monitoring/scheduler.ts, social/publish.ts (runDuePosts), scraping/sessions.ts
 * (resumeOrphans), seo/pipeline.ts (sweepStale).
 */
import { mapLimited } from "../concurrency.ts";

export const MINUTE_MS = 60_000;

/** The instant before which in-progress work counts as abandoned: `now - staleAfterMs`, ISO. */
export function staleBefore(now: Date, staleAfterMs: number): string {
  return new Date(now.getTime() - staleAfterMs).toISOString();
}

/** A time budget: work begun within it finishes; no new work starts once it is spent. */
export interface TimeBudget {
  left(): boolean;
  elapsedMs(): number;
}

/** A budget of `ms` from now, on `clock` (default: real time, as the Edge Runtime's limits are). */
export function timeBudget(ms: number, clock: () => number = () => performance.now()): TimeBudget {
  const started = clock();
  return { left: () => clock() - started < ms, elapsedMs: () => clock() - started };
}

export interface TickSpec<S, C, R> {
  /** The log label, e.g. "flow-scheduler". */
  name: string;
  now: Date;
  sweep?: (now: Date) => Promise<S>;
  /** Claims due items atomically (at most `batch` when `batch` is set). */
  claim: (now: Date) => Promise<C[]>;
  /** Runs one claimed item; an error fails the tick (catch in `run` what must not). */
  run?: (item: C) => Promise<R>;
  /** Items run at once (default 1: in claim order). */
  concurrency?: number;
  /** Claim again while a claim comes back with `batch` items and the budget lasts. */
  batch?: number;
  /** Real time after which no further claim is made (default: one claim). */
  budgetMs?: number;
}

export interface TickReport<S, C, R> {
  swept: S | undefined;
  claimed: C[];
  results: R[];
  durationMs: number;
}

/** guard (the route's) -> sweep -> claim -> run within the budget -> report. */
export async function runTick<S, C, R = void>(spec: TickSpec<S, C, R>): Promise<TickReport<S, C, R>> {
  const budget = timeBudget(spec.budgetMs ?? Infinity);
  const swept = spec.sweep ? await spec.sweep(spec.now) : undefined;
  const claimed: C[] = [];
  const results: R[] = [];
  while (true) {
    const batch = await spec.claim(spec.now);
    claimed.push(...batch);
    if (spec.run) results.push(...await mapLimited(batch, spec.concurrency ?? 1, spec.run));
    if (!spec.batch || batch.length < spec.batch || !budget.left()) break;
  }
  const durationMs = Math.round(budget.elapsedMs());
  if (claimed.length || !idle(swept)) {
    console.log(
      `[${spec.name}] ${claimed.length} claimed, swept ${JSON.stringify(swept ?? 0)} in ${durationMs} ms`,
    );
  }
  return { swept, claimed, results, durationMs };
}

/** Nothing swept: 0, empty, or an object of such counts (an idle minute logs nothing). */
function idle(swept: unknown): boolean {
  if (!swept) return true;
  return typeof swept === "object" && Object.values(swept).every((v) => !v);
}
