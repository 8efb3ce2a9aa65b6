/**
 * /realtime/v1 for supabase-js channels: Phoenix channels over a WebSocket at /websocket (join,
 * leave, heartbeat, access-token updates, postgres_changes, broadcast, presence) and the REST
 * broadcast endpoints, following /work/shared/reference/realtime-protocol.md (section numbers
 * below refer to it).
 *
 * postgres_changes: a change is delivered to a binding when its schema, table, event and filter
 * match and, unless it is a DELETE, the subscriber's role and JWT claims can SELECT the row at
 * delivery time (RLS, as Supabase's apply_rls does); columns are limited to those the role may
 * select; a DELETE's old_record is the primary key only when RLS is on or the table's replica
 * identity is not FULL. Only tables of the supabase_realtime publication stream (changes.ts).
 * Fan-out works per drained batch: one visibility check per distinct claims (and table) for the
 * whole batch, one encoded `data` per (claims, change), then the frames in commit order.
 *
 * Not built: private channels (config.private, RLS on realtime.messages) answer a join error
 * saying so; broadcast replay. A client whose send buffer passes SLOW_CLIENT_BYTES is closed
 * rather than buffered without bound, so a slow client never holds up the database.
 */
import { JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import type { PGlite } from "../db/database.ts";
import { ChangeFeed, type Drained } from "./changes.ts";
import { type Condition, FilterError, matches, parseFilter } from "./filters.ts";
import {
  bindingId,
  decodeBinary,
  decodeText,
  encode,
  encodeBroadcastBinary,
  type Message,
  ProtocolError,
  type Vsn,
} from "./protocol.ts";

const SLOW_CLIENT_BYTES = 8 * 1024 * 1024;

type Claims = Record<string, unknown> & { role?: string; sub?: string };

interface Binding {
  id: number;
  params: Record<string, unknown>;
  event: string;
  schema: string;
  table: string | null;
  conditions: Condition[];
}

interface Channel {
  topic: string;
  joinRef: string | null;
  claims: Claims;
  self: boolean;
  ack: boolean;
  presence: boolean;
  presenceKey: string;
  tracked: Record<string, unknown> | null;
  bindings: Binding[];
}

interface Client {
  ws: WebSocket;
  vsn: Vsn;
  claims: Claims;
  channels: Map<string, Channel>;
}

export interface RealtimeOptions {
  db: PGlite;
  jwtSecret: string;
  /** sb_publishable_/sb_secret_ keys and the JWTs they stand for. */
  keys: { publishableKey: string; secretKey: string; anonKey: string; serviceRoleKey: string };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
  });

export class RealtimeServer {
  readonly clients = new Set<Client>();
  readonly feed: ChangeFeed;
  #presenceSeq = 0;

