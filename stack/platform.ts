/**
 * startPlatform(): the whole local platform in this process. The database (persisted under the
 * data folder, or an in-memory copy of the migrated template), the gateway on :54321 with
 * /auth/v1, /functions/v1 and whatever later parts mount (/rest/v1, /storage/v1 ...), and the
 * environment edge functions read (SUPABASE_URL, keys, supabase/functions/.env).
 */
import {
  defaultConfig,
  LOCAL_EMAIL_PLATFORM_FROM,
  LOCAL_EMAIL_PLATFORM_FROM_NAME,
  type PlatformConfig,
} from "./config.ts";
import { openDatabase, type PGlite, writeDataFiles } from "./db/database.ts";
import { appliedMigrations, migrate, type MigrateResult, seedFile } from "./db/migrate.ts";
import { openFromTemplate, templateFiles } from "./db/template.ts";
import { Gateway, stripPrefix } from "./gateway.ts";
import { createAuthApp } from "./auth/app.ts";
import { resendTransport } from "./auth/mail.ts";
import { type AuthConfig, readAuthConfig } from "./auth/settings.ts";
import { createFunctionsRouter } from "./functions/router.ts";
import type { EdgeLimits } from "./functions/limits.ts";
import type { ConsoleLine } from "./functions/console_capture.ts";
import { createPgMeta } from "./pgmeta/app.ts";
import type { Platform } from "./part.ts";
import { PARTS } from "./parts.ts";
import { readProjectConfig } from "./project_config.ts";
import { readSigningKeys, signingKeysPath } from "./auth/keys.ts";
import { loadSigningKeys, registerProjectKeys } from "@shared/auth/jwks.ts";
import { writeScheduledCallSecrets } from "./cron/secrets.ts";
import { pauseAllCronJobs } from "./cron/worker.ts";

export type { Platform, PlatformPart } from "./part.ts";

/** Reads a dotenv file (KEY=value, # comments, optional quotes); missing file -> {}. */
export async function readDotenv(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return {};
    throw err;
  }
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m || line.trim().startsWith("#")) continue;
    let v = m[2];
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    out[m[1]] = v;
  }
  return out;
}

/** Whether a file or folder is there (NotFound is false; any other error is thrown). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

export interface StartOptions extends Partial<PlatformConfig> {
  /** In-memory database copied from the migrated template (tests). Ignores dataDir. */
  ephemeral?: boolean;
  /** Wipe the data folder first. */
  reset?: boolean;
  /** Overrides supabase/config.toml's [auth] settings (tests: anonymous sign-ins, confirmations). */
  auth?: Partial<AuthConfig>;
  /** The JWKs of `[auth] signing_keys_path` (tests); without it the file config.toml names. */
  signingKeys?: unknown[];
  /** Where the platform's workers write their log lines (default: stderr). */
  log?: (line: string) => void;
  /**
   * The dotenv file functions read (default supabase/functions/.env), as `supabase functions serve
   * --env-file`; tests give one to configure, e.g., webhook signing secrets.
   */
  envFile?: string;
  /** One line per request to `log` (gateway.ts requestLine); off by default, so tests stay quiet. */
  logRequests?: boolean;
  /**
   * Each console line a function (or the AI backend) prints while serving a request, with its
   * request id (functions/console_capture.ts); the dashboard's LogBook keeps them. Printed as
   * before either way.
   */
  functionConsole?: (line: ConsoleLine) => void;
  /** Functions in Workers reloaded on save (functions/router.ts); `deno task start` only. */
  hotReload?: boolean;
  /**
   * The Edge Runtime's limits the functions router enforces (functions/limits.ts); unset ones come
   * from SUPABASE_LOCAL_FUNCTION_* or the hosted defaults. Tests set short ones.
   */
  functionLimits?: Partial<EdgeLimits>;
  /**
   * false pauses (cron.alter_job(active := false)) every pg_cron job the database has when it
   * starts, i.e. the ones the migrations schedule, before the cron worker loads them; jobs
   * scheduled later run as usual. Test platforms (fixtures/platform.ts) default to false, so the
   * per-minute jobs do not call functions behind a test's back (docs/testing.md). Default true.
   */
  projectCronJobs?: boolean;
}

