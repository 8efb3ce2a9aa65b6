/**
 * Requests of the supabase-js monorepo suites (postgrest-js test/) that the local /rest/v1 answered
 * differently from PostgREST (issue 31 section 4), each pinned to the upstream source it matches:
 * aggregates beside a to-one spread (Plan.hs hoistSpreadAggFunctions, SqlFragment.hs groupF) and
 * the Query Identifier of explain({verbose}) plans. Every test creates its own `cc_` objects and
 * turns aggregates / plans on with the in-database settings, as a PostgREST with
 * `db-aggregates-enabled` / `db-plan-enabled` is configured.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { reloadSchemaCache } from "../../stack/rest/part.ts";
import { anonClient } from "../helpers/platform.ts";
import { rest, restTest } from "./helpers.ts";

const SCHEMA = `
create table public.cc_customers (
  id int primary key, name text not null, city text not null, state text not null, joined_date date not null
);
create table public.cc_orders (
  id int primary key, customer_id int references public.cc_customers (id), amount numeric not null,
  order_date date not null
);
create table public.cc_users (username text primary key);
create table public.cc_channels (id int primary key, slug text not null);
create table public.cc_channel_details (
  id int primary key references public.cc_channels (id), details text
);
create table public.cc_messages (
  id int primary key, username text references public.cc_users (username),
  channel_id int references public.cc_channels (id)
);
insert into public.cc_customers values
  (1, 'Ann', 'New York', 'NY', '2013-10-01'), (2, 'Bob', 'Los Angeles', 'CA', '2016-02-11'),
  (3, 'Cid', 'New York', 'NY', '2023-10-15');
insert into public.cc_orders values
  (1, 1, 10, '2023-11-01'), (2, 2, 20, '2023-11-01'), (3, 3, 30, '2023-11-02'), (4, 1, 5, '2023-11-02'),
  (5, null, 7, '2023-11-02');
insert into public.cc_users values ('supabot');
insert into public.cc_channels values (1, 'public'), (2, 'random'), (3, 'other');
insert into public.cc_channel_details values (1, 'Details for public channel'), (2, 'Details for random channel');
insert into public.cc_messages values (1, 'supabot', 1), (2, 'supabot', 2), (3, 'supabot', 3);
grant select on public.cc_customers, public.cc_orders, public.cc_users, public.cc_channels,
  public.cc_channel_details, public.cc_messages to anon;
`;

let ready: Promise<void> | null = null;
function setup(p: Platform): Promise<void> {
  ready ??= (async () => {
    await p.db.exec(SCHEMA);
    await reloadSchemaCache(p.db);
  })();
  return ready;
}

/** Runs `fn` with `pgrst.<setting> = 'true'` on the authenticator role, reset afterwards. */
async function withSetting(p: Platform, setting: string, fn: () => Promise<void>): Promise<void> {
  await p.db.exec(`alter role authenticator set pgrst.${setting} = 'true'; notify pgrst, 'reload config';`);
  try {
    await fn();
  } finally {
    await p.db.exec(`alter role authenticator reset pgrst.${setting}; notify pgrst, 'reload config';`);
  }
}

