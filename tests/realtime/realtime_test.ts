/**
 * /realtime/v1 through supabase-js channels, as a frontend uses them: postgres_changes for
 * inserts and updates made over /rest/v1 by another user arrive only when RLS lets the
 * subscriber read the row, a filter narrows them, a table outside the supabase_realtime
 * publication sends nothing (and says so in a system message), broadcast reaches the other
 * client (not the sender by default), presence syncs, and a bad apikey is refused.
 *
 * "Nothing arrives" is shown by order, not by waiting: changes are delivered in commit order on
 * one socket, so when a later change arrives, an earlier one that should not have is known
 * absent.
 */
import assert from "node:assert/strict";
import { createClient, type RealtimeChannel, type SupabaseClient } from "@supabase/supabase-js";
import { createUser, platformTest, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";

const WAIT_MS = 30_000;

/** Events of one kind, awaited in order; a missing event fails after WAIT_MS. */
class Inbox<T> {
  #items: T[] = [];
  #waiters: ((v: T) => void)[] = [];
  push = (v: T) => {
    const w = this.#waiters.shift();
    if (w) w(v);
    else this.#items.push(v);
  };
  next(what: string): Promise<T> {
    const v = this.#items.shift();
    if (v !== undefined) return Promise.resolve(v);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS);
      this.#waiters.push((x) => {
        clearTimeout(timer);
        resolve(x);
      });
    });
  }
  get pending(): T[] {
    return [...this.#items];
  }
}

type Change = {
  eventType: string;
  new: Record<string, unknown>;
  old: Record<string, unknown>;
  table: string;
};

async function setup(p: Platform): Promise<void> {
  await p.db.exec(`
    create table if not exists public.rt_notes (
      id bigint generated always as identity primary key,
      owner uuid not null default auth.uid(),
      body text not null
    );
    alter table public.rt_notes enable row level security;
    create policy rt_notes_read on public.rt_notes for select to authenticated
      using (owner = (select auth.uid()) or body like 'public%');
    create policy rt_notes_insert on public.rt_notes for insert to authenticated
      with check (owner = (select auth.uid()));
    create policy rt_notes_update on public.rt_notes for update to authenticated
      using (owner = (select auth.uid()));
    grant select, insert, update on public.rt_notes to authenticated;
    create table if not exists public.rt_hidden (id bigint generated always as identity primary key, body text);
    alter table public.rt_hidden enable row level security;
    create policy rt_hidden_all on public.rt_hidden for all to authenticated using (true) with check (true);
    grant select, insert on public.rt_hidden to authenticated;
    alter publication supabase_realtime add table public.rt_notes;
    notify pgrst, 'reload schema';
  `);
}

async function subscribe(ch: RealtimeChannel): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("subscribe timed out")), WAIT_MS);
    ch.subscribe((status, err) => {
      if (status === "SUBSCRIBED") {
        clearTimeout(timer);
        resolve();
      } else if (status === "CHANNEL_ERROR" || status === "TIMED_OUT") {
        clearTimeout(timer);
        reject(new Error(`${status}: ${err?.message ?? ""}`));
      }
    });
  });
}

