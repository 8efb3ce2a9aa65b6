/**
 * What a data folder records about the platform serving it, so that the tasks find it:
 *
 * - `<data>/platform.json`: the running `deno task start` (pid, URL, the status block it printed),
 *   written as it starts ("starting") and once it serves ("running"), removed when it stops.
 *   `deno task status` reprints the block, `deno task sql` talks to the URL, and a second start or
 *   `deno task reset` on the same folder refuses while the pid lives (two processes writing one
 *   PGlite folder corrupt it). A record whose pid is gone (kill -9) is stale and ignored.
 * - `<data>/ports.json`: the ports a `--port 0` start was given (api, db, ai_backend, sandbox),
 *   reused at the next `--port 0` start while they are free, so stored URLs keep working; a taken
 *   one is replaced by a free one (and Vault's project_url, rewritten at every start, follows).
 */
import { resolve } from "node:path";
import { defaultConfig } from "./config.ts";
import type { Platform } from "./part.ts";

export interface RunningRecord {
  pid: number;
  state: "starting" | "running";
  data_dir: string;
  started_at: string;
  /** The API URL, once serving. */
  url?: string;
  /** The status block's lines as printed. */
  block?: string[];
}

export type PortName = "api" | "db" | "ai_backend" | "sandbox" | "stripe";
export type Ports = Partial<Record<PortName, number>>;

/** The data folder a task means: --data-dir, SUPABASE_LOCAL_DATA_DIR, else <repo>/.data; absolute. */
export function resolveDataDir(dataDir?: string): string {
  return resolve(dataDir ?? Deno.env.get("SUPABASE_LOCAL_DATA_DIR") ?? defaultConfig().dataDir!);
}

async function readJson<T>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    if (err instanceof SyntaxError) return null; // a half-written file from a crash: as if absent
    throw err;
  }
}

async function writeJson(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.${Deno.pid}.tmp`;
  await Deno.writeTextFile(tmp, JSON.stringify(value, null, 2) + "\n");
  await Deno.rename(tmp, path);
}

/** Whether a process with this pid runs (Linux: /proc; elsewhere a harmless SIGCONT probe). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    try {
      Deno.statSync("/proc/self");
      return false; // /proc exists, the pid does not
    } catch (err2) {
      if (!(err2 instanceof Deno.errors.NotFound)) throw err2;
    }
  }
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) return false;
    throw err;
  }
}

/** The live platform recorded for `dir` (another process than this one), or null. */
export async function runningPlatform(dir: string): Promise<RunningRecord | null> {
  const rec = await readJson<RunningRecord>(`${dir}/platform.json`);
  if (!rec || rec.pid === Deno.pid || !pidAlive(rec.pid)) return null;
  return rec;
}

export async function recordStarting(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await writeJson(
    `${dir}/platform.json`,
    {
      pid: Deno.pid,
      state: "starting",
      data_dir: dir,
      started_at: new Date().toISOString(),
    } satisfies RunningRecord,
  );
}

export async function recordRunning(dir: string, url: string, block: string[]): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await writeJson(
    `${dir}/platform.json`,
    {
      pid: Deno.pid,
      state: "running",
      data_dir: dir,
      started_at: new Date().toISOString(),
      url,
      block,
    } satisfies RunningRecord,
  );
}

/** Removes this process's record (never another live process's). */
export async function removeRecord(dir: string): Promise<void> {
  const rec = await readJson<RunningRecord>(`${dir}/platform.json`);
  if (rec && rec.pid !== Deno.pid && pidAlive(rec.pid)) return;
  await Deno.remove(`${dir}/platform.json`).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
}

/** Whether hostname:port can be bound now. */
export function portFree(hostname: string, port: number): boolean {
  try {
    Deno.listen({ hostname, port }).close();
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) return false;
    throw err;
  }
}

/** The ports ports.json keeps for `dir` that are free now (a taken or missing one is left out). */
export async function keptPorts(dir: string, hostname: string): Promise<Ports> {
  const stored = await readJson<Ports>(`${dir}/ports.json`) ?? {};
  const out: Ports = {};
  for (const [name, port] of Object.entries(stored) as [PortName, number][]) {
    if (Number.isInteger(port) && port > 0 && port < 65536 && portFree(hostname, port)) out[name] = port;
  }
  return out;
}

const portOf = (url: string | undefined) => {
  const m = url?.match(/^[a-z]+:\/\/[^/]*:(\d+)(?:\/|$)/);
  return m ? Number(m[1]) : undefined;
};

/** The ports a started platform serves on (the DB port from the postgresql:// URL it lists). */
export function platformPorts(p: Platform, aiBackendUrl?: string): Ports {
  const ports: Ports = { api: portOf(p.url) };
  const db = (p as { dbUrl?: string }).dbUrl ??
    Object.values(p.extraUrls).find((u) => u.startsWith("postgresql://"));
  if (db) ports.db = portOf(db);
  if (aiBackendUrl) ports.ai_backend = portOf(aiBackendUrl);
  if (p.sandbox) {
    ports.sandbox = portOf(p.sandbox.url);
    ports.stripe = portOf(p.sandbox.get("stripe").baseUrl);
  }
  for (const k of Object.keys(ports) as PortName[]) if (ports[k] === undefined) delete ports[k];
  return ports;
}

export async function savePorts(dir: string, ports: Ports): Promise<void> {
  await writeJson(`${dir}/ports.json`, ports);
}

/** The message for a data folder another platform serves. */
export function inUseMessage(what: string, rec: RunningRecord): string {
  return `${what}: the platform for ${rec.data_dir} is ${rec.state} (pid ${rec.pid}${
    rec.url ? `, ${rec.url}` : ""
  }). Stop it first (Ctrl+C in its terminal, or kill ${rec.pid}); nothing was changed.`;
}
