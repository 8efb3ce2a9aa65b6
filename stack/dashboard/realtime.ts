/**
 * The dashboard's realtime inspector: a supabase-js client of the platform's /realtime/v1 held by
 * the dashboard process with the service-role key (the page never sees the key). The page joins a
 * channel (broadcast of every event, presence, and postgres_changes of every table of the
 * `supabase_realtime` publication, or of one table), polls what arrived, sends broadcasts and
 * tracks presence through the dashboard's API:
 *
 *   POST /api/realtime/join   {channel, table?}  -> {channel, status}
 *   POST /api/realtime/leave  {channel}
 *   POST /api/realtime/send   {channel, event, payload}  (broadcast)
 *   POST /api/realtime/track  {channel, state}            (presence)
 *   GET  /api/realtime/events?after=<seq>  -> [{seq, channel, type, event, payload, at}]
 */
import { createClient, type RealtimeChannel, type SupabaseClient } from "@supabase/supabase-js";

interface RealtimeEvent {
  seq: number;
  at: string;
  channel: string;
  type: "broadcast" | "presence" | "postgres_changes" | "system";
  event: string;
  payload: unknown;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export class RealtimeInspector {
  #client: SupabaseClient | null = null;
  readonly #channels = new Map<string, RealtimeChannel>();
  readonly #events: RealtimeEvent[] = [];
  #seq = 0;

  constructor(private readonly url: string, private readonly key: string) {}

  #push(channel: string, type: RealtimeEvent["type"], event: string, payload: unknown) {
    this.#events.push({ seq: ++this.#seq, at: new Date().toISOString(), channel, type, event, payload });
    if (this.#events.length > 1000) this.#events.shift();
  }

  async handle(req: Request, parts: string[]): Promise<Response> {
    const action = parts[0];
    if (req.method === "GET" && action === "events") {
      const after = Number(new URL(req.url).searchParams.get("after") ?? 0);
      return json(200, {
        channels: [...this.#channels.keys()],
        events: this.#events.filter((e) => e.seq > after),
      });
    }
    if (req.method !== "POST") return json(405, { error: `use POST /api/realtime/${action}` });
    const body = await req.json().catch(() => null);
    const name = body?.channel;
    if (typeof name !== "string" || !/^[\w:.-]{1,100}$/.test(name)) {
      return json(400, { error: "channel must be a name of letters, digits, _ : . - (1-100)" });
    }
    if (action === "join") return await this.#join(name, typeof body.table === "string" ? body.table : null);
    const channel = this.#channels.get(name);
    if (!channel) return json(404, { error: `not joined to ${name}` });
    if (action === "leave") {
      await this.#client!.removeChannel(channel);
      this.#channels.delete(name);
      this.#push(name, "system", "left", null);
      return json(200, { channel: name, status: "left" });
    }
    if (action === "send") {
      if (typeof body.event !== "string" || !body.event) return json(400, { error: "event is required" });
      const status = await channel.send({
        type: "broadcast",
        event: body.event,
        payload: body.payload ?? {},
      });
      return json(status === "ok" ? 200 : 502, { channel: name, status });
    }
    if (action === "track") {
      const status = await channel.track(body.state ?? {});
      return json(status === "ok" ? 200 : 502, { channel: name, status });
    }
    return json(404, { error: `no realtime action ${action}` });
  }

  async #join(name: string, table: string | null): Promise<Response> {
    if (this.#channels.has(name)) return json(200, { channel: name, status: "SUBSCRIBED" });
    this.#client ??= createClient(this.url, this.key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    const channel = this.#client.channel(name, {
      config: { broadcast: { self: true }, presence: { key: "dashboard" } },
    })
      .on("broadcast", { event: "*" }, (m) => this.#push(name, "broadcast", m.event, m.payload))
      .on("presence", { event: "sync" }, () => this.#push(name, "presence", "sync", channel.presenceState()))
      .on("presence", { event: "join" }, (m) => this.#push(name, "presence", "join", m))
      .on("presence", { event: "leave" }, (m) => this.#push(name, "presence", "leave", m))
      .on(
        "postgres_changes",
        { event: "*", schema: "public", ...(table ? { table } : {}) },
        (m) => this.#push(name, "postgres_changes", m.eventType, m),
      );
    const status = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve("TIMED_OUT"), 10_000);
      channel.subscribe((s, err) => {
        if (s === "SUBSCRIBED" || s === "CHANNEL_ERROR" || s === "TIMED_OUT" || s === "CLOSED") {
          clearTimeout(timer);
          if (err) this.#push(name, "system", "error", err.message);
          resolve(s);
        }
      });
    });
    if (status !== "SUBSCRIBED") {
      await this.#client.removeChannel(channel);
      return json(502, { channel: name, status });
    }
    this.#channels.set(name, channel);
    this.#push(name, "system", "joined", { table });
    return json(200, { channel: name, status });
  }

  async stop(): Promise<void> {
    if (this.#client) await this.#client.removeAllChannels();
  }
}
