/**
 * Realtime as a part of the local platform: /realtime/v1 (WebSocket at /realtime/v1/websocket,
 * REST broadcast under /realtime/v1/api) and the change feed of the supabase_realtime
 * publication. See server.ts for the protocol and changes.ts for the feed.
 */
import type { PlatformPart } from "../part.ts";
import { RealtimeServer } from "./server.ts";

const servers = new WeakMap<object, RealtimeServer>();

/** The realtime server a platform started (benches and tests read its clients). */
export function realtimeOf(p: object): RealtimeServer {
  const s = servers.get(p);
  if (!s) throw new Error("the realtime part has not started on this platform");
  return s;
}

export const realtimePart: PlatformPart = {
  name: "realtime",
  async start(p) {
    const server = new RealtimeServer({ db: p.db, jwtSecret: p.config.jwtSecret, keys: p.config });
    await server.start();
    p.gateway.mount("/realtime/v1", server.handle, { raw: true });
    servers.set(p, server);
    p.extraUrls["Realtime URL"] = `${p.url.replace(/^http/, "ws")}/realtime/v1`;
    return {
      async stop() {
        servers.delete(p);
        await server.stop();
      },
    };
  },
};
