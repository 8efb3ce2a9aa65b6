/**
 * The Jina embeddings stand-in on its own (no platform): Jina's wire format and errors, vectors
 * from the local CLIP provider (folded into smaller `dimensions`), captures, and
 * scripted failures and raw answers.
 */
import assert from "node:assert/strict";
import { JinaStandIn } from "../../../../../stack/sandbox/providers/jina.ts";
import { encodeBase64 } from "../../../../../packages/shared/embeddings/decode.ts";
import { swatch } from "../../../../helpers/catalogue_pdf.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function call(
  s: JinaStandIn,
  body: unknown,
  headers: Record<string, string> = {},
  path = "/v1/embeddings",
) {
  const res = await s.serve(
    new Request(`http://sandbox/jina${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer jina_test", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    path,
  );
  return { status: res.status, body: await res.json() as Json };
}

Deno.test("jina stand-in: embeddings in Jina's shape, errors as FastAPI details", async () => {
  const s = new JinaStandIn();
  const png = encodeBase64(await swatch(16, 16, [200, 30, 30]));
  const ok = await call(s, {
    model: "jina-clip-v2",
    dimensions: 768,
    input: [{ text: "red tile" }, { image: png }],
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.object, "list");
  assert.equal(ok.body.model, "jina-clip-v2");
  assert.deepEqual(ok.body.data.map((d: Json) => [d.object, d.index, d.embedding.length]), [
    ["embedding", 0, 768],
    ["embedding", 1, 768],
  ]);
  assert.equal(ok.body.usage.total_tokens, 2 + 1000);
  const small = await call(s, { model: "jina-clip-v2", dimensions: 64, input: ["red"] });
  const v = small.body.data[0].embedding as number[];
  assert.equal(v.length, 64);
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-9, "folded and re-normalised");

  const cases: [unknown, Record<string, string>, number, RegExp][] = [
    [{ model: "jina-clip-v2", input: ["x"] }, { authorization: "" }, 401, /Bearer/],
    [{ model: "text-embedding-3", input: ["x"] }, {}, 422, /model/],
    [{ model: "jina-clip-v2", dimensions: 1024, input: ["x"] }, {}, 422, /dimensions/],
    [{ model: "jina-clip-v2", input: [] }, {}, 422, /input/],
    [{ model: "jina-clip-v2", input: [{ audio: "x" }] }, {}, 422, /input\.0/],
    [
      { model: "jina-clip-v2", input: [{ image: encodeBase64(new TextEncoder().encode("no")) }] },
      {},
      400,
      /image/,
    ],
    ["{broken", {}, 422, /JSON object/],
  ];
  for (const [body, headers, status, detail] of cases) {
    const r = await call(s, body, headers);
    assert.equal(r.status, status, JSON.stringify(body));
    assert.match(r.body.detail, detail);
  }
  assert.equal((await call(s, {}, {}, "/v1/rerank")).status, 404);
  assert.equal(s.captures.requests().length, 10);
  assert.equal(s.captures.requests()[0].headers.authorization, "[redacted]");

  s.failNext(429, { message: "rate limited" }).answerNext({ data: "garbage" });
  const limited = await call(s, { model: "jina-clip-v2", input: ["x"] });
  assert.deepEqual([limited.status, limited.body.detail], [429, "rate limited"]);
  const raw = await call(s, { model: "jina-clip-v2", input: ["x"] });
  assert.deepEqual(raw.body, { data: "garbage" });
  s.reset();
  assert.equal(s.captures.requests().length, 0);
});
