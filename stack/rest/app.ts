/**
 * The /rest/v1 service: PostgREST's pipeline with a stage per module.
 *
 *   request.ts  HTTP request -> ApiRequest
 *   plan.ts     ApiRequest + schema cache -> Plan
 *   query.ts, statement.ts   Plan -> one parameterised statement
 *   execute.ts  one transaction with the caller's role and request.* settings
 *   response.ts result row -> HTTP response
 *
 * The schema cache is read at start and reloaded on `NOTIFY pgrst, 'reload schema'` (or
 * `reload()`); requests wait for a reload in flight so that they never plan against a stale cache.
 */
import type { PGlite } from "../db/database.ts";
import { Authenticator, type Caller } from "./auth.ts";
import { Errors, fromPgError, PgrstError, renderError } from "./errors.ts";
import { DbError, run, type RunSpec } from "./execute.ts";
import { loadSettings, type RestSettings } from "./config.ts";
import { openApi } from "./openapi.ts";
import { type Plan, plan } from "./plan.ts";
import { parseRequest } from "./request.ts";
import { callResponse, mutateResponse, readResponse } from "./response.ts";
import { loadSchemaCache, type SchemaCache, timezoneNames } from "./schema-cache.ts";
import {
  type BodyShape,
  type BuiltQuery,
  callStatement,
  mutateStatement,
  readStatement,
} from "./statement.ts";
import type { ApiRequest } from "./types.ts";

const NO_TIMEZONES: ReadonlySet<string> = new Set();

export interface RestOptions {
  db: PGlite;
  jwtSecret: string;
  /** Exposed schemas; the first is the default. */
  schemas: string[];
  maxRows: number;
  anonRole?: string;
}

export class RestService {
  private cache!: SchemaCache;
  private settings!: RestSettings;
  private loading: Promise<void> | null = null;
  private readonly auth: Authenticator;
  private unlisten: (() => Promise<void>) | null = null;

  private constructor(readonly opts: RestOptions) {
    this.auth = new Authenticator(opts.jwtSecret, opts.anonRole ?? "anon");
  }

  static async create(opts: RestOptions): Promise<RestService> {
    const svc = new RestService(opts);
    await svc.reloadConfig();
    await svc.reload();
    // PostgREST's listener: `NOTIFY pgrst, 'reload schema'` (or an empty payload) reloads the cache,
    // `NOTIFY pgrst, 'reload config'` the in-database configuration (config.ts).
    svc.unlisten = await opts.db.listen("pgrst", (payload) => {
      if (payload === "" || payload === "reload schema") {
        void svc.reload().catch((err) => console.error("[rest] schema cache reload failed:", err));
      } else if (payload === "reload config") {
        void svc.reloadConfig().catch((err) => console.error("[rest] config reload failed:", err));
      }
    });
    return svc;
  }

  /** Re-reads the schema cache (after migrations or DDL). Concurrent callers share one reload. */
  reload(): Promise<void> {
    return this.enqueue(async () => {
      this.cache = await loadSchemaCache(this.opts.db, this.opts.schemas);
      const roles = await this.opts.db.query<{ rolname: string }>(`select rolname from pg_catalog.pg_roles`);
      this.auth.roles = new Set(roles.rows.map((r) => r.rolname));
    });
  }

  /** Re-reads the authenticator role's `pgrst.*` settings over the configured defaults. */
  reloadConfig(): Promise<void> {
    return this.enqueue(async () => {
      this.settings = await loadSettings(this.opts.db, {
        maxRows: this.opts.maxRows,
        aggregatesEnabled: false,
        planEnabled: false,
      });
    });
  }

  /** Reloads run one after the other; requests wait for the one in flight. */
  private enqueue(load: () => Promise<void>): Promise<void> {
    const next = (this.loading ?? Promise.resolve()).catch(() => {}).then(load);
    const tracked = next.finally(() => {
      if (this.loading === tracked) this.loading = null;
    });
    this.loading = tracked;
    return tracked;
  }

  async close(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
  }

  fetch = async (req: Request, path: string): Promise<Response> => {
    try {
      return await this.handle(req, path);
    } catch (err) {
      if (err instanceof PgrstError) return renderError(err);
      console.error("[rest] internal error:", err);
      return renderError(new PgrstError(500, "PGRSTX00", err instanceof Error ? err.message : String(err)));
    }
  };

  private async handle(req: Request, path: string): Promise<Response> {
    const caller = await this.auth.caller(req.headers.get("authorization"));
    if (this.loading) await this.loading;
    const cache = this.cache;
    const timezones = /timezone=/i.test(req.headers.get("prefer") ?? "")
      ? await timezoneNames(this.opts.db)
      : NO_TIMEZONES;
    const api = await parseRequest(req, path, { schemas: this.opts.schemas, timezones });
    if (api.prefs.handling === "strict" && api.prefs.invalid.length > 0) {
      throw Errors.invalidPreferences(api.prefs.invalid);
    }
    const settings = this.settings;
    // EXPLAIN output only with `db-plan-enabled` (off on hosted Supabase): else 406 PGRST107.
    if (api.media.plan && !settings.planEnabled) {
      throw Errors.mediaType(
        (req.headers.get("accept") ?? "").split(",").map((x) => x.split(";")[0].trim()).filter((x) =>
          x !== ""
        ),
      );
    }
    const p = plan(cache, api, { maxRows: settings.maxRows, aggregates: settings.aggregatesEnabled });
    if (p.kind === "root") return openApi(cache, api, this.opts.schemas);
    return await this.execute(api, p, caller);
  }

