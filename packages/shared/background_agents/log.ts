/**
 * A run's log: agent_run_logs rows written one at a time, as the run goes, numbered 1, 2, 3 ...
 * (seq). A run has one writer at a time (the claim moves it out of `pending`), so the counter is
 * kept here, continued from the rows already written when a run is taken over.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";

export class RunLogger {
  #seq: number;
  constructor(
    private readonly service: SupabaseClient,
    private readonly runId: string,
    private readonly workspaceId: string,
    startAfter = 0,
  ) {
    this.#seq = startAfter;
  }

  /** A logger that continues after the run's last row. */
  static async resume(service: SupabaseClient, runId: string, workspaceId: string): Promise<RunLogger> {
    const last = rows(
      await service.from("agent_run_logs").select("seq").eq("run_id", runId).order("seq", {
        ascending: false,
      })
        .limit(1),
      "Run log",
    ) as { seq: number }[];
    return new RunLogger(service, runId, workspaceId, last[0]?.seq ?? 0);
  }

  get written(): number {
    return this.#seq;
  }

  async write(level: LogLevel, step: string | null, message: string, data: Record<string, unknown> = {}) {
    const seq = ++this.#seq;
    rows(
      await this.service.from("agent_run_logs").insert({
        run_id: this.runId,
        workspace_id: this.workspaceId,
        seq,
        level,
        step,
        message: message.slice(0, 4000),
        data,
      }),
      "Run log",
    );
  }

  info(step: string | null, message: string, data?: Record<string, unknown>) {
    return this.write("info", step, message, data);
  }
  warn(step: string | null, message: string, data?: Record<string, unknown>) {
    return this.write("warn", step, message, data);
  }
  error(step: string | null, message: string, data?: Record<string, unknown>) {
    return this.write("error", step, message, data);
  }
}
