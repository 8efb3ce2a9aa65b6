/**
 * The local dashboard (`deno task start` prints its URL; Supabase's local Studio is on :54323):
 * one page (page.ts) over a small JSON API that acts with the service role, as local Studio
 * does. Data comes through the platform's own APIs wherever they exist: /rest/v1, /auth/v1 admin,
 * /storage/v1 and /functions/v1 are proxied with the service-role key (`/api/rest/...` ...), the
 * SQL page runs pg-meta's `POST /pg/query`, grants go through the `grant_credits` RPC; the
 * catalogue, cron, queue and operations views are parametrised read queries; the Functions page
 * reads the platform's request log and the functions' and the AI backend's console output per
 * request id (log_book.ts; in memory, the last 5000 lines); the cron page links each run to the
 * pg_net responses of the requests its command queued and runs a job now through the cron worker
 * (cron/worker.ts); the realtime inspector is a supabase-js client of the platform's
 * /realtime/v1 held here (realtime.ts), so the key never reaches the page.
 *
 * The service role must stay out of reach of every other page in the same browser:
 * - only requests whose Host is exactly the address it serves (127.0.0.1:<port>) are answered,
 *   others get 421 (a DNS-rebound name pointing at 127.0.0.1 carries its own Host);
 * - no CORS headers at all (cross-origin scripts cannot read answers), and frames are refused;
 * - /api/* needs the per-process random token the page embeds (`x-dashboard-token`), and a
 *   request that is not GET/HEAD must also come from the dashboard's own origin (`Origin`, and
 *   `Sec-Fetch-Site` when the browser sends it): 403 otherwise.
 */
import type { Platform } from "../part.ts";
import { LogBook } from "./log_book.ts";
import { renderPage } from "./page.ts";
import { RealtimeInspector } from "./realtime.ts";
import { aiBackendOf } from "../ai-backend/part.ts";
import { cronWorkerOf } from "../cron/worker.ts";

/** Supabase's local Studio port. */
export const DEFAULT_DASHBOARD_PORT = 54323;

export interface DashboardOptions {
  hostname?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The platform's log, when it was started with `log: book.add` (Functions page). */
  book?: LogBook;
}

export interface Dashboard {
  url: string;
  token: string;
  stop(): Promise<void>;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/** Headers every answer carries: no framing, no sniffing, no referrer leaking the token's page. */
function secured(res: Response): Response {
  const h = new Headers(res.headers);
  h.set("x-frame-options", "DENY");
  h.set("x-content-type-options", "nosniff");
  h.set("referrer-policy", "no-referrer");
  h.set("cache-control", "no-store");
  for (const name of [...h.keys()]) if (name.startsWith("access-control-")) h.delete(name);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: h });
}

/**
 * The dashboard's request checks (exported for the security tests): null when `req` may go on,
 * else the refusal. `origin` is `http://127.0.0.1:<port>`.
 */
export function refuse(req: Request, origin: string, token: string): Response | null {
  const host = req.headers.get("host") ?? new URL(req.url).host;
  if (`http://${host}` !== origin) {
    return json(421, { error: `this dashboard answers only for Host ${new URL(origin).host}` });
  }
  const path = new URL(req.url).pathname;
  if (req.method === "OPTIONS") return json(403, { error: "cross-origin requests are not served" });
  if (!path.startsWith("/api/")) return null;
  if (req.headers.get("x-dashboard-token") !== token) {
    return json(403, { error: "missing or wrong x-dashboard-token (reload the dashboard page)" });
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    if (req.headers.get("origin") !== origin) {
      return json(403, { error: `state changes are accepted only from ${origin}` });
    }
    const site = req.headers.get("sec-fetch-site");
    if (site && site !== "same-origin") return json(403, { error: `refused a ${site} request` });
  }
  return null;
}

const PROXIED: Record<string, string> = {
  rest: "/rest/v1",
  auth: "/auth/v1",
  storage: "/storage/v1",
  functions: "/functions/v1",
};
const PASSED = [
  "content-type",
  "prefer",
  "range",
  "range-unit",
  "accept",
  "accept-profile",
  "content-profile",
];
const RETURNED = ["content-type", "content-range", "x-total-count", "x-request-id", "link"];