  private async execute(
    api: ApiRequest,
    p: Exclude<Plan, { kind: "root" }>,
    caller: Caller,
  ): Promise<Response> {
    const prefs = api.prefs;
    const wantsCount = prefs.count === "exact" || prefs.count === "estimated";
    const wantsPlan = prefs.count === "planned" || prefs.count === "estimated";
    const strictMax = prefs.handling === "strict" && prefs.maxAffected !== undefined
      ? prefs.maxAffected
      : null;
    const head = (api.action.kind === "read" && api.action.head) ||
      (api.action.kind === "call" && api.action.method === "HEAD");
    let built: BuiltQuery;
    let readOnly: boolean;
    switch (p.kind) {
      case "read":
        built = readStatement(p.read, { media: api.media, none: head }, wantsCount, wantsPlan);
        readOnly = true;
        break;
      case "mutate": {
        const shape: BodyShape = { media: api.media, none: prefs.representation !== "representation" };
        built = mutateStatement(p.mutate, p.read, shape, api.payload?.raw ?? "{}");
        readOnly = false;
        break;
      }
      case "call": {
        const r = p.call.routine;
        if (strictMax !== null && !r.returnsSet) throw Errors.maxAffectedRpc();
        const shape: BodyShape = {
          media: api.media,
          none: head || r.returnKind === "void",
          single: !r.returnsSet,
        };
        const body = api.payload?.raw ?? JSON.stringify(Object.fromEntries(
          [...api.rpcArgs].map(([k, vs]) => [k, r.params.find((x) => x.name === k)?.variadic ? vs : vs[0]]),
        ));
        built = callStatement(p.call, p.read, shape, body, wantsCount, wantsPlan);
        // PostgREST runs GET calls, and POST calls of stable or immutable functions, read-only.
        readOnly = api.action.kind === "call" &&
          (api.action.method !== "POST" || r.volatility !== "volatile");
        break;
      }
    }
    const singular = api.media.kind === "object";
    const check = (row: { pageTotal: number }) => {
      if (singular && row.pageTotal !== 1) throw Errors.singularity(row.pageTotal);
      if (strictMax !== null && p.kind !== "read" && BigInt(row.pageTotal) > strictMax) {
        throw Errors.maxAffected(row.pageTotal);
      }
    };
    const explain = api.media.plan;
    if (explain) {
      const opts = explain.options.map((o) => `, ${o.toUpperCase()}`).join("");
      built = {
        main: {
          sql: `EXPLAIN (FORMAT ${explain.format.toUpperCase()}${opts}) ${built.main.sql}`,
          params: built.main.params,
        },
        explain: null,
      };
    }
    const spec: RunSpec = {
      context: {
        role: caller.role,
        claims: caller.claims,
        method: api.method,
        path: api.path,
        headers: api.headers,
        cookies: api.cookies,
        schema: api.schema,
        readOnly,
        settings: prefs.timezone ? { timezone: prefs.timezone } : undefined,
      },
      queryId: explain !== undefined,
      main: built.main,
      explain: built.explain,
      // A write must be undone when its result is refused, so the check runs before COMMIT.
      check: readOnly || explain ? undefined : check,
      rollback: prefs.transaction === "rollback",
    };
    let result;
    try {
      result = await run(this.opts.db, spec);
    } catch (err) {
      if (err instanceof DbError) throw fromPgError(err.fields, caller.authed);
      throw err;
    }
    if (explain) {
      // PostgREST's plan media: the EXPLAIN output as it comes, JSON or text.
      const body = explain.format === "json" ? result.lines[0] ?? "[]" : result.lines.join("\n");
      return new Response(body, {
        status: 200,
        headers: {
          "content-type": `application/vnd.pgrst.plan+${explain.format}; for="${explain.for}"; charset=utf-8`,
        },
      });
    }
    if (readOnly) check(result.row);
    const { row, planRows } = result;
    const exact = row.total === null ? null : Number(row.total);
    const total = prefs.count === "planned"
      ? planRows
      : prefs.count === "estimated" && exact !== null && exact > this.settings.maxRows
      ? Math.max(this.settings.maxRows, planRows ?? 0)
      : exact;
    const offset = p.read.range?.offset ?? 0n;
    switch (p.kind) {
      case "read":
        return readResponse({ api, row, total, offset }, head);
      case "mutate":
        return mutateResponse({
          api,
          row,
          total: wantsCount ? row.pageTotal : null,
          offset,
          resolutionApplied: p.mutate.onConflict !== null,
        }, p.mutate.put ? "put" : p.mutate.kind);
      case "call":
        return callResponse({ api, row, total, offset, isVoid: p.call.routine.returnKind === "void" }, head);
    }
  }
}
