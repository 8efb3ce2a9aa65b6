/**
 * `deno task start`: runs the local platform until interrupted, like `supabase start`.
 *
 *   --data-dir <path>  where the database lives (default .data/, env SUPABASE_LOCAL_DATA_DIR)
 *   --reset            wipe the data folder first (fresh database, migrations and seed)
 *   --port <n>         API gateway port (default 54321, env SUPABASE_LOCAL_API_PORT)
 *   --no-serve         apply migrations and exit (used by `deno task reset`)
 */
import { parseArgs } from "node:util";
import { DEFAULT_API_PORT } from "./config.ts";
import { startPlatform } from "./platform.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "data-dir": { type: "string" },
    reset: { type: "boolean", default: false },
    port: { type: "string" },
    "no-serve": { type: "boolean", default: false },
  },
});

const port = Number(values.port ?? Deno.env.get("SUPABASE_LOCAL_API_PORT") ?? DEFAULT_API_PORT);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port: ${values.port}`);
  Deno.exit(2);
}
const dataDir = values["data-dir"] ?? Deno.env.get("SUPABASE_LOCAL_DATA_DIR");

const platform = await startPlatform({
  apiPort: port,
  reset: values.reset,
  ...(dataDir ? { dataDir } : {}),
});

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
  Deno.exit(0);
}

const c = platform.config;
const lines: [string, string][] = [
  ["API URL", platform.url],
  ["REST URL", `${platform.url}/rest/v1`],
  ["Auth URL", `${platform.url}/auth/v1`],
  ["Storage URL", `${platform.url}/storage/v1`],
  ["Functions URL", `${platform.url}/functions/v1`],
  ["SQL (pg-meta)", `${platform.url}/pg/query (service_role; or: deno task sql "select ...")`],
  ...Object.entries(platform.extraUrls),
  ["JWT secret", c.jwtSecret],
  ["anon key", c.anonKey],
  ["service_role key", c.serviceRoleKey],
  ["Publishable key", c.publishableKey],
  ["Secret key", c.secretKey],
];
const width = Math.max(...lines.map(([k]) => k.length));
console.log(`\nlocal platform started in ${(platform.timings.ready / 1000).toFixed(2)} s.\n`);
for (const [k, v] of lines) console.log(`${k.padStart(width)}: ${v}`);
console.log("\nPress Ctrl+C to stop.");

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping ...");
  await platform.stop();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
Deno.addSignalListener("SIGTERM", shutdown);
