/**
 * The scraper's fetch layer without a platform: robots.txt (once per host, our agent's group
 * over `*`, unreadable = disallow), per-host politeness (concurrency and delay), size limits,
 * SSRF refusal without the allow-list, and sitemaps (index recursion bound, URL cap, gzip).
 */
import assert from "node:assert/strict";
import { DEFAULT_USER_AGENT, type ScraperConfig } from "@shared/scraping/config.ts";
import {
  clearRobotsCache,
  politeFetch,
  robotsAllows,
  RobotsDisallowedError,
} from "@shared/scraping/fetcher.ts";
import { gunzipCapped, parseSitemap, parseSitemapXml } from "@shared/scraping/sitemap.ts";
import { UnsafeUrlError } from "@shared/net/safe_fetch.ts";

interface Site {
  origin: string;
  hits: Map<string, number>;
  inFlight: { max: number };
  starts: number[];
  close: () => Promise<void>;
}

function serve(routes: Record<string, (req: Request) => Response | Promise<Response>>): Site {
  const hits = new Map<string, number>();
  const inFlight = { now: 0, max: 0 };
  const starts: number[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path !== "/robots.txt") starts.push(performance.now());
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    try {
      const route = routes[path];
      return route ? await route(req) : new Response("not found", { status: 404 });
    } finally {
      inFlight.now--;
    }
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    hits,
    inFlight,
    starts,
    close: () => server.shutdown(),
  };
}

function config(site: Site, over: Partial<ScraperConfig> = {}): ScraperConfig {
  return {
    userAgent: DEFAULT_USER_AGENT,
    allowHosts: [new URL(site.origin).host],
    hostConcurrency: 2,
    hostDelayMs: 0,
    maxPageBytes: 64 * 1024,
    timeoutMs: 5000,
    productRetryBaseMs: 1,
    model: "test",
    robotsTtlMs: 60_000,
    ...over,
  };
}

const text = (body: string, type = "text/plain") => () =>
  new Response(body, { headers: { "content-type": type } });

Deno.test("robots.txt: our agent's group wins over *, fetched once per host, Allow/Disallow honoured", async () => {
  clearRobotsCache();
  const site = serve({
    "/robots.txt": text(
      "User-agent: *\nDisallow: /\n\nUser-agent: MaterialsCatalogBot\nDisallow: /private/\nAllow: /private/open\n",
    ),
    "/a": text("a"),
    "/private/open": text("open"),
  });
  try {
    const cfg = config(site);
    const cases: [string, boolean][] = [["/a", true], ["/private/x", false], ["/private/open", true], [
      "/b/c",
      true,
    ]];
    for (const [path, allowed] of cases) {
      assert.equal((await robotsAllows(`${site.origin}${path}`, cfg)).allowed, allowed, path);
    }
    // Another agent falls under `*`: everything disallowed.
    assert.equal(
      (await robotsAllows(`${site.origin}/a`, { ...cfg, userAgent: "OtherBot/2.0" })).allowed,
      false,
    );
    assert.equal(site.hits.get("/robots.txt"), 1, "one robots.txt request for the host");
    await assert.rejects(politeFetch(`${site.origin}/private/x`, cfg), RobotsDisallowedError);
    assert.equal(site.hits.get("/private/x") ?? 0, 0);
    assert.equal((await politeFetch(`${site.origin}/private/open`, cfg)).body, "open");
  } finally {
    await site.close();
  }
});

Deno.test("robots.txt: 404 allows everything, 5xx disallows everything", async () => {
  clearRobotsCache();
  const missing = serve({ "/a": text("a") });
  const broken = serve({ "/robots.txt": () => new Response("oops", { status: 503 }), "/a": text("a") });
  try {
    assert.equal((await politeFetch(`${missing.origin}/a`, config(missing))).body, "a");
    await assert.rejects(politeFetch(`${broken.origin}/a`, config(broken)), (err: Error) => {
      assert.ok(err instanceof RobotsDisallowedError);
      assert.match(err.message, /could not be read \(HTTP 503; RFC 9309: disallow all\)/);
      return true;
    });
  } finally {
    await missing.close();
    await broken.close();
  }
});

Deno.test("politeness: at most N requests in flight per host, starts spaced by the delay", async () => {
  clearRobotsCache();
  const slow = () => new Promise<Response>((r) => setTimeout(() => r(new Response("x")), 30));
  const site = serve({ "/p": slow });
  try {
    await Promise.all(
      Array.from({ length: 6 }, () => politeFetch(`${site.origin}/p`, config(site, { hostConcurrency: 2 }))),
    );
    assert.equal(site.inFlight.max, 2);
    site.starts.length = 0;
    await Promise.all(
      Array.from(
        { length: 3 },
        () => politeFetch(`${site.origin}/p`, config(site, { hostConcurrency: 3, hostDelayMs: 40 })),
      ),
    );
    const gaps = site.starts.slice(1).map((t, i) => t - site.starts[i]);
    // The fetcher releases requests 40 ms apart; the server sees them after a transit time that
    // varies on a loaded machine, so allow 15 ms of jitter (with no delay they arrive ~0-2 ms apart).
    for (const g of gaps) assert.ok(g >= 25, `request starts ${g.toFixed(1)} ms apart`);
  } finally {
    await site.close();
  }
});