/** A browser-like supabase-js client signed in with a password: realtime takes the session's JWT. */
async function signedIn(p: Platform, u: TestUser): Promise<SupabaseClient> {
  const sb = createClient(p.url, p.config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const { error } = await sb.auth.signInWithPassword({ email: u.email, password: u.password });
  assert.equal(error, null);
  return sb;
}

async function insert(u: TestUser, table: string, body: string): Promise<number> {
  const r = await u.client.from(table).insert({ body }).select("id").single();
  assert.equal(r.error, null, JSON.stringify(r.error));
  return (r.data as { id: number }).id;
}

platformTest("postgres_changes: RLS decides, filters narrow, unpublished tables send nothing", async (p) => {
  await setup(p);
  const writer = await createUser(p, "rt-writer");
  const reader = await createUser(p, "rt-reader");
  const sb = await signedIn(p, reader);
  const all = new Inbox<Change>();
  const filtered = new Inbox<Change>();
  const hidden = new Inbox<Change>();
  const system = new Inbox<{ status: string; message: string; extension: string }>();

  const chAll = sb.channel("notes-all")
    .on("postgres_changes", { event: "*", schema: "public", table: "rt_notes" }, (c) => all.push(c as Change))
    .on("system", {}, (m) => system.push(m));
  const chFiltered = sb.channel("notes-filtered").on(
    "postgres_changes",
    { event: "INSERT", schema: "public", table: "rt_notes", filter: "body=eq.public two" },
    (c) => filtered.push(c as Change),
  );
  const chHidden = sb.channel("hidden")
    .on(
      "postgres_changes",
      { event: "*", schema: "public", table: "rt_hidden" },
      (c) => hidden.push(c as Change),
    )
    .on("system", {}, (m) => system.push(m));
  try {
    await subscribe(chAll);
    assert.deepEqual((await system.next("system message")).message, "Subscribed to PostgreSQL");
    await subscribe(chFiltered);
    await subscribe(chHidden);
    const err = await system.next("system error for the unpublished table");
    assert.equal(err.status, "error");
    assert.match(err.message, /rt_hidden is not in the supabase_realtime publication/);

    // The reader may not read the writer's private note: it never arrives.
    await insert(writer, "rt_notes", "private one");
    await insert(writer, "rt_hidden", "not streamed");
    const id = await insert(writer, "rt_notes", "public one");
    const first = await all.next("INSERT of the public note");
    assert.equal(first.eventType, "INSERT");
    assert.equal(first.table, "rt_notes");
    assert.deepEqual({ ...first.new }, { id, owner: writer.id, body: "public one" });

    // An update over /rest/v1 by the owner.
    const upd = await writer.client.from("rt_notes").update({ body: "public one, edited" }).eq("id", id);
    assert.equal(upd.error, null);
    const second = await all.next("UPDATE");
    assert.equal(second.eventType, "UPDATE");
    assert.equal(second.new.body, "public one, edited");
    assert.deepEqual(second.old, { id }, "replica identity default: the old record is the primary key");

    // The filter lets only its row through; the reader's own note arrives on the unfiltered channel.
    await insert(writer, "rt_notes", "public two");
    await insert(reader, "rt_notes", "mine");
    assert.equal((await all.next("public two")).new.body, "public two");
    assert.equal((await all.next("the reader's own note")).new.body, "mine");
    assert.equal((await filtered.next("filtered INSERT")).new.body, "public two");
    assert.deepEqual(filtered.pending, [], "the filter narrowed the changes");
    assert.deepEqual(hidden.pending, [], "a table outside the publication sends nothing");
  } finally {
    await sb.removeAllChannels();
  }
});

platformTest(
  "broadcast reaches the other client, not the sender; presence syncs; a bad apikey is refused",
  async (p) => {
    const a = await createUser(p, "rt-a");
    const b = await createUser(p, "rt-b");
    const got = new Inbox<{ event: string; payload: unknown }>();
    const echoed = new Inbox<unknown>();
    const joins = new Inbox<string>();
    const chA = a.client.channel("room-1", { config: { presence: { key: "alice" } } })
      .on("broadcast", { event: "cursor" }, (m) => echoed.push(m))
      .on("presence", { event: "join" }, ({ key }) => joins.push(key));
    const chB = b.client.channel("room-1").on(
      "broadcast",
      { event: "cursor" },
      (m) => got.push({ event: m.event, payload: m.payload }),
    );
    try {
      await subscribe(chA);
      await subscribe(chB);
      assert.equal(await chA.send({ type: "broadcast", event: "cursor", payload: { x: 3, y: 4 } }), "ok");
      const m = await got.next("broadcast");
      assert.equal(m.event, "cursor");
      assert.deepEqual(m.payload, { x: 3, y: 4 });
      assert.equal(await chA.track({ online_at: "now" }), "ok");
      assert.equal(await joins.next("presence join"), "alice");
      assert.deepEqual(Object.keys(chA.presenceState()), ["alice"]);
      // REST broadcast (the client's fallback) reaches both subscribers.
      const rest = await fetch(`${p.url}/realtime/v1/api/broadcast`, {
        method: "POST",
        headers: { apikey: p.config.anonKey, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ topic: "room-1", event: "cursor", payload: { from: "rest" } }] }),
      });
      await rest.body?.cancel();
      assert.equal(rest.status, 202);
      assert.deepEqual((await got.next("REST broadcast")).payload, { from: "rest" });
      assert.deepEqual(
        ((await echoed.next("REST broadcast to the sender")) as { payload: unknown }).payload,
        {
          from: "rest",
        },
      );
      assert.deepEqual(echoed.pending, [], "the sender did not get its own WebSocket broadcast");
    } finally {
      await a.client.removeAllChannels();
      await b.client.removeAllChannels();
    }
    const bad = await fetch(`${p.url}/realtime/v1/websocket?apikey=not-a-key&vsn=2.0.0`);
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).message, "Invalid API key");
  },
);