export async function startPlatform(opts: StartOptions = {}): Promise<Platform> {
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const config = defaultConfig(opts);
  if (opts.ephemeral) config.dataDir = null;

  let db: PGlite;
  let migration: MigrateResult | null = null;
  if (config.dataDir === null) {
    db = await openFromTemplate(config.rootDir);
  } else {
    const dbDir = `${config.dataDir}/db`;
    if (opts.reset) {
      await Deno.remove(config.dataDir, { recursive: true }).catch((err) => {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      });
    }
    await Deno.mkdir(config.dataDir, { recursive: true });
    // A new data folder starts as a copy of the migrated template (the same bootstrap, migrations
    // and seed, applied once per schema and cached under .cache/), so only the first start after a
    // schema change pays for migrating.
    const fresh = !(await pathExists(`${dbDir}/PG_VERSION`));
    if (fresh) await writeDataFiles(await templateFiles(config.rootDir), dbDir);
    db = await openDatabase({ dataDir: dbDir });
    timings.database = performance.now() - t0;
    migration = await migrate(db, config.rootDir);
    if (fresh) {
      migration = {
        ...migration,
        fresh: true,
        applied: await appliedMigrations(db),
        seeded: !!(await seedFile(config.rootDir)),
      };
    }
  }
  timings.migrated = performance.now() - t0;

  const project = await readProjectConfig(config.rootDir);
  const gateway = new Gateway(config);
  const stops: (() => Promise<void>)[] = [];
  // [auth] signing_keys_path: GoTrue signs with the key, every service verifies against its JWKS.
  const keysPath = opts.signingKeys ? null : await signingKeysPath(config.rootDir);
  const signingKeys = opts.signingKeys
    ? await loadSigningKeys(opts.signingKeys)
    : keysPath
    ? await readSigningKeys(keysPath)
    : null;
  if (signingKeys) {
    const unregister = registerProjectKeys(config.jwtSecret, signingKeys);
    stops.push(() => Promise.resolve(unregister()));
  }
  const abort = new AbortController();
  const server = Deno.serve({
    hostname: config.hostname,
    port: config.apiPort,
    signal: abort.signal,
    onListen: () => {},
  }, gateway.fetch);
  const url = `http://${config.hostname}:${server.addr.port}`;
  const log = opts.log ?? ((line: string) => console.error(line));
  if (opts.logRequests) gateway.requestLog = log;
  // Scheduled calls (pg_cron -> call_edge_function -> pg_net) find this platform through Vault:
  // written at every start, so a new port (or a fresh database) keeps them working.
  if (!(await writeScheduledCallSecrets(db, url, config.serviceRoleKey))) {
    log("vault: supabase_vault is not enabled; scheduled calls cannot find project_url and service_role_key");
  }
  if (opts.projectCronJobs === false) await pauseAllCronJobs(db);

  const fnEnv: Record<string, string> = {
    EMAIL_PLATFORM_FROM: LOCAL_EMAIL_PLATFORM_FROM,
    EMAIL_PLATFORM_FROM_NAME: LOCAL_EMAIL_PLATFORM_FROM_NAME,
    ...(await readDotenv(opts.envFile ?? `${config.rootDir}/supabase/functions/.env`)),
    SUPABASE_URL: url,
    SUPABASE_ANON_KEY: config.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: config.serviceRoleKey,
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: config.publishableKey }),
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: config.secretKey }),
    // Lets functions verify HS256 user JWTs without a round trip to /auth/v1/user. Hosted
    // projects set it with `supabase secrets set JWT_SECRET=...` (SUPABASE_* names are reserved).
    JWT_SECRET: config.jwtSecret,
    // The CLI gives functions the project's public keys (serve.go); {"keys":[]} without them.
    SUPABASE_JWKS: JSON.stringify(signingKeys?.jwks ?? { keys: [] }),
  };

  gateway.mount(
    "/auth/v1",
    stripPrefix(createAuthApp({
      db,
      jwtSecret: config.jwtSecret,
      jwtExpirySeconds: config.jwtExpirySeconds,
      issuer: `${url}/auth/v1`,
      bcryptCost: config.bcryptCost,
      config: { ...(await readAuthConfig(config.rootDir)), ...opts.auth },
      // Auth mail lands in the sandbox's Resend stand-in (its mail viewer), as the CLI's in Mailpit.
      mailTransport: resendTransport(
        () => platform.sandbox?.get("resend").baseUrl,
        "re_sandbox_local_placeholder",
      ),
    })),
  );
  gateway.mount("/pg", createPgMeta({ db, jwtSecret: config.jwtSecret }));
  const functionsRouter = await createFunctionsRouter({
    rootDir: config.rootDir,
    jwtSecret: config.jwtSecret,
    env: fnEnv,
    functions: project.functions,
    hotReload: opts.hotReload,
    limits: opts.functionLimits,
    log,
    onConsole: opts.functionConsole,
  });
  stops.push(() => functionsRouter.close());
  gateway.mount("/functions/v1", functionsRouter, { cors: false });

  const platform: Platform = {
    config,
    project,
    db,
    gateway,
    url,
    migration,
    env: fnEnv,
    extraUrls: {},
    timings,
    log,
    functionConsole: opts.functionConsole,
    async stop() {
      for (const stop of stops.reverse()) await stop();
      abort.abort();
      await server.finished;
      await db.close();
    },
  };
  for (const part of PARTS) {
    const started = await part.start(platform);
    if (started) stops.push(() => started.stop());
    timings[part.name] = performance.now() - t0;
  }
  timings.ready = performance.now() - t0;
  return platform;
}
