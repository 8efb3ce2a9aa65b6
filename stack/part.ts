/**
 * What a part of the local platform sees: the running Platform, and the PlatformPart contract
 * every part (REST, storage, cron, the AI backend, the sandbox ...) implements. Types only, so
 * that parts depend on this module and never on platform.ts, which starts them (parts.ts lists
 * them): no part imports the code that imports it.
 */
import type { PlatformConfig } from "./config.ts";
import type { PGlite } from "./db/database.ts";
import type { MigrateResult } from "./db/migrate.ts";
import type { Gateway } from "./gateway.ts";
import type { ProjectConfig } from "./project_config.ts";
import type { Sandbox } from "./sandbox/sandbox.ts";
import type { ConsoleLine } from "./functions/console_capture.ts";

export interface Platform {
  config: PlatformConfig;
  /** supabase/config.toml, read once at start ([api] for REST, [functions.*] for the router). */
  project: ProjectConfig;
  db: PGlite;
  gateway: Gateway;
  /** http://127.0.0.1:<port> */
  url: string;
  /** postgresql://postgres:postgres@127.0.0.1:<port>/postgres, when the Postgres port is served. */
  dbUrl?: string;
  migration: MigrateResult | null;
  /**
   * The environment every edge function (and the AI backend) sees: SUPABASE_URL and the keys,
   * supabase/functions/.env, and what parts add (provider base URLs, AI_BACKEND_URL). Scoped to
   * each call with runWithEnv, never written to the process environment.
   */
  env: Record<string, string>;
  /** Other URLs parts add to the status block (AI backend, sandbox inbox ...). */
  extraUrls: Record<string, string>;
  /** Timings of the start, in milliseconds. */
  timings: Record<string, number>;
  /** The platform's log (stderr unless startPlatform was given one): workers' failures go here. */
  log(line: string): void;
  /** Where console lines printed while serving a request go (StartOptions.functionConsole). */
  functionConsole?: (line: ConsoleLine) => void;
  /** The provider sandbox (stand-ins tests script and read), once its part has started. */
  sandbox?: Sandbox;
  stop(): Promise<void>;
}

/** A part of the platform that starts with it (REST, storage, cron worker, AI backend ...). */
export interface PlatformPart {
  name: string;
  start(p: Platform): Promise<void | { stop(): Promise<void> }>;
}
