/**
 * The Postgres port (stack/db/port.ts): node-postgres and psql reach the platform's database,
 * several clients at once; a client's transaction never interleaves with the platform's own
 * (nor the reverse): the platform's requests wait for it and never see its uncommitted rows.
 */
import assert from "node:assert/strict";
import pg from "pg";
import type { Platform } from "../../stack/platform.ts";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import { serviceClient } from "../helpers/platform.ts";
import { dbPortFor } from "../../stack/db/port.ts";
import { DEFAULT_DB_PORT } from "../../stack/config.ts";

let current: Promise<Platform> | null = null;
function platform(): Promise<Platform> {
  current ??= startEphemeralPlatform({ dbPort: 0 });
  return current;
}

const clients: pg.Client[] = [];
async function connect(p: Platform): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: p.dbUrl });
  // A connection the server (or a test) closes emits 'error' on the client object; queries on
  // it still reject, which is what the tests assert.
  c.on("error", () => {});
  await c.connect();
  clients.push(c);
  return c;
}

function dbTest(name: string, fn: (p: Platform) => Promise<void>): void {
  Deno.test({
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      try {
        await fn(await platform());
      } finally {
        for (const c of clients.splice(0)) await c.end().catch(() => {});
      }
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const roleName = (tag: string) => `h12-${tag}-${crypto.randomUUID().slice(0, 8)}`;

/** Settles within ms? (true: resolved or rejected; false: still pending). */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let done = false;
  p.then(() => done = true, () => done = true);
  await sleep(ms);
  return done;
}

dbTest(
  "db port: the URL is the CLI's form on 127.0.0.1, and npm:pg reads and writes the platform's database",
  async (p) => {
    assert.ok(p.dbUrl, "dbPort: 0 serves a port");
    const url = new URL(p.dbUrl);
    assert.deepStrictEqual([url.protocol, url.username, url.password, url.hostname, url.pathname], [
      "postgresql:",
      "postgres",
      "postgres",
      "127.0.0.1",
      "/postgres",
    ]);
    const c = await connect(p);
    const name = roleName("pg");
    await c.query(`insert into public.roles (name, level) values ($1, 7)`, [name]);
    // Written through the port, read over HTTP (REST) and by the platform itself.
    const { data, error } = await serviceClient(p).from("roles").select("name, level").eq("name", name);
    assert.deepStrictEqual(error, null);
    assert.deepStrictEqual(data, [{ name, level: 7 }]);
    const viaPlatform = await p.db.query(`select level from public.roles where name = $1`, [name]);
    assert.deepStrictEqual(viaPlatform.rows, [{ level: 7 }]);
    // PGlite checks no password and has one session: every client is its session user, the
    // platform's superuser (documented in docs/database-port.md).
    const r = await c.query(`select current_user, current_database() db`);
    assert.deepStrictEqual(r.rows, [{ current_user: "supabase_admin", db: "postgres" }]);
  },
);

dbTest("db port: two clients at once, each getting its own answers", async (p) => {
  const [a, b] = [await connect(p), await connect(p)];
  const runs = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) => (i % 2 ? a : b).query(`select $1::int n, $2::text who`, [i, i % 2 ? "a" : "b"]),
    ),
  );
  assert.deepStrictEqual(
    runs.map((r: pg.QueryResult) => r.rows[0]),
    Array.from({ length: 20 }, (_, i) => ({ n: i, who: i % 2 ? "a" : "b" })),
  );
});

dbTest(
  "db port: a rolled-back transaction leaves nothing; the platform's requests and other clients wait and never see it",
  async (p) => {
    const [a, b] = [await connect(p), await connect(p)];
    const name = roleName("tx");
    await a.query("begin");
    await a.query(`insert into public.roles (name, level) values ($1, 3)`, [name]);
    // While a's transaction is open: an HTTP request, the platform's own query and client b wait.
    const http = serviceClient(p).from("roles").select("name").eq("name", name);
    const httpDone = Promise.resolve(http);
    const platformRead = p.db.query(`select name from public.roles where name = $1`, [name]);
    const otherClient = b.query(`select name from public.roles where name = $1`, [name]);
    assert.deepStrictEqual(
      await settlesWithin(Promise.all([httpDone, platformRead, otherClient]), 400),
      false,
    );
    // Still a's own transaction: it sees its row.
    assert.deepStrictEqual((await a.query(`select level from public.roles where name = $1`, [name])).rows, [{
      level: 3,
    }]);
    await a.query("rollback");
    const [h, pr, oc] = await Promise.all([httpDone, platformRead, otherClient]);
    assert.deepStrictEqual(h.error, null);
    assert.deepStrictEqual(h.data, []);
    assert.deepStrictEqual(pr.rows, []);
    assert.deepStrictEqual(oc.rows, []);
    // And the platform goes on serving once the client is idle again.
    const after = await serviceClient(p).from("roles").select("name").eq("name", name);
    assert.deepStrictEqual(after.data, []);
  },
);

