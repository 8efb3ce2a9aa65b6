/**
 * Stored active content never runs on the API origin: HTML in any spelling is served as
 * text/plain, SVG and XML as a sandboxed attachment, every object with nosniff; through the
 * authenticated, public and signed routes alike.
 */
import assert from "node:assert/strict";
import { platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket } from "../storage/helpers.ts";

const PAYLOAD = `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>`;

platformTest(
  "HTML, XHTML and SVG uploads are never served as active content of the API origin",
  async (p) => {
    const bucket = await createBucket(p, { public: true });
    const sb = serviceClient(p).storage.from(bucket);
    const cases: [string, string, (h: Headers) => void][] = [
      ["upper.html", "TEXT/HTML", (h) => assert.equal(h.get("content-type"), "text/plain")],
      ["params.html", "text/html; charset=utf-8", (h) => assert.equal(h.get("content-type"), "text/plain")],
      ["spaced.html", " Text/Html ;charset=utf-8", (h) => assert.equal(h.get("content-type"), "text/plain")],
      ["page.xhtml", "application/xhtml+xml", (h) => assert.equal(h.get("content-type"), "text/plain")],
      ["logo.svg", "image/svg+xml", (h) => {
        assert.equal(h.get("content-type"), "image/svg+xml");
        assert.equal(h.get("content-disposition"), "attachment;");
        assert.match(h.get("content-security-policy") ?? "", /sandbox/);
      }],
      ["feed.xml", "Application/XML", (h) => {
        assert.equal(h.get("content-disposition"), "attachment;");
        assert.match(h.get("content-security-policy") ?? "", /default-src 'none'/);
      }],
      ["notes.txt", "text/plain", (h) => {
        assert.equal(h.get("content-type"), "text/plain");
        assert.equal(h.get("content-disposition"), null, "plain text stays inline");
      }],
    ];
    const auth = { Authorization: `Bearer ${p.config.serviceRoleKey}` };
    for (const [name, type] of cases) {
      const up = await fetch(`${p.url}/storage/v1/object/${bucket}/${name}`, {
        method: "POST",
        headers: { ...auth, "content-type": type },
        body: PAYLOAD,
      });
      assert.equal(up.status, 200, `${name}: ${await up.text()}`);
    }
    for (const [name, type, check] of cases) {
      const signed = await sb.createSignedUrl(name, 60);
      assert.equal(signed.error, null);
      for (
        const [route, res] of [
          ["authenticated", await fetch(`${p.url}/storage/v1/object/${bucket}/${name}`, { headers: auth })],
          ["public", await fetch(`${p.url}/storage/v1/object/public/${bucket}/${name}`)],
          ["signed", await fetch(signed.data!.signedUrl)],
        ] as const
      ) {
        assert.equal(res.status, 200, `${route} ${name}`);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${route} ${name} (${type})`);
        check(res.headers);
        assert.ok(!/html/i.test(res.headers.get("content-type") ?? ""), `${route} ${name} served as HTML`);
        assert.equal(await res.text(), PAYLOAD);
      }
    }
  },
);
