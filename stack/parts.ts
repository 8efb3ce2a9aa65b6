/**
 * The parts of the local platform beyond the database, gateway, auth and functions router, in
 * start order. Each mounts its routes on the gateway or starts its workers, and may return a
 * stop(). Adding a part (REST, storage, cron, the AI backend, the provider sandbox) is one line.
 */
import type { PlatformPart } from "./part.ts";
import { storagePart } from "./storage/part.ts";
import { sandboxPart } from "./sandbox/part.ts";
import { netPart } from "./net/worker.ts";
import { cronPart } from "./cron/worker.ts";
import { restPart } from "./rest/part.ts";
import { realtimePart } from "./realtime/part.ts";
import { aiBackendPart } from "./ai-backend/part.ts";
import { docsPart } from "./docs/part.ts";
import { dbPortPart } from "./db/port.ts";

export const PARTS: PlatformPart[] = [
  // First, so that parts started after it read the sandbox's provider base URLs and keys.
  sandboxPart,
  // net before cron, so that cron stops first (parts stop in reverse) and net still sends what
  // a last job run queued.
  netPart,
  cronPart,
  storagePart,
  restPart,
  realtimePart,
  aiBackendPart,
  // After the AI backend: its docs pages read the backend this platform started.
  docsPart,
  // Last, so that it stops first: a client's open transaction is rolled back before the other
  // parts stop (they may wait for the database).
  dbPortPart,
];