const byKeys = (keys: string[]) => (a: Record<string, unknown>, b: Record<string, unknown>) => {
  for (const k of keys) {
    const x = String(a[k]), y = String(b[k]);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

// postgrest-js test/relationships-aggregate-operations.test.ts "select with aggregate count and
// spread"; PostgREST SqlFragment.hs groupF/groupTermFromRelSelectField: a to-one spread's columns
// are selected and grouped as they are (not as jsonb), like the columns of the level itself.
restTest(
  "aggregates beside a to-one spread group by the spread's columns (supabase-js, groupF)",
  async (p) => {
    await setup(p);
    await withSetting(p, "db_aggregates_enabled", async () => {
      const { data, error, status } = await anonClient(p).from("cc_users")
        .select("username, cc_messages(cc_channels(count(), ...cc_channel_details(details)))")
        .limit(1).single();
      assert.equal(error, null);
      assert.equal(status, 200);
      assert.deepEqual(data, {
        username: "supabot",
        cc_messages: [
          { cc_channels: { count: 1, details: "Details for public channel" } },
          { cc_channels: { count: 1, details: "Details for random channel" } },
          { cc_channels: { count: 1, details: null } },
        ],
      });
      // The shape at the top level: `...rel(col),count()`.
      const r = await rest(p, "/cc_orders?select=...cc_customers(city,state),count()");
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((r.json as Record<string, unknown>[]).sort(byKeys(["city"])), [
        { city: "Los Angeles", state: "CA", count: 1 },
        { city: "New York", state: "NY", count: 3 },
        { city: null, state: null, count: 1 },
      ]);
      // docs references/api/aggregate_functions.rst "Grouping with Columns from a Spreaded Resource".
      const sums = await rest(
        p,
        "/cc_orders?select=amount.sum(),...cc_customers(city,state)&customer_id=not.is.null",
      );
      assert.equal(sums.status, 200, sums.text);
      assert.deepEqual((sums.json as Record<string, unknown>[]).sort(byKeys(["city"])), [
        { sum: 20, city: "Los Angeles", state: "CA" },
        { sum: 45, city: "New York", state: "NY" },
      ]);
    });
  },
);

// PostgREST Plan.hs hoistSpreadAggFunctions and aggregate_functions.rst "Aggregate Functions with
// Columns from a Spreaded Resource": an aggregate inside a to-one spread is applied by the nearest
// level that is not a to-one spread, over that level's groups.
restTest(
  "aggregates inside a to-one spread are hoisted to the level above (hoistSpreadAggFunctions)",
  async (p) => {
    await setup(p);
    await withSetting(p, "db_aggregates_enabled", async () => {
      const r = await rest(
        p,
        "/cc_orders?select=order_date,...cc_customers(newest:joined_date.max(),joined_date.min())&customer_id=not.is.null",
      );
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((r.json as Record<string, unknown>[]).sort(byKeys(["order_date"])), [
        { order_date: "2023-11-01", newest: "2016-02-11", min: "2013-10-01" },
        { order_date: "2023-11-02", newest: "2023-10-15", min: "2013-10-01" },
      ]);
      // Casts on the input and the output, and count() of the spread rows (NULL-extended rows are
      // not counted), with nothing else selected: one row for the whole table.
      const whole = await rest(
        p,
        "/cc_orders?select=...cc_customers(customers:count(),total:id::numeric.sum()::text)",
      );
      assert.equal(whole.status, 200, whole.text);
      assert.deepEqual(whole.json, [{ customers: 4, total: "7" }]);
      // The same through supabase-js, inside an embedded (JSON) level.
      const { data, error } = await anonClient(p).from("cc_customers")
        .select("name, cc_orders(...cc_customers(city.count()))").eq("id", 1).single();
      assert.equal(error, null);
      assert.deepEqual(data, { name: "Ann", cc_orders: [{ count: 2 }] });
    });
  },
);

// PostgREST Plan.hs addToManyOrderSelects: "Aggregates are not implemented for one-to-many or
// many-to-many spreads." (NotImplemented, 400 PGRST127, Error.hs).
restTest("aggregates in a to-many spread are 400 PGRST127 (addToManyOrderSelects)", async (p) => {
  await setup(p);
  await withSetting(p, "db_aggregates_enabled", async () => {
    for (
      const select of ["name,...cc_orders(amount.sum())", "name,...cc_orders(id,...cc_customers(id.count()))"]
    ) {
      const r = await rest(p, `/cc_customers?select=${select}`);
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.json, {
        code: "PGRST127",
        message: "Feature not implemented",
        details: "Aggregates are not implemented for one-to-many or many-to-many spreads.",
        hint: null,
      });
    }
  });
});

// postgrest-js test/transforms.test.ts "explain with options": explain({verbose: true}) shows the
// plan's "Query Identifier" (Postgres EXPLAIN VERBOSE prints it when compute_query_id is on, as on
// hosted Supabase where pg_stat_statements turns query ids on).
restTest(
  "explain({verbose}) shows the Query Identifier, in json and text (postgrest-js explain)",
  async (p) => {
    await setup(p);
    await withSetting(p, "db_plan_enabled", async () => {
      const db = anonClient(p);
      const json = await db.from("cc_customers").select().explain({
        verbose: true,
        settings: true,
        format: "json",
      });
      assert.equal(json.error, null);
      assert.equal(json.status, 200);
      const plan = (json.data as unknown as Record<string, unknown>[])[0];
      assert.equal(typeof plan.Plan, "object");
      assert.equal(typeof plan["Query Identifier"], "number");
      assert.notEqual(plan["Query Identifier"], 0);
      const text = await db.from("cc_customers").select().eq("city", "New York").explain({ verbose: true });
      assert.equal(text.error, null);
      assert.match(String(text.data), /^Query Identifier: -?\d+$/m);
      // Without verbose, Postgres leaves it out (EXPLAIN prints it only for VERBOSE).
      const plain = await db.from("cc_customers").select().explain({ format: "json" });
      assert.equal("Query Identifier" in (plain.data as unknown as Record<string, unknown>[])[0], false);
      assert.match(String((await db.from("cc_customers").select().explain()).data), /^Aggregate {2}\(cost=/);
      // The query id setting stays in the EXPLAIN's transaction: it is not left on the connection.
      const after = await rest(p, "/cc_customers?select=name&id=eq.1");
      assert.deepEqual(after.json, [{ name: "Ann" }]);
      const row = await p.db.query<{ v: string }>(`select current_setting('compute_query_id') as v`);
      assert.notEqual(row.rows[0].v, "on");
    });
  },
);
