/**
 * `deno task sql "<statements>"`: runs SQL as the database superuser against the running local
 * platform (POST /pg/query with the service-role key) and prints the rows as a table.
 *
 *   deno task sql "select id, name from public.workspaces"
 *   echo "select count(*) from auth.users" | deno task sql
 */
import { DEFAULT_API_PORT, LOCAL_SERVICE_ROLE_KEY } from "./config.ts";

const port = Deno.env.get("SUPABASE_LOCAL_API_PORT") ?? String(DEFAULT_API_PORT);
const query = Deno.args.length ? Deno.args.join(" ") : await new Response(Deno.stdin.readable).text();
let res: Response;
try {
  res = await fetch(`http://127.0.0.1:${port}/pg/query`, {
    method: "POST",
    headers: { apikey: LOCAL_SERVICE_ROLE_KEY, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
} catch (err) {
  console.error(`cannot reach the local platform on port ${port} (is deno task start running?): ${err}`);
  Deno.exit(1);
}
const body = await res.json();
if (!res.ok) {
  console.error(`ERROR: ${body.error}${body.code ? ` (SQLSTATE ${body.code})` : ""}`);
  Deno.exit(1);
}
if (Array.isArray(body) && body.length) console.table(body);
else console.log(Array.isArray(body) ? "(no rows)" : body);
