/**
 * The Postgres port (54322, as `supabase start`): the platform's one PGlite served over the wire
 * protocol by PGlite's socket server (@electric-sql/pglite-socket), so psql, pg_dump, GUI
 * clients, ORMs and `supabase ... --db-url` reach the same database the platform serves.
 *
 * One database session, shared: PGlite is a single Postgres backend. The socket server's
 * multiplexer queues every client's messages and, while a client's transaction is open, runs
 * only that client's messages. The platform, though, runs its own transactions on the same
 * backend under PGlite's transaction lock (`transaction()`, `query()`, the REST layer's
 * `_runExclusiveTransaction`), which the socket server does not take. So the socket server is
 * given a view of the database (`SharedLockDb`) that takes that same lock for a client's message
 * and keeps it until the client is back to idle (ReadyForQuery 'I'): a client's BEGIN ... COMMIT
 * (or an extended-protocol batch up to its Sync) never interleaves with the platform's
 * transactions, nor the reverse; the platform's requests wait while a client holds a transaction
 * open and never see its uncommitted rows.
 *
 * Limits (PGlite's, documented in docs/database-port.md): no authentication (the startup
 * packet's user and password are not checked and every client is the database's `postgres`
 * session, so `postgresql://postgres:postgres@127.0.0.1:54322/postgres` works as with the CLI);
 * bound to 127.0.0.1 only for that reason; session-level `SET` from a client changes the one
 * shared session (use `SET LOCAL` inside a transaction); no cancel requests, no SSL.
 */
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { DEFAULT_DB_PORT } from "../config.ts";
import type { PlatformPart } from "../part.ts";
import type { PGlite } from "./database.ts";

/** Terminate ('X'): PGlite ignores it (no output, no effect on the backend). */
const TERMINATE = new Uint8Array([0x58, 0, 0, 0, 4]);

/** Simple-protocol `ROLLBACK` (Query message). */
const ROLLBACK = new Uint8Array([0x51, 0, 0, 0, 13, ...new TextEncoder().encode("ROLLBACK"), 0]);

/**
 * What PGLiteSocketServer uses of its `db` (pglite-socket 0.2.17: waitReady, runExclusive,
 * execProtocolRawStream, isInTransaction, exec("ROLLBACK")), with the platform's transaction
 * lock held from a client's first message until it is idle again.
 */
class SharedLockDb {
  /** Set while the socket side holds PGlite's transaction lock. */
  #release: (() => void) | null = null;
  /** Status byte of the last ReadyForQuery a client's message produced (null: none yet). */
  #status: number | null = null;
  #tail = new Uint8Array(0);
  /** First byte of the client's message being run (its type; 0 for the startup packet). */
  #type = 0;

  constructor(readonly db: PGlite) {}

  get waitReady(): Promise<void> {
    return this.db.waitReady;
  }

  /** The socket server keeps serving the last client only while this is true. */
  isInTransaction(): boolean {
    return this.#release !== null;
  }

  #acquire(): Promise<void> {
    return new Promise((acquired) => {
      this.db._runExclusiveTransaction(() =>
        new Promise<void>((release) => {
          this.#release = release;
          acquired();
        })
      );
    });
  }

  #releaseLock(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  /** One client message: under the transaction lock (taken unless held) and the query lock. */
  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.#release) await this.#acquire();
    this.#status = null;
    this.#tail = new Uint8Array(0);
    try {
      const out = await this.db._runExclusiveQuery(fn);
      // Idle again ('I'): the platform may run. 'T'/'E' (a transaction block) or no
      // ReadyForQuery yet (Parse/Bind/Execute before their Sync): the client keeps the lock.
      // Terminate ('X') ends whatever the client left open.
      if (this.#status === 0x49) this.#releaseLock();
      else if (this.#type === 0x58) await this.#rollback();
      return out;
    } catch (err) {
      // The backend's state is unknown: end whatever the client had open, never leave the
      // platform locked out.
      await this.#rollback();
      throw err;
    }
  }

  async execProtocolRawStream(
    message: Uint8Array,
    opts: { onRawData: (data: Uint8Array) => void },
  ): Promise<void> {
    this.#type = message[0];
    try {
      await this.db.execProtocolRawStream(message, {
        onRawData: (data) => {
          this.#track(data);
          opts.onRawData(data);
        },
      });
    } finally {
      // PGlite keeps the stream's output callback after execProtocolRawStream, and its next
      // execProtocol (the REST layer's) would write into this client's socket. A Terminate
      // message is ignored by PGlite without output and execProtocol then clears the callback.
      await this.db.execProtocol(TERMINATE, { syncToFs: false });
    }
  }

  /** Keeps the last 6 bytes the backend sent: a trailing ReadyForQuery is 'Z', len 5, status. */
  #track(data: Uint8Array): void {
    const joined = new Uint8Array(this.#tail.length + data.length);
    joined.set(this.#tail);
    joined.set(data, this.#tail.length);
    this.#tail = joined.slice(-6);
    const t = this.#tail;
    if (t.length === 6 && t[0] === 0x5a && t[1] === 0 && t[2] === 0 && t[3] === 0 && t[4] === 5) {
      this.#status = t[5];
    }
  }

  /** Called by the socket server for a client gone in the middle of a transaction. */
  async exec(sql: string): Promise<void> {
    if (sql.trim().toUpperCase() !== "ROLLBACK") {
      throw new Error(`unexpected exec from pglite-socket: ${sql}`);
    }
    await this.#rollback();
  }

  /**
   * Rolls back what the client holding the lock now left open and releases the lock; a no-op
   * when that hold has ended meanwhile (another client's hold is never touched).
   */
  async #rollback(): Promise<void> {
    const hold = this.#release;
    if (!hold) return;
    await this.db._runExclusiveQuery(async () => {
      if (this.#release !== hold) return;
      try {
        await this.db.execProtocol(ROLLBACK, { throwOnError: false });
      } finally {
        this.#releaseLock();
      }
    });
  }

  /** After the server stopped: a transaction no client will finish is rolled back. */
  close(): Promise<void> {
    return this.#rollback();
  }
}

export interface DbPort {
  port: number;
  /** postgresql://postgres:postgres@127.0.0.1:<port>/postgres */
  url: string;
  stop(): Promise<void>;
}

/** Serves `db` on hostname:port (0: a free port) until stop(). */
export async function serveDatabase(db: PGlite, hostname: string, port: number): Promise<DbPort> {
  const shared = new SharedLockDb(db);
  const server = new PGLiteSocketServer({
    db: shared as unknown as PGlite,
    host: hostname,
    port,
    maxConnections: 100,
  });
  await server.start();
  const bound = Number(server.getServerConn().split(":").pop());
  return {
    port: bound,
    url: `postgresql://postgres:postgres@${hostname}:${bound}/postgres`,
    async stop() {
      await server.stop();
      await shared.close();
    },
  };
}

/**
 * The port the platform serves: config.dbPort when set (null: none); otherwise none for an
 * in-memory (test) platform, a free one when the API port is free-picked, else 54322.
 */
export function dbPortFor(config: { dbPort?: number | null; dataDir: string | null; apiPort: number }) {
  if (config.dbPort !== undefined) return config.dbPort;
  if (config.dataDir === null) return null;
  return config.apiPort === 0 ? 0 : DEFAULT_DB_PORT;
}

export const dbPortPart: PlatformPart = {
  name: "db-port",
  async start(p) {
    const port = dbPortFor(p.config);
    if (port === null) return;
    const served = await serveDatabase(p.db, p.config.hostname, port);
    p.dbUrl = served.url;
    return { stop: () => served.stop() };
  },
};