Deno.test("politeness: a request right after a quick one to an idle host still waits the delay", async () => {
  clearRobotsCache();
  const site = serve({ "/p": () => new Response("x") });
  try {
    const cfg = config(site, { hostConcurrency: 1, hostDelayMs: 80 });
    await politeFetch(`${site.origin}/p`, cfg); // done long before the delay has passed
    await politeFetch(`${site.origin}/p`, cfg);
    const gap = site.starts[1] - site.starts[0];
    // Released 80 ms apart; the server-observed gap allows 15 ms of transit jitter.
    assert.ok(gap >= 65, `the second request started ${gap.toFixed(1)} ms after the first`);
  } finally {
    await site.close();
  }
});

Deno.test("limits and SSRF: oversized bodies fail; without the allow-list the local host is refused", async () => {
  clearRobotsCache();
  const site = serve({ "/big": text("x".repeat(10_000)) });
  try {
    await assert.rejects(
      politeFetch(`${site.origin}/big`, config(site, { maxPageBytes: 1024 })),
      /larger than 1024 bytes/,
    );
    const closed = config(site, { allowHosts: [] });
    for (
      const url of [
        `${site.origin}/big`,
        "http://169.254.169.254/latest",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
      ]
    ) {
      await assert.rejects(politeFetch(url, closed), UnsafeUrlError, url);
    }
    // An allow-list entry is exact: the same address on another port is not allowed.
    const port = Number(new URL(site.origin).port);
    await assert.rejects(politeFetch(`http://127.0.0.1:${port + 1}/`, config(site)), UnsafeUrlError);
    await assert.rejects(politeFetch("ftp://example.com/x", config(site)), UnsafeUrlError);
  } finally {
    await site.close();
  }
});

Deno.test("sitemaps: urlset fields, index recursion bounded, URL cap, gzip, bad XML", async () => {
  clearRobotsCache();
  const gz = async (s: string) =>
    new Uint8Array(
      await new Response(new Blob([s]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
    );
  let origin = "";
  const urlset = (paths: string[]) =>
    `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
      paths.map((p) =>
        `<url><loc>${origin}${p}</loc><priority>0.5</priority><changefreq>daily</changefreq></url>`
      ).join("")
    }</urlset>`;
  const index = (maps: string[]) =>
    `<sitemapindex>${maps.map((m) => `<sitemap><loc>${origin}${m}</loc></sitemap>`).join("")}</sitemapindex>`;
  const site = serve({
    "/root.xml": () => new Response(index(["/a.xml", "/b.xml.gz", "/deep1.xml", "/a.xml"])),
    "/a.xml": () => new Response(urlset(["/1", "/2", "/2"])),
    "/b.xml.gz": async () => new Response(await gz(urlset(["/3", "/4"])) as BodyInit),
    "/deep1.xml": () => new Response(index(["/deep2.xml"])),
    "/deep2.xml": () => new Response(index(["/deep3.xml"])),
    "/deep3.xml": () => new Response(index(["/deep4.xml"])),
    "/deep4.xml": () => new Response(urlset(["/too-deep"])),
    "/broken.xml": text("<html>not a sitemap</html>"),
  });
  origin = site.origin;
  try {
    const cfg = config(site);
    const all = await parseSitemap(`${origin}/root.xml`, cfg);
    assert.deepEqual(all.urls.map((u) => new URL(u.loc).pathname), ["/1", "/2", "/3", "/4"]);
    assert.deepEqual(all.urls[0], { loc: `${origin}/1`, changefreq: "daily", priority: 0.5 });
    assert.equal(all.truncated, true, "deep4 is beyond 3 levels");
    assert.equal(site.hits.get("/deep4.xml") ?? 0, 0);
    assert.equal(site.hits.get("/a.xml"), 1, "a sitemap listed twice is read once");
    const capped = await parseSitemap(`${origin}/root.xml`, cfg, { maxUrls: 3 });
    assert.equal(capped.totalUrls, 3);
    assert.equal(capped.truncated, true);
    await assert.rejects(parseSitemap(`${origin}/broken.xml`, cfg), /not a sitemap/);
    await assert.rejects(parseSitemap(`${origin}/missing.xml`, cfg), /HTTP 404/);
    assert.throws(() => parseSitemapXml("<rss></rss>"), /neither a urlset nor a sitemapindex/);
    // A gzip bomb stops at the cap.
    await assert.rejects(gunzipCapped(await gz("x".repeat(200_000)), 10_000), /larger than 10000 bytes/);
  } finally {
    await site.close();
  }
});