interface SqlRun {
  id: number;
  at: string;
  query: string;
  ms: number;
  rows: number | null;
  error: string | null;
}

export function startDashboard(p: Platform, opts: DashboardOptions = {}): Dashboard {
  const hostname = opts.hostname ?? "127.0.0.1";
  const token = crypto.randomUUID().replaceAll("-", "") + crypto.randomUUID().replaceAll("-", "");
  const abort = new AbortController();
  const book = opts.book ?? null;
  const history: SqlRun[] = [];
  const realtime = new RealtimeInspector(p.url, p.config.serviceRoleKey);
  let origin = "";
  let page: string | null = null;
  const key = p.config.serviceRoleKey;

  const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    (await p.db.query<T>(sql, params)).rows;

  async function proxy(req: Request, surface: string, rest: string, search: string): Promise<Response> {
    const headers = new Headers({ apikey: key, authorization: `Bearer ${key}` });
    for (const name of PASSED) {
      const v = req.headers.get(name);
      if (v) headers.set(name, v);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const res = await fetch(`${p.url}${PROXIED[surface]}/${rest}${search}`, {
      method: req.method,
      headers,
      body: hasBody ? await req.arrayBuffer() : undefined,
    });
    const out = new Headers();
    for (const name of RETURNED) {
      const v = res.headers.get(name);
      if (v) out.set(name, v);
    }
    return new Response(res.body, { status: res.status, headers: out });
  }

  async function runSql(query: string): Promise<Response> {
    const t0 = performance.now();
    const res = await fetch(`${p.url}/pg/query`, {
      method: "POST",
      headers: { apikey: key, authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
    const body = await res.json();
    const ms = Math.round(performance.now() - t0);
    const ok = res.ok && Array.isArray(body);
    history.unshift({
      id: history.length + 1,
      at: new Date().toISOString(),
      query,
      ms,
      rows: ok ? body.length : null,
      error: ok ? null : String(body?.error ?? `pg-meta answered ${res.status}`),
    });
    if (history.length > 200) history.pop();
    return ok ? json(200, { rows: body, ms }) : json(400, { error: history[0].error, ms });
  }

  async function api(req: Request, url: URL): Promise<Response> {
    const path = url.pathname.slice("/api".length);
    const parts = path.split("/").filter(Boolean);
    const surface = parts[0];
    if (surface && surface in PROXIED) {
      return await proxy(req, surface, parts.slice(1).map(encodeURIComponent).join("/"), url.search);
    }
    const get = req.method === "GET";
    if (get && path === "/schema") return json(200, await schema());
    if (req.method === "POST" && path === "/sql") {
      const body = await req.json().catch(() => null);
      if (typeof body?.query !== "string" || !body.query.trim()) {
        return json(400, { error: "body must be {query: string}" });
      }
      return await runSql(body.query);
    }
    if (get && path === "/sql/history") return json(200, history);
    if (get && parts[0] === "users" && parts[1]) return json(200, await userDetails(parts[1]));
    if (get && path === "/functions-list") {
      return json(
        200,
        [...p.project.functions].map(([name, f]) => {
          const inv = book?.invocationsOf(name) ?? [];
          return {
            name,
            verify_jwt: f.verifyJwt,
            invocations: inv.length,
            last_status: inv[0]?.status ?? null,
          };
        }),
      );
    }
    if (get && parts[0] === "invocations" && parts[1]) {
      if (!book) return json(200, { recorded: false, invocations: [] });
      return json(200, { recorded: true, invocations: book.invocationsOf(parts[1]).slice(0, 200) });
    }
    if (get && parts[0] === "request-log" && parts[1]) return json(200, book?.linesOf(parts[1]) ?? []);
    if (get && path === "/ai-routes") return json(200, aiRoutes());
    if (get && path === "/cron") return json(200, await cron());
    if (req.method === "POST" && parts[0] === "cron" && /^\d+$/.test(parts[1] ?? "") && parts[2] === "run") {
      const runid = await cronWorkerOf(p).runNow(parts[1]).catch((err: Error) => err);
      if (runid instanceof Error) return json(409, { error: runid.message });
      if (runid === null) return json(404, { error: `no cron job ${parts[1]}` });
      return json(200, { jobid: Number(parts[1]), runid: Number(runid) });
    }
    if (req.method === "POST" && parts[0] === "cron" && parts[2] === "active") {
      const body = await req.json().catch(() => null);
      if (typeof body?.active !== "boolean") return json(400, { error: "body must be {active: boolean}" });
      await q(`select cron.alter_job($1::bigint, active := $2)`, [parts[1], body.active]);
      return json(200, { jobid: Number(parts[1]), active: body.active });
    }
    if (get && path === "/queues") return json(200, await queues());
    if (get && parts[0] === "queues" && parts[1]) {
      const exists = await q(`select 1 from pgmq.list_queues() where queue_name = $1`, [parts[1]]);
      if (!exists.length) return json(404, { error: `no queue ${parts[1]}` });
      return json(
        200,
        await q(
          `select msg_id, read_ct, enqueued_at, vt, message from pgmq.q_${
            parts[1].replace(/[^a-z0-9_]/g, "")
          } order by msg_id desc limit 100`,
        ),
      );
    }
    if (req.method === "POST" && parts[0] === "queues" && parts[1] && parts[2] === "send") {
      const body = await req.json().catch(() => undefined);
      if (body === undefined || body === null || typeof body !== "object") {
        return json(400, { error: "body must be the JSON message (an object)" });
      }
      const [row] = await q<{ id: number }>(`select pgmq.send($1, $2::jsonb) as id`, [parts[1], body]);
      return json(201, { msg_id: row.id });
    }
    if (parts[0] === "realtime") return await realtime.handle(req, parts.slice(1));
    if (get && parts[0] === "ops" && parts[1] && parts[1] in OPS) return json(200, await q(OPS[parts[1]]));
    if (get && parts[0] === "flow-runs" && parts[1]) {
      if (!/^[0-9a-f-]{36}$/i.test(parts[1])) return json(400, { error: "not a flow run id" });
      const [run] = await q(`select steps from public.flow_runs where id = $1`, [parts[1]]);
      if (!run) return json(404, { error: `no flow run ${parts[1]}` });
      return json(200, run.steps);
    }
    if (get && path === "/sandbox") {
      const sb = p.sandbox;
      return json(200, {
        url: sb?.url ?? null,
        captures: sb ? sb.entries().flatMap((e) => e.standIn.captures.all()).slice(-200).reverse() : [],
      });
    }
    return json(404, { error: `no dashboard route ${req.method} ${url.pathname}` });
  }

  async function schema() {
    const exposed = p.project.api.schemas;
    const tables = await q(
      `select n.nspname as schema, c.relname as name, c.relrowsecurity as rls, c.reltuples::bigint as estimate,
         (select coalesce(json_agg(a.attname order by array_position(i.indkey, a.attnum)), '[]')
            from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
           where i.indrelid = c.oid and i.indisprimary) as pk,
         (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod))
                          order by a.attnum)
            from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
        and n.nspname not like 'pg_temp%'
      order by 1, 2`,
    );
    const policies = await q(
      `select schemaname as schema, tablename as table, policyname as name, cmd, roles::text[] as roles,
              permissive, qual as using, with_check as check from pg_policies order by 1, 2, 3`,
    );
    return { exposed, tables, policies };
  }

  async function userDetails(id: string) {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return { error: "not a user id" };
    const [profile] = await q(
      `select r.name as role from public.user_profiles up left join public.roles r on r.id = up.role_id
        where up.user_id = $1`,
      [id],
    );
    const [credits] = await q(
      `select balance::float8 as balance from public.user_credits where user_id = $1`,
      [
        id,
      ],
    );
    const workspaces = await q(
      `select w.id, w.name, m.role, w.is_personal from public.workspace_members m
         join public.workspaces w on w.id = m.workspace_id where m.user_id = $1 order by w.name`,
      [id],
    );
    return { role: profile?.role ?? null, credits: credits?.balance ?? null, workspaces };
  }

  /**
   * The AI backend's routes (its Hono app's, without middleware) with their requests, matched by
   * method and path pattern, newest first.
   */
  function aiRoutes() {
    const seen = new Set<string>();
    const routes: { method: string; path: string; re: RegExp }[] = [];
    for (const r of aiBackendOf(p).app.routes) {
      const k = `${r.method} ${r.path}`;
      if (r.method === "ALL" || r.path.includes("*") || seen.has(k)) continue;
      seen.add(k);
      // Hono paths here are letters, digits, - _ . / and :params.
      const pattern = r.path.replaceAll(".", "\\.").replace(/:\w+/g, "[^/]+");
      const re = new RegExp(`^${pattern}$`);
      routes.push({ method: r.method, path: r.path, re });
    }
    const requests = (book?.onSurface("ai-backend") ?? []).slice(0, 500).map((i) => ({
      ...i,
      route: routes.find((r) => r.method === i.method && r.re.test(i.path))?.path ?? null,
    }));
    return {
      recorded: book !== null,
      routes: routes.map(({ method, path }) => {
        const mine = requests.filter((i) => i.method === method && i.route === path);
        return { method, path, invocations: mine.length, last_status: mine[0]?.status ?? null };
      }),
      requests,
    };
  }

  async function cron() {
    const jobs = await q<{ jobid: number; schedule: string; active: boolean }>(
      `select jobid, jobname, schedule, active, command,
              (select max(start_time) from cron.job_run_details d where d.jobid = j.jobid) as last_run
         from cron.job j order by jobid`,
    );
    const { parseSchedule } = await import("../cron/schedule.ts");
    const now = Date.now();
    const withNext = jobs.map((j) => {
      try {
        return {
          ...j,
          next_run: j.active ? new Date(parseSchedule(j.schedule).next(now)).toISOString() : null,
        };
      } catch (err) {
        return { ...j, next_run: `invalid schedule: ${err instanceof Error ? err.message : err}` };
      }
    });
    const runs = await q<{ runid: string }>(
      `select d.runid, d.jobid, j.jobname, d.status, d.return_message, d.start_time, d.end_time
         from cron.job_run_details d left join cron.job j using (jobid) order by d.runid desc limit 100`,
    );
    const responses = await q<{ id: string; status_code: number | null; content: string | null }>(
      `select id, status_code, content_type, left(content, 300) as content, timed_out, error_msg, created
         from net._http_response order by created desc limit 100`,
    );
    // A run's pg_net requests (the ids its command returned, which the cron worker keeps) and
    // their responses once pg_net has them; older responses may have been purged (pg_net.ttl).
    const worker = cronWorkerOf(p);
    const linked = runs.map((r) => ({ run: r, ids: worker.netRequestsOf(String(r.runid)) }));
    const wanted = [...new Set(linked.flatMap((l) => l.ids))];
    const byId = new Map(
      (wanted.length
        ? await q<
          { id: string; status_code: number | null; content: string | null; error_msg: string | null }
        >(
          `select id::text, status_code, left(content, 300) as content, error_msg
             from net._http_response where id = any($1::bigint[])`,
          [wanted],
        )
        : []).map((r) => [r.id, r]),
    );
    const withResponses = linked.map(({ run, ids }) => {
      const got = ids.map((id) => byId.get(id));
      return {
        ...run,
        net_request_ids: ids.length ? ids.join(", ") : null,
        response_status: ids.length
          ? got.map((r) => r ? r.status_code ?? `error: ${r.error_msg}` : "pending").join(", ")
          : null,
        response_body: got.map((r) => r?.content).filter((c) => c != null).join("\n") || null,
      };
    });
    return { jobs: withNext, runs: withResponses, responses };
  }

  async function queues() {
    return await q(
      `select m.queue_name, m.queue_length::int as depth, m.newest_msg_age_sec, m.oldest_msg_age_sec,
              m.total_messages::int as total_messages
         from pgmq.metrics_all() m order by 1`,
    );
  }

  const server = Deno.serve(
    { hostname, port: opts.port ?? 0, signal: abort.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const refused = refuse(req, origin, token);
      if (refused) return secured(refused);
      try {
        if (url.pathname.startsWith("/api/")) return secured(await api(req, url));
        if (req.method === "GET" && url.pathname === "/") {
          page ??= renderPage({ platformUrl: p.url, sandboxUrl: p.sandbox?.url ?? null });
          return secured(
            new Response(page.replace("__DASHBOARD_TOKEN__", token), {
              headers: {
                "content-type": "text/html; charset=utf-8",
                "content-security-policy":
                  `default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; ` +
                  `img-src 'self' data: blob: ${p.url}; frame-src ${p.url}; connect-src 'self'; frame-ancestors 'none'`,
              },
            }),
          );
        }
        if (url.pathname === "/favicon.ico") return secured(new Response(null, { status: 204 }));
        return secured(json(404, { error: `no page ${url.pathname}` }));
      } catch (err) {
        p.log(`dashboard: ${req.method} ${url.pathname} failed: ${err instanceof Error ? err.stack : err}`);
        return secured(json(500, { error: err instanceof Error ? err.message : String(err) }));
      }
    },
  );
  origin = `http://${hostname}:${server.addr.port}`;
  return {
    url: origin,
    token,
    async stop() {
      await realtime.stop();
      abort.abort();
      await server.finished;
    },
  };
}

/** The operations views (read-only), by name. */
const OPS: Record<string, string> = {
  ledger:
    `select t.user_id, u.email, t.action, t.kind, count(*)::int as entries, sum(t.amount)::float8 as amount,
                  max(t.created_at) as last_at
             from public.credit_transactions t left join auth.users u on u.id = t.user_id
            group by 1, 2, 3, 4 order by last_at desc limit 500`,
  // Each job's finished stages (its checkpoints, in order, with the progress each reached).
  jobs: `select j.id, j.job_type, j.status, j.current_stage, j.progress,
                (select string_agg(c.stage || ' ' || c.progress || '%', ' → ' order by c.created_at, c.progress)
                   from public.ai_job_checkpoints c where c.job_id = j.id) as stages_done,
                j.message, j.filename, j.error, j.user_id, j.created_at, j.completed_at
           from public.ai_jobs j order by j.created_at desc limit 200`,
  // The node results are read per run (/api/flow-runs/<id>); here a count per node status.
  flows:
    `select r.id, f.name as flow, r.status, r.trigger_type, r.duration_ms, jsonb_array_length(r.steps) as nodes,
                 (select string_agg(n || ' ' || s, ', ' order by s) from (
                    select e->>'status' as s, count(*) as n from jsonb_array_elements(r.steps) e group by 1) x)
                   as node_statuses,
                 r.error_node_id, r.error_message, r.started_at
            from public.flow_runs r left join public.flows f on f.id = r.flow_id
           order by r.started_at desc nulls last limit 200`,
  bulks: `select b.id, b.channel_type, b.message_type, b.status, b.total,
                 count(r.id) filter (where r.status not in ('queued', 'sending'))::int as done,
                 count(r.id) filter (where r.status = 'sent')::int as sent,
                 count(r.id) filter (where r.status = 'failed')::int as failed,
                 count(r.id) filter (where r.status = 'opted_out')::int as opted_out,
                 b.created_at, b.completed_at
            from public.messaging_bulks b left join public.messaging_bulk_recipients r on r.bulk_id = b.id
           group by b.id order by b.created_at desc limit 200`,
  // The spec's price audit: over 30 days, the share of price_lookup calls whose id was committed
  // into quote_items or product_prices, and the calls that found nothing.
  "price-audit": `with calls as (
      select id, zero_result from public.agent_tool_call_logs
       where tool_name = 'price_lookup' and created_at > now() - interval '30 days'),
    committed as (
      select distinct c.id from calls c
       where exists (select 1 from public.quote_items qi where qi.price_lookup_call_id = c.id)
          or exists (select 1 from public.product_prices pp where pp.price_lookup_call_id = c.id))
    select (select count(*) from calls)::int as lookups, (select count(*) from committed)::int as committed,
           case when (select count(*) from calls) = 0 then null
                else round((select count(*) from committed)::numeric / (select count(*) from calls), 4)::float8
           end as commit_rate,
           (select count(*) from calls where zero_result)::int as zero_result`,
};
