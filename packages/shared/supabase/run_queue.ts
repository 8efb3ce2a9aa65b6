/**
 * A queue of runs (Supabase Queues, pgmq) drained by a worker in slices that fit the Edge
 * Runtime: a scheduler claims due work and puts one message {run_id} per run on the queue (in
 * the claim's SQL, atomically), kicks the worker and answers; the worker, fired by pg_cron every
 * minute and by the kick, takes a few messages at a time under a lease (the visibility timeout,
 * told apart by read_ct), begins each run (SQL: the message leaves the queue under that lease and
 * the run row is claimed, in one transaction), runs it, and after `sliceMs` of work takes no
 * more: the leased messages it did not begin are let go at once for the next worker.
 *
 * Used by the flow scheduler (queue flow_runs) and the background-agent scheduler (agent_runs);
 * their migrations (20260221012100, 20260221012200) define the SQL half of each:
 * `<kind>_run_queue_read(p_vt, p_qty)`, `<kind>_run_begin(p_msg_id, p_read_ct, p_run_id)`,
 * `<kind>_run_queue_release(p_msg_ids, p_read_cts)`. The slice is the scheduled tick's time
 * budget (scheduling/tick.ts).
 */
import { DomainError } from "../errors.ts";
import { timeBudget } from "../scheduling/tick.ts";
import type { SupabaseClient } from "./clients.ts";

export interface QueuedRun {
  msg_id: number;
  read_ct: number;
  run_id: string;
}

export interface RunQueue {
  /** pgmq queue name; also the prefix of its SQL functions (flow -> flow_run_queue_read). */
  kind: "flow" | "agent";
  /** The worker's path, for the kick (/functions/v1/...). */
  workerPath: string;
}

export interface DrainOptions<R> {
  service: SupabaseClient;
  queue: RunQueue;
  /** Work time after which no more messages are taken (real time: the Edge limits are). */
  sliceMs: number;
  /** How long a read leases its messages. */
  leaseSeconds: number;
  /** Runs in flight at once; a read takes twice as many messages. */
  concurrency: number;
  /** Runs a begun run; errors are logged and counted (the run is left to the stale sweep). */
  run: (runId: string) => Promise<R>;
  /** Called with every batch right after it is read (tests kill the worker here). */
  afterRead?: (batch: QueuedRun[]) => void | Promise<void>;
}

export interface DrainReport<R> {
  /** Messages read, runs begun and run, messages skipped (not ours to run), let go, runs that threw. */
  read: number;
  ran: R[];
  skipped: number;
  released: number;
  errors: number;
  durationMs: number;
}

async function rpc<T>(service: SupabaseClient, fn: string, args: Record<string, unknown>): Promise<T> {
  const { data, error } = await service.rpc(fn, args);
  if (error) throw DomainError.internal(`${fn} failed: ${error.message}`);
  return data as T;
}

/** One worker run: batches until the queue is empty or the slice is used up. */
export async function drainRunQueue<R>(o: DrainOptions<R>): Promise<DrainReport<R>> {
  const slice = timeBudget(o.sliceMs);
  const inSlice = () => slice.left();
  const report: DrainReport<R> = { read: 0, ran: [], skipped: 0, released: 0, errors: 0, durationMs: 0 };
  const label = `[${o.queue.kind}-run-worker]`;
  while (inSlice()) {
    const batch = (await rpc<QueuedRun[]>(o.service, `${o.queue.kind}_run_queue_read`, {
      p_vt: o.leaseSeconds,
      p_qty: o.concurrency * 2,
    })).map((m) => ({ ...m, msg_id: Number(m.msg_id) }));
    if (batch.length === 0) break;
    report.read += batch.length;
    await o.afterRead?.(batch);
    let next = 0;
    const worker = async () => {
      while (next < batch.length && inSlice()) {
        const m = batch[next++];
        const begun = await rpc<boolean>(o.service, `${o.queue.kind}_run_begin`, {
          p_msg_id: m.msg_id,
          p_read_ct: m.read_ct,
          p_run_id: m.run_id,
        });
        if (!begun) {
          report.skipped++;
          continue;
        }
        try {
          report.ran.push(await o.run(m.run_id));
        } catch (err) {
          // Begun: the message is gone and the run stays `running` for the stale sweep (its
          // actions are not idempotent, so it is never replayed). The others go on.
          report.errors++;
          console.error(`${label} run ${m.run_id} failed to run`, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(o.concurrency, batch.length) }, worker));
    const left = batch.slice(next);
    if (left.length) {
      report.released += await rpc<number>(o.service, `${o.queue.kind}_run_queue_release`, {
        p_msg_ids: left.map((m) => m.msg_id),
        p_read_cts: left.map((m) => m.read_ct),
      });
      break;
    }
  }
  report.durationMs = Math.round(slice.elapsedMs());
  console.log(
    `${label} ${report.ran.length} run, ${report.skipped} skipped, ${report.released} let go, ` +
      `${report.errors} failed in ${report.durationMs} ms`,
  );
  return report;
}

/**
 * Wakes a queue's worker right after a scheduler queued runs: pg_net POSTs to the worker with
 * the service-role key from Vault (public.call_edge_function), sent once the call commits.
 * Tests that drive the workers themselves install their own (useRunWorkerKick).
 */
export type RunWorkerKick = (service: SupabaseClient, queue: RunQueue) => Promise<void>;

const pgNetKick: RunWorkerKick = async (service, queue) => {
  const { error } = await service.rpc("call_edge_function", {
    p_path: queue.workerPath,
    p_body: { kick: true },
    p_timeout_ms: 150_000,
  });
  // The runs are on the queue either way; the per-minute job takes them if the kick is lost.
  if (error) console.error(`[${queue.kind}-run-worker] could not kick the worker: ${error.message}`);
};

let kick: RunWorkerKick = pgNetKick;

export function useRunWorkerKick(k: RunWorkerKick | null): void {
  kick = k ?? pgNetKick;
}

export function kickRunWorker(service: SupabaseClient, queue: RunQueue): Promise<void> {
  return kick(service, queue);
}
