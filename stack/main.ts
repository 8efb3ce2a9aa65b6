/**
 * `deno task start`: runs the local platform until interrupted, like `supabase start`.
 *
 *   --data-dir <path>  where the database lives (default .data/, env SUPABASE_LOCAL_DATA_DIR)
 *   --reset            wipe the data folder first (fresh database, migrations and seed)
 *   --port <n>         API gateway port (default 54321, env SUPABASE_LOCAL_API_PORT)
 *   --db-port <n>      Postgres port (default 54322, or a free one with --port 0; env
 *                      SUPABASE_LOCAL_DB_PORT)
 *   --no-serve         apply migrations and exit (used by `deno task reset`; binds free ports only)
 *   --dashboard-port <n>  the local dashboard (default 54323, Studio's; a free one with --port 0)
 *
 * One line per request goes to stderr (gateway.ts requestLine), each function's console output is
 * prefixed with its name, and functions reload on save (functions/router.ts `hotReload`). The data
 * folder records the running platform (platform.json: `deno task status`, `deno task sql`, and a
 * refusal to start or reset the folder twice) and, with --port 0, the ports it got (ports.json:
 * reused while free). A busy port is named with the flag that changes it (stack/running.ts).
 * The dashboard (stack/dashboard/, docs/dashboard.md) serves on 127.0.0.1 with the service role
 * and reads the platform's log lines (requests, function failures) and the functions' console
 * output per request from the LogBook this passes as `log` and `functionConsole`.
 */
import { parseArgs } from "node:util";
import {
  DEFAULT_AI_BACKEND_PORT,
  DEFAULT_API_PORT,
  DEFAULT_DB_PORT,
  DEFAULT_SANDBOX_PORT,
  DEFAULT_STRIPE_PORT,
} from "./config.ts";
import { startPlatform } from "./platform.ts";
import {
  inUseMessage,
  keptPorts,
  platformPorts,
  portFree,
  recordRunning,
  recordStarting,
  removeRecord,
  resolveDataDir,
  runningPlatform,
  savePorts,
} from "./running.ts";
import { aiBackendOf } from "./ai-backend/part.ts";
import { LogBook } from "./dashboard/log_book.ts";
import { type Dashboard, DEFAULT_DASHBOARD_PORT, startDashboard } from "./dashboard/server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "data-dir": { type: "string" },
    reset: { type: "boolean", default: false },
    port: { type: "string" },
    "db-port": { type: "string" },
    "no-serve": { type: "boolean", default: false },
    "dashboard-port": { type: "string" },
  },
});