  constructor(private readonly opts: RealtimeOptions) {
    this.feed = new ChangeFeed(opts.db, (batch) => this.#dispatch(batch));
  }

  start(): Promise<void> {
    return this.feed.start();
  }

  async stop(): Promise<void> {
    for (const c of this.clients) c.ws.close(1001, "server shutting down");
    this.clients.clear();
    await this.feed.stop();
  }

  /** The gateway hands over the original request (a WebSocket upgrade needs it). */
  handle = async (req: Request, path: string): Promise<Response> => {
    const url = new URL(req.url);
    if (path === "/websocket" || path === "/websocket/") return await this.#upgrade(req, url);
    if (req.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-origin": "*",
          "access-control-allow-headers": "authorization, apikey, content-type, x-client-info",
          "access-control-allow-methods": "POST, OPTIONS",
        },
      });
    }
    if (req.method === "POST" && path === "/api/broadcast") return await this.#restBroadcast(req, url);
    const single = /^\/api\/broadcast\/([^/]+)\/events\/([^/]+)$/.exec(path);
    if (req.method === "POST" && single) {
      return await this.#restBroadcast(
        req,
        url,
        decodeURIComponent(single[1]),
        decodeURIComponent(single[2]),
      );
    }
    return json(404, { message: "Not found" });
  };

  // ---- authentication ----

  /** An apikey or token: the sb_ keys map to their JWTs; JWTs are verified with the secret. */
  async #claims(token: string | null): Promise<Claims | null> {
    if (!token) return null;
    const { keys } = this.opts;
    const jwt = token === keys.publishableKey
      ? keys.anonKey
      : token === keys.secretKey
      ? keys.serviceRoleKey
      : token;
    try {
      return await verifyJwt(jwt, this.opts.jwtSecret) as Claims;
    } catch (err) {
      if (err instanceof JwtError) return null;
      throw err;
    }
  }

  async #upgrade(req: Request, url: URL): Promise<Response> {
    const apikey = url.searchParams.get("apikey") ?? req.headers.get("apikey");
    if (!apikey) return json(401, { message: "API key is missing" });
    const claims = await this.#claims(apikey);
    if (!claims || typeof claims.role !== "string") return json(401, { message: "Invalid API key" });
    if ((req.headers.get("upgrade") ?? "").toLowerCase() !== "websocket") {
      return json(400, { message: "Expected a WebSocket upgrade" });
    }
    const vsn: Vsn = url.searchParams.get("vsn") === "2.0.0" ? "2.0.0" : "1.0.0";
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    const client: Client = { ws: socket, vsn, claims, channels: new Map() };
    socket.onopen = () => this.clients.add(client);
    socket.onclose = () => this.#drop(client);
    socket.onerror = () => this.#drop(client);
    socket.onmessage = (e) => {
      this.#onFrame(client, e.data).catch((err) => {
        console.error("realtime: frame failed", err);
      });
    };
    return response;
  }

  #drop(client: Client): void {
    if (!this.clients.delete(client)) return;
    for (const ch of client.channels.values()) this.#presenceLeave(client, ch);
    client.channels.clear();
  }

  // ---- frames ----

  #send(client: Client, m: Message): void {
    this.#sendRaw(client, encode(m, client.vsn));
  }

  /** A pre-encoded text frame, with the same slow-client rule. */
  #sendRaw(client: Client, frame: string): void {
    if (client.ws.readyState !== WebSocket.OPEN) return;
    if (client.ws.bufferedAmount > SLOW_CLIENT_BYTES) {
      client.ws.close(1008, "client too slow: send buffer full");
      this.#drop(client);
      return;
    }
    client.ws.send(frame);
  }

  #reply(client: Client, m: Message, status: "ok" | "error", response: Record<string, unknown> = {}): void {
    this.#send(client, {
      joinRef: m.joinRef,
      ref: m.ref,
      topic: m.topic,
      event: "phx_reply",
      payload: { status, response },
    });
  }

  #system(client: Client, ch: Channel, extension: string, status: "ok" | "error", message: string): void {
    this.#send(client, {
      joinRef: ch.joinRef,
      ref: null,
      topic: ch.topic,
      event: "system",
      payload: { extension, status, message, channel: ch.topic.slice("realtime:".length) },
    });
  }

  async #onFrame(client: Client, data: unknown): Promise<void> {
    let m: Message;
    let binary: { payload: Uint8Array; json: boolean } | null = null;
    try {
      if (data instanceof ArrayBuffer) {
        const d = decodeBinary(new Uint8Array(data));
        m = d;
        binary = { payload: d.binaryPayload, json: d.json };
      } else {
        m = decodeText(String(data), client.vsn);
      }
    } catch (err) {
      if (err instanceof ProtocolError) {
        client.ws.close(1003, err.message.slice(0, 120));
        return;
      }
      throw err;
    }
    if (m.topic === "phoenix" && m.event === "heartbeat") return this.#reply(client, m, "ok");
    switch (m.event) {
      case "phx_join":
        return await this.#join(client, m);
      case "phx_leave":
        return this.#leave(client, m);
      case "access_token":
        return await this.#accessToken(client, m);
      case "broadcast":
        return this.#broadcastFrom(client, m, binary);
      case "presence":
        return this.#presence(client, m);
    }
    const ch = client.channels.get(m.topic);
    if (ch) this.#reply(client, m, "error", { reason: `unknown event ${m.event}` });
  }

  // ---- join / leave / token ----

  async #join(client: Client, m: Message): Promise<void> {
    const sub = m.topic.startsWith("realtime:") ? m.topic.slice("realtime:".length) : null;
    if (sub === null) return this.#reply(client, m, "error", { reason: "unmatched topic" });
    if (sub === "") {
      return this.#reply(client, m, "error", { reason: "TopicNameRequired: You must provide a topic name" });
    }
    const config = (m.payload.config ?? {}) as Record<string, Record<string, unknown> | unknown>;
    if ((config as { private?: unknown }).private === true) {
      return this.#reply(client, m, "error", {
        reason: "PrivateChannelsNotSupported: private channels are not implemented on the local platform",
      });
    }
    let claims = client.claims;
    const token = m.payload.access_token;
    if (typeof token === "string" && !token.startsWith("sb_")) {
      const c = await this.#claims(token);
      if (!c) {
        return this.#reply(client, m, "error", { reason: "InvalidJWTToken: the access token is not valid" });
      }
      claims = c;
    }
    const old = client.channels.get(m.topic);
    if (old) {
      this.#presenceLeave(client, old);
      this.#send(client, {
        joinRef: old.joinRef,
        ref: old.joinRef,
        topic: old.topic,
        event: "phx_close",
        payload: {},
      });
    }
    const broadcast = (config as { broadcast?: { self?: unknown; ack?: unknown } }).broadcast ?? {};
    const presence = (config as { presence?: { key?: unknown; enabled?: unknown } }).presence ?? {};
    const params = Array.isArray((config as { postgres_changes?: unknown }).postgres_changes)
      ? (config as { postgres_changes: Record<string, unknown>[] }).postgres_changes
      : [];
    const ch: Channel = {
      topic: m.topic,
      joinRef: m.joinRef ?? m.ref,
      claims,
      self: broadcast.self === true,
      ack: broadcast.ack === true,
      presence: presence.enabled === true,
      presenceKey: typeof presence.key === "string" && presence.key ? presence.key : crypto.randomUUID(),
      tracked: null,
      bindings: [],
    };
    client.channels.set(m.topic, ch);
    const echoed = params.map((p) => ({ ...p, id: bindingId(p) }));
    this.#reply(client, m, "ok", { postgres_changes: echoed });
    if (ch.presence) {
      this.#send(client, {
        joinRef: ch.joinRef,
        ref: null,
        topic: ch.topic,
        event: "presence_state",
        payload: this.#presenceState(ch.topic),
      });
    }
    if (params.length > 0) await this.#subscribe(client, ch, echoed);
  }

  async #subscribe(
    client: Client,
    ch: Channel,
    params: (Record<string, unknown> & { id: number })[],
  ): Promise<void> {
    const problems: string[] = [];
    const bindings: Binding[] = [];
    await this.feed.syncCapture();
    for (const p of params) {
      const event = typeof p.event === "string" ? p.event : "";
      const schema = typeof p.schema === "string" && p.schema ? p.schema : "public";
      const table = typeof p.table === "string" && p.table && p.table !== "*" ? p.table : null;
      if (!["*", "INSERT", "UPDATE", "DELETE"].includes(event.toUpperCase())) {
        problems.push(`event must be INSERT, UPDATE, DELETE or *; got "${event}"`);
        continue;
      }
      const tables = await this.feed.publishedTables(schema, table);
      if (tables.length === 0) {
        problems.push(`${schema}.${table ?? "*"} is not in the supabase_realtime publication`);
        continue;
      }
      let conditions: Condition[];
      try {
        conditions = parseFilter(typeof p.filter === "string" ? p.filter : null);
      } catch (err) {
        if (!(err instanceof FilterError)) throw err;
        problems.push(err.message);
        continue;
      }
      const unknown = conditions.find((c) =>
        tables.every((t) => !t.columns.some((col) => col.name === c.column))
      );
      if (unknown) {
        problems.push(`filter column "${unknown.column}" does not exist in ${schema}.${table ?? "*"}`);
        continue;
      }
      bindings.push({ id: p.id, params: p, event: event.toUpperCase(), schema, table, conditions });
    }
    ch.bindings = bindings;
    if (problems.length) {
      this.#system(
        client,
        ch,
        "postgres_changes",
        "error",
        `Unable to subscribe to changes with given parameters. ${problems.join("; ")}`,
      );
    } else {
      this.#system(client, ch, "postgres_changes", "ok", "Subscribed to PostgreSQL");
    }
  }

  #leave(client: Client, m: Message): void {
    const ch = client.channels.get(m.topic);
    this.#reply(client, m, "ok");
    if (!ch) return;
    this.#presenceLeave(client, ch);
    client.channels.delete(m.topic);
    this.#send(client, {
      joinRef: ch.joinRef,
      ref: ch.joinRef,
      topic: ch.topic,
      event: "phx_close",
      payload: {},
    });
  }

  /** §6: no reply; sb_ keys, null and unchanged values are ignored; a bad token closes the channel. */
  async #accessToken(client: Client, m: Message): Promise<void> {
    const ch = client.channels.get(m.topic);
    const token = m.payload.access_token;
    if (!ch || typeof token !== "string" || token.startsWith("sb_")) return;
    const claims = await this.#claims(token);
    if (!claims) {
      this.#system(client, ch, "system", "error", "The access token is invalid or has expired");
      this.#presenceLeave(client, ch);
      client.channels.delete(ch.topic);
      this.#send(client, {
        joinRef: ch.joinRef,
        ref: ch.joinRef,
        topic: ch.topic,
        event: "phx_close",
        payload: {},
      });
      return;
    }
    ch.claims = claims;
  }

  // ---- broadcast ----

  #broadcastFrom(client: Client, m: Message, binary: { payload: Uint8Array; json: boolean } | null): void {
    const ch = client.channels.get(m.topic);
    if (!ch) return this.#reply(client, m, "error", { reason: "join the channel before broadcasting" });
    const event = typeof m.payload.event === "string" ? m.payload.event : "";
    this.#deliverBroadcast(m.topic, event, m.payload.payload, binary, ch.self ? null : ch);
    if (ch.ack) this.#reply(client, m, "ok");
  }

  #deliverBroadcast(
    topic: string,
    event: string,
    payload: unknown,
    binary: { payload: Uint8Array; json: boolean } | null,
    except: Channel | null,
  ): number {
    let n = 0;
    for (const c of this.clients) {
      const ch = c.channels.get(topic);
      if (!ch || ch === except) continue;
      n++;
      if (binary && !binary.json && c.vsn === "2.0.0") {
        if (c.ws.readyState === WebSocket.OPEN) {
          c.ws.send(encodeBroadcastBinary(topic, event, binary.payload, false));
        }
        continue;
      }
      this.#send(c, {
        joinRef: null,
        ref: null,
        topic,
        event: "broadcast",
        payload: { type: "broadcast", event, payload },
      });
    }
    return n;
  }

  /** §8: POST /api/broadcast {messages: [...]} and /api/broadcast/:topic/events/:event; 202. */
  async #restBroadcast(req: Request, url: URL, topic?: string, event?: string): Promise<Response> {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1] ?? null;
    const claims = await this.#claims(bearer ?? req.headers.get("apikey") ?? url.searchParams.get("apikey"));
    if (!claims) return json(401, { message: "Unauthorized" });
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return json(400, { message: "The body must be JSON" });
    }
    if (topic !== undefined && event !== undefined) {
      if (url.searchParams.get("private") === "true") {
        return json(422, { message: "private channels are not implemented on the local platform" });
      }
      this.#deliverBroadcast(`realtime:${topic}`, event, body, null, null);
      return new Response(null, { status: 202, headers: { "access-control-allow-origin": "*" } });
    }
    const messages = (body as { messages?: unknown })?.messages;
    if (!Array.isArray(messages)) return json(400, { message: "messages must be an array" });
    for (const msg of messages) {
      const t = (msg as { topic?: unknown })?.topic;
      const e = (msg as { event?: unknown })?.event;
      if (typeof t !== "string" || typeof e !== "string") {
        return json(400, { message: "each message needs a topic and an event" });
      }
    }
    for (const msg of messages as { topic: string; event: string; payload?: unknown; private?: unknown }[]) {
      if (msg.private === true) continue; // private topics need realtime.messages policies: not built
      this.#deliverBroadcast(`realtime:${msg.topic}`, msg.event, msg.payload ?? {}, null, null);
    }
    return new Response(null, { status: 202, headers: { "access-control-allow-origin": "*" } });
  }

  // ---- presence (§9) ----

  #presenceState(topic: string): Record<string, { metas: Record<string, unknown>[] }> {
    const state: Record<string, { metas: Record<string, unknown>[] }> = {};
    for (const c of this.clients) {
      const ch = c.channels.get(topic);
      if (!ch?.tracked) continue;
      (state[ch.presenceKey] ??= { metas: [] }).metas.push(ch.tracked);
    }
    return state;
  }

  #presenceDiff(topic: string, joins: Record<string, unknown>, leaves: Record<string, unknown>): void {
    for (const c of this.clients) {
      const ch = c.channels.get(topic);
      if (!ch?.presence) continue;
      this.#send(c, { joinRef: null, ref: null, topic, event: "presence_diff", payload: { joins, leaves } });
    }
  }

  #presence(client: Client, m: Message): void {
    const ch = client.channels.get(m.topic);
    if (!ch) return this.#reply(client, m, "error", { reason: "join the channel before tracking presence" });
    const kind = m.payload.event;
    if (kind === "track") {
      const meta = m.payload.payload;
      if (!meta || typeof meta !== "object" || Array.isArray(meta)) {
        return this.#reply(client, m, "error", { reason: "Presence track payload must be a map" });
      }
      const prev = ch.tracked;
      const next = { ...(meta as Record<string, unknown>), phx_ref: `ref${++this.#presenceSeq}` };
      if (prev && JSON.stringify({ ...prev, phx_ref: "" }) === JSON.stringify({ ...next, phx_ref: "" })) {
        return this.#reply(client, m, "ok");
      }
      ch.tracked = prev ? { ...next, phx_ref_prev: prev.phx_ref } : next;
      this.#reply(client, m, "ok");
      this.#presenceDiff(ch.topic, { [ch.presenceKey]: { metas: [ch.tracked] } }, {});
      return;
    }
    if (kind === "untrack") {
      this.#reply(client, m, "ok");
      this.#presenceLeave(client, ch);
      return;
    }
    this.#reply(client, m, "error", { reason: "presence event must be track or untrack" });
  }

  #presenceLeave(_client: Client, ch: Channel): void {
    if (!ch.tracked) return;
    const left = ch.tracked;
    ch.tracked = null;
    this.#presenceDiff(ch.topic, {}, { [ch.presenceKey]: { metas: [left] } });
  }

  // ---- postgres_changes delivery (§4, §11) ----

  /**
   * A drained batch, in commit order: the bindings each change matches, then one visibility check
   * per distinct claims for the whole batch (feed.visibleTo), one encoded `data` per (claims,
   * change), and only then the frames, change by change, so every socket gets them in commit order.
   */
  async #dispatch(batch: Drained[]): Promise<void> {
    const keyOf = new Map<Claims, string>();
    const groups = new Map<string, { claims: Claims; indexes: number[]; data: (string | null)[] }>();
    const targets = batch.map(({ change }, i) => {
      const row = change.type === "DELETE" ? change.old_record : change.record;
      const out: { client: Client; ch: Channel; ids: number[]; key: string }[] = [];
      for (const client of this.clients) {
        for (const ch of client.channels.values()) {
          const ids = ch.bindings.filter((b) =>
            b.schema === change.schema &&
            (b.table === null || b.table === change.table) &&
            (b.event === "*" || b.event === change.type) &&
            matches(b.conditions, row)
          ).map((b) => b.id);
          if (!ids.length) continue;
          let key = keyOf.get(ch.claims);
          if (key === undefined) keyOf.set(ch.claims, key = JSON.stringify(ch.claims));
          let g = groups.get(key);
          if (!g) groups.set(key, g = { claims: ch.claims, indexes: [], data: [] });
          if (g.indexes.at(-1) !== i) g.indexes.push(i);
          out.push({ client, ch, ids, key });
        }
      }
      return out;
    });
    if (groups.size === 0) return;
    for (const g of groups.values()) {
      const seen = await this.feed.visibleTo(g.claims, g.indexes.map((i) => batch[i]));
      g.indexes.forEach((i, n) => {
        g.data[i] = seen[n].visible ? encodeData(batch[i], seen[n].columns) : null;
      });
    }
    for (let i = 0; i < batch.length; i++) {
      for (const t of targets[i]) {
        const data = groups.get(t.key)!.data[i];
        if (data === null) continue;
        this.#sendRaw(
          t.client,
          t.client.vsn === "2.0.0"
            ? `[null,null,${JSON.stringify(t.ch.topic)},"postgres_changes",{"ids":${
              JSON.stringify(t.ids)
            },"data":${data}}]`
            : `{"topic":${JSON.stringify(t.ch.topic)},"event":"postgres_changes","payload":{"ids":${
              JSON.stringify(t.ids)
            },"data":${data}},"ref":null}`,
        );
      }
    }
  }
}

/** A change's `data` (JSON) limited to the columns its subscriber may see. */
function encodeData({ change, info }: Drained, columns: string[]): string {
  const keep = (r: Record<string, unknown> | null) =>
    r ? Object.fromEntries(Object.entries(r).filter(([k]) => columns.includes(k))) : r;
  const pkOnly = (r: Record<string, unknown> | null) =>
    r ? Object.fromEntries(Object.entries(r).filter(([k]) => info.primaryKey.includes(k))) : r;
  const fullOld = info.replicaIdentityFull && !(change.type === "DELETE" && info.rls);
  const data: Record<string, unknown> = {
    schema: change.schema,
    table: change.table,
    type: change.type,
    commit_timestamp: change.commit_timestamp,
    columns: info.columns.filter((c) => columns.includes(c.name)),
    errors: null,
  };
  if (change.type !== "DELETE") data.record = keep(change.record);
  if (change.type !== "INSERT") {
    data.old_record = keep(fullOld ? change.old_record : pkOnly(change.old_record));
  }
  return JSON.stringify(data);
}