dbTest("db port: a client never runs inside the platform's own transaction", async (p) => {
  const c = await connect(p);
  const name = roleName("platform-tx");
  let inserted!: () => void;
  const insertedP = new Promise<void>((r) => inserted = r);
  const platformTx = p.db.transaction(async (tx) => {
    await tx.query(`insert into public.roles (name, level) values ($1, 4)`, [name]);
    inserted();
    await sleep(300);
    await tx.rollback();
  });
  await insertedP;
  // Sent while the platform's transaction is open: answered after it, without its row; and the
  // client's BEGIN ... COMMIT does not commit the platform's work.
  const seen = c.query(`select name from public.roles where name = $1`, [name]);
  assert.deepStrictEqual(await settlesWithin(seen, 100), false);
  await platformTx;
  assert.deepStrictEqual((await seen).rows, []);
  await c.query("begin");
  await c.query("commit");
  assert.deepStrictEqual((await p.db.query(`select 1 from public.roles where name = $1`, [name])).rows, []);
});

dbTest(
  "db port: an extended-protocol error, then a client gone mid-transaction: rolled back, the platform goes on",
  async (p) => {
    const c = await connect(p);
    const bad = await c.query(`select 1/$1::int`, [0]).then(() => null, (e: Error) => e.message);
    assert.deepStrictEqual(bad, "division by zero");
    const name = roleName("gone");
    const c2 = await connect(p);
    await c2.query("begin");
    await c2.query(`insert into public.roles (name, level) values ($1, 5)`, [name]);
    // The socket closes without COMMIT (a killed psql): the server rolls back and frees the lock.
    (c2 as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const r = await p.db.query(`select 1 from public.roles where name = $1`, [name]);
    assert.deepStrictEqual(r.rows, []);
    const { data } = await serviceClient(p).from("roles").select("name").eq("name", name);
    assert.deepStrictEqual(data, []);
    assert.deepStrictEqual((await c.query(`select 2 as two`)).rows, [{ two: 2 }]);
  },
);

dbTest("db port: Debian's psql runs queries and meta-commands through the port", async (p) => {
  const found = await new Deno.Command("psql", { args: ["--version"], stdout: "null", stderr: "null" })
    .output()
    .then((o) => o.success, () => false);
  if (!found) {
    console.warn("SKIPPED: psql is not installed (apt-get install -y postgresql-client)");
    return;
  }
  const name = roleName("psql");
  const run = async (...args: string[]) => {
    const o = await new Deno.Command("psql", {
      args: [p.dbUrl!, "-X", "-v", "ON_ERROR_STOP=1", "-qAt", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(o.stderr);
    assert.ok(o.success, `psql failed: ${err}`);
    return new TextDecoder().decode(o.stdout).trim();
  };
  assert.deepStrictEqual(
    await run("-c", `insert into public.roles (name, level) values ('${name}', 2) returning level`),
    "2",
  );
  assert.deepStrictEqual(await run("-c", `select name from public.roles where name = '${name}'`), name);
  // \d runs psql's catalog queries (several statements per command).
  const described = await run("-c", "\\d public.roles");
  assert.ok(described.includes("name|text"), described);
  const { data } = await serviceClient(p).from("roles").select("level").eq("name", name);
  assert.deepStrictEqual(data, [{ level: 2 }]);
});

Deno.test("db port: served by default on 54322, a free port with --port 0, none for in-memory test platforms", async () => {
  assert.deepStrictEqual(dbPortFor({ dataDir: "/x/.data", apiPort: 54321 }), DEFAULT_DB_PORT);
  assert.deepStrictEqual(DEFAULT_DB_PORT, 54322);
  assert.deepStrictEqual(dbPortFor({ dataDir: "/x/.data", apiPort: 0 }), 0);
  assert.deepStrictEqual(dbPortFor({ dataDir: "/x/.data", apiPort: 54321, dbPort: 6000 }), 6000);
  assert.deepStrictEqual(dbPortFor({ dataDir: null, apiPort: 0 }), null);
  assert.deepStrictEqual(dbPortFor({ dataDir: null, apiPort: 0, dbPort: 0 }), 0);
  // A test platform started without dbPort binds nothing.
  const p = await startEphemeralPlatform();
  try {
    assert.deepStrictEqual(p.dbUrl, undefined);
  } finally {
    await p.stop();
  }
});

Deno.test({
  name: "db port: stop() closes the port and rolls back a client's open transaction",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const p = await platform();
    current = null;
    const port = Number(new URL(p.dbUrl!).port);
    const c = new pg.Client({ connectionString: p.dbUrl });
    c.on("error", () => {});
    await c.connect();
    await c.query("begin");
    await c.query(`insert into public.roles (name, level) values ($1, 1)`, [roleName("stop")]);
    // Would hang on the client's transaction if the port were not stopped first.
    await p.stop();
    const refused = await Deno.connect({ hostname: "127.0.0.1", port }).then((conn) => {
      conn.close();
      return false;
    }, (e) => e instanceof Deno.errors.ConnectionRefused);
    assert.ok(refused, "the port is closed after stop()");
    await c.end().catch(() => {});
  },
});
