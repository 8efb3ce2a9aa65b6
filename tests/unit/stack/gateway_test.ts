/**
 * The gateway's apikey -> Authorization mapping and its forwarding headers (the TCP peer appended
 * to X-Forwarded-For, X-Real-IP replaced by it), as Supabase's local Kong does them.
 */
import assert from "node:assert/strict";
import { Gateway, mapAuthorization, peerAddress, setForwardedHeaders } from "../../../stack/gateway.ts";
import { defaultConfig } from "../../../stack/config.ts";

const keys = defaultConfig();
const userJwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.sig";

const cases: { name: string; headers: Record<string, string>; want: string | null }[] = [
  { name: "nothing", headers: {}, want: null },
  {
    name: "user JWT kept",
    headers: { authorization: `Bearer ${userJwt}`, apikey: keys.anonKey },
    want: `Bearer ${userJwt}`,
  },
  { name: "legacy anon apikey copied", headers: { apikey: keys.anonKey }, want: `Bearer ${keys.anonKey}` },
  {
    name: "publishable -> anon JWT",
    headers: { apikey: keys.publishableKey },
    want: `Bearer ${keys.anonKey}`,
  },
  {
    name: "secret -> service_role JWT",
    headers: { apikey: keys.secretKey },
    want: `Bearer ${keys.serviceRoleKey}`,
  },
  {
    name: "Bearer sb_ is replaced by the apikey mapping",
    headers: { authorization: `Bearer ${keys.secretKey}`, apikey: keys.secretKey },
    want: `Bearer ${keys.serviceRoleKey}`,
  },
  {
    name: "Bearer sb_ without apikey is dropped",
    headers: { authorization: `Bearer ${keys.secretKey}` },
    want: null,
  },
  { name: "unknown sb_ key maps to nothing", headers: { apikey: "sb_secret_forged" }, want: null },
];

for (const c of cases) {
  Deno.test(`mapAuthorization: ${c.name}`, () => {
    assert.equal(mapAuthorization(new Headers(c.headers), keys), c.want);
  });
}

const forwarding: { name: string; headers: Record<string, string>; peer: string; xff: string }[] = [
  { name: "no header: the peer alone", headers: {}, peer: "127.0.0.2", xff: "127.0.0.2" },
  {
    name: "a client's list is kept, the peer appended",
    headers: { "x-forwarded-for": "203.0.113.9, 10.0.0.1" },
    peer: "198.51.100.4",
    xff: "203.0.113.9, 10.0.0.1, 198.51.100.4",
  },
  {
    name: "whatever the client wrote, the peer is the last entry",
    headers: { "x-forwarded-for": "198.51.100.4" },
    peer: "198.51.100.5",
    xff: "198.51.100.4, 198.51.100.5",
  },
  { name: "IPv6 peer", headers: { "x-forwarded-for": " " }, peer: "::1", xff: "::1" },
];

for (const c of forwarding) {
  Deno.test(`setForwardedHeaders: ${c.name}`, () => {
    const h = new Headers({ ...c.headers, "x-real-ip": "192.0.2.66" });
    setForwardedHeaders(h, c.peer);
    assert.equal(h.get("x-forwarded-for"), c.xff);
    assert.equal(h.get("x-real-ip"), c.peer, "a client-sent X-Real-IP is replaced");
  });
}

Deno.test("peerAddress: TCP host without port; other transports by name", () => {
  assert.equal(peerAddress({ transport: "tcp", hostname: "127.0.0.3", port: 40000 }), "127.0.0.3");
  assert.equal(peerAddress({ transport: "tcp", hostname: "::1", port: 1 }), "::1");
  assert.equal(peerAddress({ transport: "unix", path: "/tmp/s" }), "unix");
});

Deno.test("Gateway.fetch hands services the forwarding headers of the TCP peer", async () => {
  const gateway = new Gateway(keys);
  let seen: Headers | null = null;
  gateway.mount("/functions/v1", (req) => {
    seen = req.headers;
    return new Response("ok");
  }, { cors: false });
  const res = await gateway.fetch(
    new Request("http://localhost/functions/v1/ai-rerank", {
      method: "POST",
      headers: { "x-forwarded-for": "6.6.6.6", "x-real-ip": "6.6.6.6" },
      body: "{}",
    }),
    { remoteAddr: { transport: "tcp", hostname: "127.0.0.9", port: 50000 } },
  );
  assert.equal(await res.text(), "ok");
  assert.equal(seen!.get("x-forwarded-for"), "6.6.6.6, 127.0.0.9");
  assert.equal(seen!.get("x-real-ip"), "127.0.0.9");
});
