/**
 * packages/shared/net/safe_fetch.ts: addresses that are not the public internet are refused
 * (literal, resolved, mapped, NAT64), every redirect hop is checked, bodies are capped.
 * Name resolution and fetch are injected, so nothing leaves the machine.
 */
import assert from "node:assert/strict";
import { blockedAddress, checkUrl, safeFetch, UnsafeUrlError } from "@shared/net/safe_fetch.ts";

Deno.test("address classification", () => {
  const blocked = [
    "127.0.0.1",
    "127.8.9.10",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "ff02::1",
  ];
  for (const ip of blocked) assert.ok(blockedAddress(ip), ip);
  for (const ip of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
    assert.equal(blockedAddress(ip), null, ip);
  }
});

const resolver = (map: Record<string, string[]>) => (host: string) => Promise.resolve(map[host] ?? []);

Deno.test("checkUrl refuses schemes, credentials, blocked names and any blocked resolved address", async () => {
  const resolve = resolver({
    "public.example": ["93.184.216.34"],
    "mixed.example": ["93.184.216.34", "10.0.0.5"],
    "rebind.example": ["169.254.169.254"],
  });
  assert.equal((await checkUrl("https://public.example/x", resolve)).hostname, "public.example");
  for (
    const url of [
      "ftp://public.example/",
      "file:///etc/passwd",
      "http://user:pw@public.example/",
      "http://localhost:8080/",
      "http://a.localhost/",
      "http://metadata.google.internal/",
      "http://mixed.example/",
      "http://rebind.example/",
      "http://unknown.example/",
      "http://2130706433/", // 127.0.0.1 as a number
      "http://0x7f.1/",
      "http://[::ffff:a9fe:a9fe]/",
    ]
  ) {
    await assert.rejects(checkUrl(url, resolve), UnsafeUrlError, url);
  }
});

Deno.test("redirects are checked hop by hop; bodies are capped", async () => {
  const resolve = resolver({ "public.example": ["93.184.216.34"], "evil.example": ["127.0.0.1"] });
  const seen: string[] = [];
  const fake = (routes: Record<string, () => Response>) => (input: URL | RequestInfo) => {
    const url = String(input);
    seen.push(url);
    return Promise.resolve((routes[url] ?? (() => new Response("nope", { status: 404 })))());
  };
  const redirect = (to: string) => () => new Response(null, { status: 302, headers: { location: to } });
  await assert.rejects(
    safeFetch("https://public.example/a", {
      resolve,
      fetch: fake({
        "https://public.example/a": redirect("http://169.254.169.254/latest/meta-data/"),
      }) as typeof fetch,
    }),
    /169\.254\.169\.254/,
  );
  await assert.rejects(
    safeFetch("https://public.example/b", {
      resolve,
      fetch: fake({ "https://public.example/b": redirect("http://evil.example/") }) as typeof fetch,
    }),
    /evil\.example.*127\.0\.0\.1/,
  );
  assert.ok(!seen.some((u) => u.includes("169.254") || u.includes("evil")), "blocked hops are never fetched");
  const ok = await safeFetch("https://public.example/c", {
    resolve,
    fetch: fake({
      "https://public.example/c": redirect("/d"),
      "https://public.example/d": () => Response.json({ fine: true }),
    }) as typeof fetch,
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.redirects, 1);
  assert.equal(ok.body, '{"fine":true}');
  const loop = fake({ "https://public.example/loop": redirect("/loop") }) as typeof fetch;
  await assert.rejects(
    safeFetch("https://public.example/loop", { resolve, fetch: loop }),
    /More than 3 redirects/,
  );
  const big = fake({ "https://public.example/big": () => new Response("x".repeat(2048)) }) as typeof fetch;
  await assert.rejects(
    safeFetch("https://public.example/big", { resolve, fetch: big, maxBytes: 1024 }),
    /larger than 1024/,
  );
});

Deno.test("the http_request node: GET, POST, PUT, DELETE through safe_fetch, JSON parsed", async () => {
  const { liveExecutor } = await import("@shared/flows/actions.ts");
  const calls: { method: string; body: string | null; type: string | null }[] = [];
  const exec = liveExecutor({
    service: null as never,
    workspaceId: "ws",
    userId: null,
    fetchOptions: {
      resolve: () => Promise.resolve(["93.184.216.34"]),
      fetch: ((_u: URL, init: RequestInit) => {
        calls.push({
          method: String(init.method),
          body: (init.body as string) ?? null,
          type: new Headers(init.headers).get("content-type"),
        });
        return Promise.resolve(
          Response.json({ echoed: init.method }, { status: init.method === "DELETE" ? 404 : 200 }),
        );
      }) as typeof fetch,
    },
  });
  const node = () => ({ id: "h", type: "http_request" as const, label: undefined, config: {} });
  for (const method of ["GET", "POST", "PUT", "DELETE"]) {
    const out = await exec(node(), { method, url: "https://api.example/x", body: { a: 1 } }) as {
      status: number;
      ok: boolean;
      body: unknown;
    };
    assert.deepEqual(out.body, { echoed: method });
    assert.equal(out.ok, method !== "DELETE");
  }
  assert.deepEqual(calls.map((c) => [c.method, c.body, c.type]), [
    ["GET", null, null],
    ["POST", '{"a":1}', "application/json"],
    ["PUT", '{"a":1}', "application/json"],
    ["DELETE", '{"a":1}', "application/json"],
  ]);
});
