/**
 * The dashboard holds the service role, so no other page in the browser may use it
 * (stack/dashboard/server.ts): a foreign Host (DNS rebinding) gets 421, no answer carries CORS
 * headers (a preflight is refused), /api needs the page's per-process token, and a state change
 * needs the dashboard's own Origin (and a same-origin Sec-Fetch-Site) besides the token.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { refuse, startDashboard } from "../../stack/dashboard/server.ts";

/** The status line and headers of a GET sent over TCP with the given Host header. */
async function rawGet(base: string, path: string, host: string, token: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(base).port) });
  try {
    await conn.write(new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nx-dashboard-token: ${token}\r\nConnection: close\r\n\r\n`,
    ));
    let text = "";
    const buf = new Uint8Array(4096);
    while (!text.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return text;
  } finally {
    conn.close();
  }
}

platformTest("dashboard: Host, CORS, token and Origin checks", async (p) => {
  const dash = startDashboard(p);
  try {
    const host = new URL(dash.url).host;
    const token = { "x-dashboard-token": dash.token };
    const sql = (headers: Record<string, string>) =>
      fetch(`${dash.url}/api/sql`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ query: "update public.workspaces set name = 'pwned'" }),
      });
    const names = async () =>
      (await p.db.query<{ n: number }>(
        `select count(*)::int as n from public.workspaces where name = 'pwned'`,
      ))
        .rows[0].n;

    // The page itself embeds the token and sends no CORS headers.
    const page = await fetch(`${dash.url}/`);
    assert.equal(page.status, 200);
    assert.ok((await page.text()).includes(dash.token));
    assert.equal(page.headers.get("access-control-allow-origin"), null);
    assert.equal(page.headers.get("x-frame-options"), "DENY");

    // DNS rebinding: the browser sends the attacker's name as Host, whatever address it resolved to.
    for (const bad of ["evil.example:" + new URL(dash.url).port, "localhost.evil.example", "127.0.0.1:1"]) {
      const r = refuse(
        new Request(`${dash.url}/api/schema`, { headers: { host: bad, ...token } }),
        dash.url,
        dash.token,
      );
      assert.equal(r?.status, 421, bad);
    }
    assert.equal(
      refuse(new Request(`${dash.url}/`, { headers: { host: "rebound.example" } }), dash.url, dash.token)
        ?.status,
      421,
    );
    assert.equal(
      refuse(new Request(`${dash.url}/api/schema`, { headers: { host, ...token } }), dash.url, dash.token),
      null,
    );
    // Over the wire, with the Host a rebound name sends (fetch would not let a script set it).
    assert.match(await rawGet(dash.url, "/api/schema", "rebound.example", dash.token), /^HTTP\/1\.1 421 /);
    assert.match(
      await rawGet(dash.url, "/", `rebound.example:${new URL(dash.url).port}`, ""),
      /^HTTP\/1\.1 421 /,
    );
    assert.match(await rawGet(dash.url, "/api/schema", host, dash.token), /^HTTP\/1\.1 200 /);

    // No CORS: a preflight from another origin is refused without Access-Control-* headers.
    const pre = await fetch(`${dash.url}/api/sql`, {
      method: "OPTIONS",
      headers: {
        origin: "https://evil.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-dashboard-token,content-type",
      },
    });
    assert.equal(pre.status, 403);
    assert.equal([...pre.headers.keys()].filter((k) => k.startsWith("access-control-")).length, 0);
    await pre.body?.cancel();

    // Reads need the token, and answer no CORS either.
    const noToken = await fetch(`${dash.url}/api/schema`);
    assert.equal(noToken.status, 403);
    await noToken.body?.cancel();
    const read = await fetch(`${dash.url}/api/schema`, {
      headers: { ...token, origin: "https://evil.example" },
    });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get("access-control-allow-origin"), null);
    await read.body?.cancel();
    const proxied = await fetch(`${dash.url}/api/rest/workspaces?select=id`, {
      headers: { ...token, origin: "https://evil.example" },
    });
    assert.equal(proxied.headers.get("access-control-allow-origin"), null);
    await proxied.body?.cancel();

    // State changes: the token alone is not enough, nor the origin alone, nor a cross-site fetch.
    const cases: [string, Record<string, string>][] = [
      ["same origin, no token", { origin: dash.url }],
      ["same origin, wrong token", { origin: dash.url, "x-dashboard-token": "0".repeat(64) }],
      ["token, no origin", token],
      ["token, foreign origin", { ...token, origin: "https://evil.example" }],
      ["token, null origin", { ...token, origin: "null" }],
      ["token, same origin, cross-site fetch", {
        ...token,
        origin: dash.url,
        "sec-fetch-site": "cross-site",
      }],
    ];
    for (const [what, headers] of cases) {
      const r = await sql(headers);
      assert.equal(r.status, 403, what);
      assert.equal(r.headers.get("access-control-allow-origin"), null, what);
      await r.body?.cancel();
    }
    for (const method of ["PATCH", "DELETE"]) {
      const r = await fetch(`${dash.url}/api/rest/workspaces?id=not.is.null`, {
        method,
        headers: { ...token, origin: "https://evil.example", "content-type": "application/json" },
        body: JSON.stringify({ name: "pwned" }),
      });
      assert.equal(r.status, 403, method);
      await r.body?.cancel();
    }
    assert.equal(await names(), 0);

    // The page's own request goes through.
    const ok = await fetch(`${dash.url}/api/sql`, {
      method: "POST",
      headers: {
        ...token,
        origin: dash.url,
        "sec-fetch-site": "same-origin",
        "content-type": "application/json",
      },
      body: JSON.stringify({ query: "select 1 as one" }),
    });
    assert.equal(ok.status, 200);
    assert.deepEqual((await ok.json()).rows, [{ one: 1 }]);
  } finally {
    await dash.stop();
  }
});