platformTest(
  "one batch, several claims: commit order, RLS per row, SELECT-able columns only, DELETE as on Supabase",
  async (p) => {
    await p.db.exec(`
      create table public.rt_cols (
        id bigint generated always as identity primary key,
        owner uuid not null,
        body text not null,
        secret text
      );
      alter table public.rt_cols enable row level security;
      alter table public.rt_cols replica identity full;
      create policy rt_cols_read on public.rt_cols for select to authenticated
        using (owner = (select auth.uid()) or body like 'public%');
      grant select (id, owner, body) on public.rt_cols to authenticated;
      alter publication supabase_realtime add table public.rt_cols;
    `);
    const writer = await createUser(p, "rt-batch-writer");
    const reader = await createUser(p, "rt-batch-reader");
    const sbWriter = await signedIn(p, writer);
    const sbReader = await signedIn(p, reader);
    // Claims are inlined into the visibility check as literals: a user-controlled claim that looks
    // like the quoting must stay data.
    const meta = await sbReader.auth.updateUser({
      data: { note: "$rt$'; drop table public.rt_cols; --$rt0$" },
    });
    assert.equal(meta.error, null);
    assert.equal((await sbReader.auth.refreshSession()).error, null);
    const seen = { writer: new Inbox<Change>(), reader: new Inbox<Change>() };
    const chWriter = sbWriter.channel("cols-w").on(
      "postgres_changes",
      { event: "*", schema: "public", table: "rt_cols" },
      (c) => seen.writer.push(c as Change),
    );
    const chReader = sbReader.channel("cols-r").on(
      "postgres_changes",
      { event: "*", schema: "public", table: "rt_cols" },
      (c) => seen.reader.push(c as Change),
    );
    try {
      await subscribe(chWriter);
      await subscribe(chReader);
      // One statement, then one transaction: the changes of each are drained (and checked) as a batch.
      const r = await p.db.query<{ a: number; b: number }>(
        `
        with a as (insert into public.rt_cols (owner, body, secret) values ($1, 'private a', 's') returning id),
             b as (insert into public.rt_cols (owner, body, secret) values ($1, 'public b', 's') returning id)
        select (select id from a)::int as a, (select id from b)::int as b`,
        [writer.id],
      );
      const { a, b } = r.rows[0];
      const got = async (who: "writer" | "reader", n: number) => {
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) {
          const c = await seen[who].next(`${who} change ${i + 1} after ${JSON.stringify(out)}`);
          out.push([c.eventType, { ...(c.eventType === "DELETE" ? c.old : c.new) }]);
        }
        return out;
      };
      const row = (id: number, owner: string, body: string) => ({ id, owner, body });
      assert.deepEqual(await got("writer", 2), [
        ["INSERT", row(a, writer.id, "private a")],
        ["INSERT", row(b, writer.id, "public b")],
      ], "no secret column");
      assert.deepEqual(await got("reader", 1), [["INSERT", row(b, writer.id, "public b")]]);
      await p.db.exec(`
        begin;
        delete from public.rt_cols where id = ${a};
        insert into public.rt_cols (owner, body, secret) values ('${reader.id}', 'mine c', 's');
        insert into public.rt_cols (owner, body, secret) values ('${reader.id}', 'public d', 's');
        commit;
      `);
      assert.deepEqual(await got("writer", 2), [
        // RLS on: the old record is the primary key only, though the replica identity is FULL.
        ["DELETE", { id: a }],
        ["INSERT", row(b + 2, reader.id, "public d")],
      ], "the writer misses the reader's private row");
      assert.deepEqual(await got("reader", 3), [
        ["DELETE", { id: a }],
        ["INSERT", row(b + 1, reader.id, "mine c")],
        ["INSERT", row(b + 2, reader.id, "public d")],
      ], "the reader gets the DELETE of a row it could never read, as on Supabase");
      // The claims' role and context ended with the check.
      const after = await p.db.query<{ own: boolean; claims: string | null; n: number }>(
        `select current_user = session_user as own, nullif(current_setting('request.jwt.claims', true), '') as claims,
                (select count(*)::int from public.rt_cols) as n`,
      );
      assert.deepEqual(after.rows[0], { own: true, claims: null, n: 3 });
    } finally {
      await sbWriter.removeAllChannels();
      await sbReader.removeAllChannels();
    }
  },
);
