/**
 * Shared setup of the background-agent tests: a team with credits, calls to
 * background-agent-runner, agents created over /rest/v1 as an admin's frontend would, and seed
 * data for the agents to find (price documents, quote requests, products) written directly in
 * the database with past timestamps, as time would have left them.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createTeam, type Team } from "../helpers/team.ts";
import { type Call, call } from "../quotes/helpers.ts";
import type { TestUser } from "../helpers/platform.ts";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";

// deno-lint-ignore no-explicit-any
export type Json = any;

export { balance, grant } from "../helpers/team.ts";
export { waitFor } from "../cron/helpers.ts";
export type { Team };

export function agentTeam(p: Platform, prefix: string, credits = 50): Promise<Team> {
  return createTeam(p, { prefix, credits, names: ["Agents Co", "Elsewhere"] });
}

export function runAgent(p: Platform, token: string | null, body: Record<string, unknown>): Promise<Call> {
  return call(p, "background-agent-runner", "", { method: "POST", token, body });
}

export async function createAgent(u: TestUser, fields: Record<string, unknown>): Promise<Json> {
  const r = await u.client.from("background_agents").insert(fields).select().single();
  assert.equal(r.error, null, JSON.stringify(r.error));
  return r.data;
}

export async function runRow(p: Platform, runId: string): Promise<Json> {
  return (await p.db.query(`select * from public.agent_runs where id = $1`, [runId])).rows[0];
}

export async function logsOf(p: Platform, runId: string): Promise<Json[]> {
  return (await p.db.query(
    `select seq, level, step, message, data from public.agent_run_logs where run_id = $1 order by seq`,
    [runId],
  )).rows;
}

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

/** A Pricing category with price documents `ages` days old (published), plus an old draft. */
export async function seedPriceDocs(p: Platform, ws: string, ages: number[]): Promise<string[]> {
  const cat = (await p.db.query<{ id: string }>(
    `insert into public.kb_categories (workspace_id, name, slug, access_level)
     values ($1, 'Pricing', 'pricing', 'admin') on conflict (workspace_id, slug) do update set name = 'Pricing'
     returning id`,
    [ws],
  )).rows[0].id;
  const ids: string[] = [];
  for (const [i, age] of [...ages, 400].entries()) {
    const draft = i === ages.length;
    const r = await p.db.query<{ id: string }>(
      `insert into public.kb_docs (workspace_id, category_id, title, content, content_hash, status, price_doc_type,
                                   created_at, updated_at)
       values ($1, $2, $3, 'Tiles: 10 EUR/m2', md5($3) || md5($3 || '.'), $4, 'price_list',
               $5, $5) returning id`,
      [ws, cat, `Price list ${crypto.randomUUID().slice(0, 8)}`, draft ? "draft" : "published", ago(age)],
    );
    if (!draft) ids.push(r.rows[0].id);
  }
  return ids;
}

/** A quote request of `user` made `days` ago with the given status. */
export async function seedQuoteRequest(
  p: Platform,
  ws: string,
  user: string,
  days: number,
  status = "pending",
): Promise<string> {
  const q = await p.db.query<{ id: string }>(
    `insert into public.quotes (workspace_id, title, customer_name) values ($1, 'Bathroom', 'Ada') returning id`,
    [ws],
  );
  return (await p.db.query<{ id: string }>(
    `insert into public.quote_requests (quote_id, workspace_id, user_id, status, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $5) returning id`,
    [q.rows[0].id, ws, user, status, ago(days)],
  )).rows[0].id;
}

export async function seedProduct(
  p: Platform,
  ws: string,
  fields: { name: string; description?: string | null; metadata?: Record<string, unknown>; sku?: string },
): Promise<string> {
  return (await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name, description, metadata, sku) values ($1, $2, $3, $4, $5)
     returning id`,
    [ws, fields.name, fields.description ?? null, fields.metadata ?? {}, fields.sku ?? null],
  )).rows[0].id;
}

/** The project's Vault secrets the pg_cron job reads (once per module). */
export async function vaultSecrets(p: Platform) {
  await p.db.query(
    `select vault.create_secret($1, 'project_url')
      where not exists (select 1 from vault.secrets where name = 'project_url')`,
    [p.url],
  );
  await p.db.query(
    `select vault.create_secret($1, 'service_role_key')
      where not exists (select 1 from vault.secrets where name = 'service_role_key')`,
    [p.config.serviceRoleKey],
  );
}

/** What pg_cron runs every minute: the job's own command, run now instead of waiting a minute. */
export async function cronTick(p: Platform) {
  const job = await p.db.query<{ command: string; schedule: string }>(
    `select command, schedule from cron.job where jobname = 'background-agents-cron'`,
  );
  assert.equal(job.rows[0].schedule, "* * * * *");
  await p.db.query(job.rows[0].command);
}

/** A browser-like supabase-js client signed in with a password: realtime takes the session's JWT. */
export async function signedIn(p: Platform, u: TestUser): Promise<SupabaseClient> {
  const sb = createClient(p.url, p.config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const { error } = await sb.auth.signInWithPassword({ email: u.email, password: u.password });
  assert.equal(error, null);
  return sb;
}

/** Subscribes to agent_run_logs inserts (optionally filtered), pushing each new row into `into`. */
export function subscribe(sb: SupabaseClient, name: string, filter: string | undefined, into: Json[]) {
  const ch = sb.channel(name).on(
    "postgres_changes",
    { event: "INSERT", schema: "public", table: "agent_run_logs", ...(filter ? { filter } : {}) },
    (c) => into.push(c.new),
  );
  return new Promise<typeof ch>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("subscribe timed out")), 15_000);
    ch.subscribe((status, err) => {
      if (status === "SUBSCRIBED") {
        clearTimeout(timer);
        resolve(ch);
      } else if (status === "CHANNEL_ERROR" || status === "TIMED_OUT") {
        clearTimeout(timer);
        reject(new Error(`${status}: ${err?.message ?? ""}`));
      }
    });
  });
}
