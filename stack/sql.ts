/**
 * `deno task sql "<statements>"`: runs SQL as the database superuser against the running local
 * platform (POST /pg/query with the service-role key) and prints the rows as a table.
 *
 *   deno task sql "select id, name from public.workspaces"
 *   echo "select count(*) from auth.users" | deno task sql
 *   deno task sql --data-dir /tmp/other "select 1"
 *
 * The platform is the one running on the data folder (--data-dir, SUPABASE_LOCAL_DATA_DIR, else
 * .data/), found through its platform.json (stack/running.ts), so beside a second platform each
 * folder's sql reads its own database.
 */
import { LOCAL_SERVICE_ROLE_KEY } from "./config.ts";
import { resolveDataDir, runningPlatform } from "./running.ts";

let args = Deno.args;
let dataDir: string | undefined;
if (args[0] === "--data-dir" && args.length >= 2) {
  dataDir = args[1];
  args = args.slice(2);
} else if (args[0]?.startsWith("--data-dir=")) {
  dataDir = args[0].slice("--data-dir=".length);
  args = args.slice(1);
}
const dir = resolveDataDir(dataDir);
const rec = await runningPlatform(dir);
if (!rec?.url) {
  console.error(
    `no local platform is running for ${dir} (start it with: deno task start${
      dataDir ? ` --data-dir ${dataDir}` : ""
    }; another folder: deno task sql --data-dir <path> "...")`,
  );
  Deno.exit(1);
}
const query = args.length ? args.join(" ") : await new Response(Deno.stdin.readable).text();
let res: Response;
try {
  res = await fetch(`${rec.url}/pg/query`, {
    method: "POST",
    headers: { apikey: LOCAL_SERVICE_ROLE_KEY, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
} catch (err) {
  console.error(`cannot reach the local platform for ${dir} at ${rec.url}: ${err}`);
  Deno.exit(1);
}
const body = await res.json();
if (!res.ok) {
  console.error(`ERROR: ${body.error}${body.code ? ` (SQLSTATE ${body.code})` : ""}`);
  Deno.exit(1);
}
if (Array.isArray(body) && body.length) console.table(body);
else console.log(Array.isArray(body) ? "(no rows)" : body);
