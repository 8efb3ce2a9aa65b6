/**
 * The parts of the local platform beyond the database, gateway, auth and functions router, in
 * start order. Each mounts its routes on the gateway or starts its workers, and may return a
 * stop(). Adding a part (REST, storage, cron, the AI backend, the provider sandbox) is one line.
 */
import type { PlatformPart } from "./platform.ts";

export const PARTS: PlatformPart[] = [];