const port = Number(values.port ?? Deno.env.get("SUPABASE_LOCAL_API_PORT") ?? DEFAULT_API_PORT);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port: ${values.port}`);
  Deno.exit(2);
}
// One platform per data folder: a second start or a reset while one runs would corrupt it.
const dir = resolveDataDir(values["data-dir"]);
const task = values["no-serve"] ? "deno task reset" : "deno task start";
const other = await runningPlatform(dir);
if (other) {
  console.error(inUseMessage(task, other));
  Deno.exit(1);
}
const serving = !values["no-serve"];
const dashboardPort = Number(values["dashboard-port"] ?? (port === 0 ? 0 : DEFAULT_DASHBOARD_PORT));
if (!Number.isInteger(dashboardPort) || dashboardPort < 0 || dashboardPort > 65535) {
  console.error(`invalid --dashboard-port: ${values["dashboard-port"]}`);
  Deno.exit(2);
}
const HOST = "127.0.0.1";
// --port 0: the ports this data folder had, while free; the others are free-picked (0).
let keptApiPort: number | undefined;
if (serving && port === 0) {
  const kept = await keptPorts(dir, HOST);
  keptApiPort = kept.api;
  const byEnv = [
    ["db", "SUPABASE_LOCAL_DB_PORT"],
    ["ai_backend", "SUPABASE_LOCAL_AI_BACKEND_PORT"],
    ["sandbox", "SUPABASE_LOCAL_SANDBOX_PORT"],
    ["stripe", "SUPABASE_LOCAL_STRIPE_PORT"],
  ] as const;
  for (const [name, variable] of byEnv) {
    if (Deno.env.get(variable) === undefined && !(name === "db" && values["db-port"])) {
      Deno.env.set(variable, String(kept[name] ?? 0));
    }
  }
}
if (serving) {
  const envPort = (variable: string, fallback: number) => Number(Deno.env.get(variable) ?? fallback);
  const wanted: [number, string, string][] = [
    [keptApiPort ?? port, "API gateway", "--port <n>"],
    [
      Number(values["db-port"] ?? envPort("SUPABASE_LOCAL_DB_PORT", port === 0 ? 0 : DEFAULT_DB_PORT)),
      "Postgres",
      "--db-port <n>",
    ],
    [
      envPort("SUPABASE_LOCAL_AI_BACKEND_PORT", port === 0 ? 0 : DEFAULT_AI_BACKEND_PORT),
      "AI backend",
      "SUPABASE_LOCAL_AI_BACKEND_PORT=<n>",
    ],
    [
      envPort("SUPABASE_LOCAL_SANDBOX_PORT", port === 0 ? 0 : DEFAULT_SANDBOX_PORT),
      "provider sandbox",
      "SUPABASE_LOCAL_SANDBOX_PORT=<n>",
    ],
    [
      envPort("SUPABASE_LOCAL_STRIPE_PORT", port === 0 ? 0 : DEFAULT_STRIPE_PORT),
      "Stripe stand-in",
      "SUPABASE_LOCAL_STRIPE_PORT=<n>",
    ],
    [dashboardPort, "dashboard", "--dashboard-port <n>"],
  ];
  for (const [p, what, flag] of wanted) {
    if (Number.isInteger(p) && p > 0 && !portFree(HOST, p)) {
      console.error(
        `${task}: port ${p} (${what}) is already in use, by another platform or program. ` +
          `Choose another with ${flag}, or start with --port 0 for free ports (kept for this data folder).`,
      );
      Deno.exit(1);
    }
  }
}
await recordStarting(dir);
const startFailed = async (err: unknown): Promise<never> => {
  await removeRecord(dir);
  if (err instanceof Deno.errors.AddrInUse) {
    console.error(
      `${task}: a port is already in use (${err.message}); choose others with --port <n> and --db-port <n>, ` +
        `or --port 0 for free ports.`,
    );
    Deno.exit(1);
  }
  throw err;
};

const dbPortArg = values["db-port"] ?? Deno.env.get("SUPABASE_LOCAL_DB_PORT");
const dbPort = dbPortArg === undefined ? undefined : Number(dbPortArg);
if (dbPort !== undefined && (!Number.isInteger(dbPort) || dbPort < 0 || dbPort > 65535)) {
  console.error(`invalid --db-port: ${dbPortArg}`);
  Deno.exit(2);
}
const dataDir = values["data-dir"] ?? Deno.env.get("SUPABASE_LOCAL_DATA_DIR");

const book = new LogBook();
const platform = await startPlatform({
  log: (line) => {
    console.error(line);
    book.add(line);
  },
  // What functions and the AI backend print per request, for the dashboard (printed as before).
  functionConsole: book.console,
  apiPort: serving ? keptApiPort ?? port : 0,
  // --no-serve (reset) serves nothing; otherwise stack/db/port.ts picks the default.
  ...(values["no-serve"] ? { dbPort: null } : dbPort !== undefined ? { dbPort } : {}),
  reset: values.reset,
  logRequests: serving,
  hotReload: serving,
  ...(dataDir ? { dataDir } : {}),
}).catch(startFailed);

const m = platform.migration;
if (m) {
  const what = m.fresh ? "fresh database" : "existing database";
  console.log(
    `${what} at ${platform.config.dataDir}; ${m.applied.length} migration(s) applied${
      m.seeded ? ", seeded" : ""
    }`,
  );
}

if (values["no-serve"]) {
  await platform.stop();
  await removeRecord(dir);
  Deno.exit(0);
}

const c = platform.config;
let dashboard: Dashboard;
try {
  dashboard = startDashboard(platform, { hostname: HOST, port: dashboardPort, book });
} catch (err) {
  await platform.stop();
  await startFailed(err);
  throw err;
}
const lines: [string, string][] = [
  ["API URL", platform.url],
  ...(platform.dbUrl ? [["DB URL", platform.dbUrl] as [string, string]] : []),
  ["REST URL", `${platform.url}/rest/v1`],
  ["Auth URL", `${platform.url}/auth/v1`],
  ["Storage URL", `${platform.url}/storage/v1`],
  ["Functions URL", `${platform.url}/functions/v1`],
  ["SQL (pg-meta)", `${platform.url}/pg/query (service_role; or: deno task sql "select ...")`],
  ...Object.entries(platform.extraUrls),
  ["Dashboard", `${dashboard.url} (service_role; like Studio)`],
  ["JWT secret", c.jwtSecret],
  ["anon key", c.anonKey],
  ["service_role key", c.serviceRoleKey],
  ["Publishable key", c.publishableKey],
  ["Secret key", c.secretKey],
];
const width = Math.max(...lines.map(([k]) => k.length));
console.log(`\nlocal platform started in ${(platform.timings.ready / 1000).toFixed(2)} s.\n`);
const block = lines.map(([k, v]) => `${k.padStart(width)}: ${v}`);
for (const line of block) console.log(line);
await recordRunning(dir, platform.url, block);
if (port === 0) await savePorts(dir, platformPorts(platform, aiBackendOf(platform).url));
console.log("\nPress Ctrl+C to stop.");

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping ...");
  await dashboard.stop();
  await platform.stop();
  await removeRecord(dir);
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
Deno.addSignalListener("SIGTERM", shutdown);
