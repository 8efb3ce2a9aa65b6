/**
 * quotes-api list latency: `deno run -A bench/quotes.ts [--requests 200] [--concurrency 1]`.
 *
 * Starts an ephemeral local platform, a workspace with one quote and 1,000 quote requests (900
 * of them the benchmarked member's, 100 another member's, so the owner filter has work to do),
 * then measures over loopback, through the gateway and the functions router with a user JWT:
 *   - GET /functions/v1/quotes-api/quote-requests           (all 900 of the caller's, one page)
 *   - GET /functions/v1/quotes-api/quote-requests?limit=50  (the first page a UI shows)
 *   - GET /functions/v1/quotes-api/quote-requests/{id}
 * and the /rest/v1 read the list route makes, so the function's own overhead is visible.
 */
import { parseArgs } from "node:util";
import { createClient } from "@supabase/supabase-js";
import { startEphemeralPlatform } from "../fixtures/platform.ts";
import { fmtLoad, load } from "./lib.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { requests: { type: "string", default: "200" }, concurrency: { type: "string", default: "1" } },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);

const platform = await startEphemeralPlatform();
const auth = { persistSession: false, autoRefreshToken: false };
try {
  const signUp = async (email: string) => {
    const { data, error } = await createClient(platform.url, platform.config.anonKey, { auth }).auth
      .signUp({ email, password: "password-123" });
    if (error || !data.session) throw new Error(`signUp failed: ${error?.message}`);
    return { id: data.user!.id, token: data.session.access_token };
  };
  const owner = await signUp("bench-owner@example.com");
  const member = await signUp("bench-member@example.com");
  const other = await signUp("bench-other@example.com");
  const ws = (await platform.db.query<{ id: string }>(
    `insert into public.workspaces (name, owner_id) values ('Bench', $1) returning id`,
    [owner.id],
  )).rows[0].id;
  await platform.db.query(
    `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'member'), ($1, $3, 'member')`,
    [ws, member.id, other.id],
  );
  const quote = (await platform.db.query<{ id: string }>(
    `insert into public.quotes (workspace_id, created_by, customer_name) values ($1, $2, 'Bench customer')
     returning id`,
    [ws, owner.id],
  )).rows[0].id;
  await platform.db.query(
    `insert into public.quote_requests (quote_id, workspace_id, user_id, notes, created_at)
     select $1, $2, case when g % 10 = 0 then $4::uuid else $3::uuid end, 'request ' || g,
            now() - make_interval(secs => g)
       from generate_series(1, 1000) g`,
    [quote, ws, member.id, other.id],
  );
  // Hosted Postgres has autovacuum's statistics by now; PGlite needs them asked for.
  await platform.db.exec(`analyze public.quote_requests; analyze public.quotes;`);
  const one = (await platform.db.query<{ id: string }>(
    `select id from public.quote_requests where user_id = $1 limit 1`,
    [member.id],
  )).rows[0].id;

  const headers = { apikey: platform.config.anonKey, Authorization: `Bearer ${member.token}` };
  const hit = (path: string, expectRows?: number) => async () => {
    const r = await fetch(`${platform.url}${path}`, { headers });
    const body = await r.json();
    const rows = Array.isArray(body) ? body.length : Array.isArray(body.data) ? body.data.length : 1;
    return r.status === 200 && (expectRows === undefined || rows === expectRows);
  };
  const opts = { requests, concurrency, maxSeconds: 60, warmup: 20 };
  const fn = "/functions/v1/quotes-api";
  const results = [
    ["GET quote-requests (900 rows)", await load(hit(`${fn}/quote-requests`, 900), opts)],
    ["GET quote-requests?limit=50", await load(hit(`${fn}/quote-requests?limit=50`, 50), opts)],
    ["GET quote-requests/{id}", await load(hit(`${fn}/quote-requests/${one}`), opts)],
    [
      "baseline: /rest/v1 quote_requests limit 50",
      await load(
        hit(
          `/rest/v1/quote_requests?select=*,quotes(id,quote_number)&user_id=eq.${member.id}&order=created_at.desc&limit=50`,
          50,
        ),
        opts,
      ),
    ],
    [
      "baseline: /rest/v1 quote_requests (900 rows)",
      await load(
        hit(
          `/rest/v1/quote_requests?select=*,quotes(id,quote_number)&user_id=eq.${member.id}&order=created_at.desc`,
          900,
        ),
        opts,
      ),
    ],
  ] as const;
  console.log(`quotes-api list, 1,000 quote requests in the workspace, concurrency ${concurrency}`);
  for (const [name, r] of results) console.log(fmtLoad(name, r));
} finally {
  await platform.stop();
}
