/**
 * Embedding providers: the local hashing provider (deterministic, unit length, lexical
 * similarity) and the hosted adapters against a local HTTP stand-in (request shape, batching,
 * answer checks, errors; the OpenAI-compatible one through the openai SDK, with its retry of a
 * transient failure), plus the choice from the environment.
 */
import assert from "node:assert/strict";
import {
  cosine,
  EMBEDDING_DIMENSIONS,
  EmbeddingError,
  embeddingsFromEnv,
  hashEmbed,
  LocalHashEmbeddings,
  OpenAICompatibleEmbeddings,
  toPgVector,
  VoyageEmbeddings,
} from "../../../packages/shared/embeddings/mod.ts";

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

Deno.test("local: 1024 dimensions, unit length, deterministic, no network", async () => {
  const p = new LocalHashEmbeddings();
  const [a, b] = await p.embed(["Keraflex Maxi S1 grey 25 kg", "Keraflex Maxi S1 grey 25 kg"], "document");
  assert.equal(a.length, EMBEDDING_DIMENSIONS);
  assert.ok(Math.abs(norm(a) - 1) < 1e-9);
  assert.deepEqual(a, b);
  assert.deepEqual(hashEmbed("Keraflex"), hashEmbed("Keraflex"));
  assert.deepEqual(hashEmbed(""), new Array(1024).fill(0));
});

Deno.test("local: similarity follows lexical overlap", () => {
  const q = hashEmbed("price of Keraflex grey adhesive");
  const related = hashEmbed("| MP-100 | Keraflex Maxi S1 grey 25 kg | bag | 12,50 |");
  const inflected = hashEmbed("Keraflexx greys adhesives");
  const unrelated = hashEmbed("Opening hours of the showroom on public holidays");
  assert.ok(
    cosine(q, related) > cosine(q, unrelated) + 0.1,
    `${cosine(q, related)} vs ${cosine(q, unrelated)}`,
  );
  assert.ok(cosine(q, inflected) > cosine(q, unrelated), "character trigrams carry misspellings and plurals");
  assert.ok(Math.abs(cosine(q, unrelated)) < 0.15);
});

Deno.test("pgvector text form", () => {
  assert.equal(toPgVector([0.5, -1, 0]), "[0.5,-1,0]");
});

interface Captured {
  auth: string | null;
  path: string;
  headers: Headers;
  body: Record<string, unknown>;
}

async function withStandIn(
  answer: (body: Record<string, unknown>) => Response,
  fn: (base: string, seen: Captured[]) => Promise<void>,
): Promise<void> {
  const seen: Captured[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const body = await req.json();
    seen.push({
      auth: req.headers.get("authorization"),
      path: new URL(req.url).pathname,
      headers: req.headers,
      body,
    });
    return answer(body);
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/v1`, seen);
  } finally {
    await server.shutdown();
  }
}

const vectors = (n: number, dims = 1024) =>
  Array.from(
    { length: n },
    (_, i) => ({ object: "embedding", index: i, embedding: hashEmbed(`text ${i}`, dims) }),
  );

Deno.test("openai-compatible: floats asked for, 1024 dimensions, batched, answers re-ordered by index", async () => {
  await withStandIn(
    (body) => Response.json({ object: "list", data: vectors((body.input as string[]).length).reverse() }),
    async (base, seen) => {
      const p = new OpenAICompatibleEmbeddings({
        baseUrl: base,
        apiKey: "sk-test",
        model: "m-1",
        batchSize: 2,
      });
      const out = await p.embed(["a", "b", "c"], "query");
      assert.equal(out.length, 3);
      assert.deepEqual(out[0].slice(0, 5), hashEmbed("text 0").slice(0, 5).map((x) => x));
      assert.equal(seen.length, 2, "two batches");
      assert.deepEqual(seen[0].body, {
        model: "m-1",
        input: ["a", "b"],
        dimensions: 1024,
        encoding_format: "float",
      });
      assert.equal(seen[0].auth, "Bearer sk-test");
    },
  );
});

Deno.test("openai-compatible: sent by the openai SDK to {base}/embeddings; statuses become EmbeddingError", async () => {
  let script: Response[] = [];
  await withStandIn(
    (body) =>
      script.shift() ??
        Response.json({ object: "list", data: vectors((body.input as string[]).length), model: body.model }),
    async (base, seen) => {
      const p = new OpenAICompatibleEmbeddings({
        baseUrl: `${base}/`,
        apiKey: "sk-wire",
        model: "text-embedding-3-small",
      });
      const [v] = await p.embed(["Keraflex grey"], "document");
      assert.equal(v.length, 1024);
      assert.equal(seen.length, 1);
      assert.equal(seen[0].path, "/v1/embeddings");
      assert.equal(seen[0].auth, "Bearer sk-wire");
      assert.match(seen[0].headers.get("user-agent") ?? "", /^OpenAI\/JS /, "the SDK sent it");
      assert.equal(seen[0].headers.get("x-stainless-retry-count"), "0");
      assert.equal(seen[0].headers.get("openai-organization"), null);
      const { model, input, dimensions, encoding_format } = seen[0].body;
      assert.deepEqual({ model, input, dimensions, encoding_format }, {
        model: "text-embedding-3-small",
        input: ["Keraflex grey"],
        dimensions: 1024,
        encoding_format: "float",
      });

      // A transient 503 is retried once (Retry-After honoured), then answered.
      seen.length = 0;
      script = [
        Response.json({ error: { message: "overloaded" } }, {
          status: 503,
          headers: { "retry-after-ms": "1" },
        }),
      ];
      assert.equal((await p.embed(["x"], "query")).length, 1);
      assert.deepEqual(seen.map((c) => c.headers.get("x-stainless-retry-count")), ["0", "1"]);

      // A client error is not retried and keeps its status and the provider's message.
      seen.length = 0;
      script = [
        Response.json({
          error: { message: "dimensions is not supported by this model", type: "invalid_request_error" },
        }, {
          status: 400,
        }),
      ];
      await assert.rejects(p.embed(["x"], "query"), (err: unknown) => {
        assert.ok(err instanceof EmbeddingError);
        assert.equal(err.status, 400);
        assert.equal(
          err.message,
          "openai embeddings answered 400: dimensions is not supported by this model",
        );
        return true;
      });
      assert.equal(seen.length, 1);

      // Two 500s in a row: the retry is spent, the error is the provider's.
      script = [500, 500].map((status) =>
        new Response("upstream exploded", { status, headers: { "retry-after-ms": "1" } })
      );
      await assert.rejects(p.embed(["x"], "query"), (err: unknown) => {
        assert.ok(err instanceof EmbeddingError);
        assert.equal(err.status, 500);
        assert.equal(err.message, "openai embeddings answered 500: upstream exploded");
        return true;
      });

      // A success that is not JSON.
      script = [new Response("<html>proxy</html>", { headers: { "content-type": "text/html" } })];
      await assert.rejects(p.embed(["x"], "query"), /openai embeddings answered non-JSON: <html>proxy/);
    },
  );
  const down = new OpenAICompatibleEmbeddings({
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: "k",
    model: "m",
    maxRetries: 0,
  });
  await assert.rejects(down.embed(["x"], "query"), (err: unknown) => {
    assert.ok(err instanceof EmbeddingError);
    assert.equal(err.status, null);
    assert.match(err.message, /^openai embeddings request failed: /);
    return true;
  });
});

Deno.test("voyage: input_type and output_dimension are sent", async () => {
  await withStandIn(
    (body) => Response.json({ object: "list", data: vectors((body.input as string[]).length) }),
    async (base, seen) => {
      await new VoyageEmbeddings({ baseUrl: base, apiKey: "v", model: "voyage-3.5" }).embed(
        ["x"],
        "document",
      );
      assert.deepEqual(seen[0].body, {
        model: "voyage-3.5",
        input: ["x"],
        input_type: "document",
        output_dimension: 1024,
      });
    },
  );
});

Deno.test("adapters refuse wrong dimensions, wrong counts and HTTP errors", async () => {
  const cases: [string, (b: Record<string, unknown>) => Response, RegExp][] = [
    ["dimensions", () => Response.json({ data: vectors(1, 1536) }), /1536 dimensions; 1024 are required/],
    ["count", () => Response.json({ data: [] }), /0 embeddings for 1 inputs/],
    [
      "status",
      () => Response.json({ error: { message: "bad key" } }, { status: 401 }),
      /answered 401: .*bad key/,
    ],
    ["shape", () => Response.json({ data: [{ index: 0, embedding: "AAAA" }] }), /not an array of floats/],
  ];
  for (const [name, answer, message] of cases) {
    await withStandIn(answer, async (base) => {
      const p = new OpenAICompatibleEmbeddings({ baseUrl: base, apiKey: "k", model: "m" });
      await assert.rejects(p.embed(["x"], "query"), (err: unknown) => {
        assert.ok(err instanceof EmbeddingError, name);
        assert.match(err.message, message);
        return true;
      });
    });
  }
});

Deno.test("the provider comes from the environment; no key means local", () => {
  const from = (vars: Record<string, string>) => embeddingsFromEnv((n) => vars[n]);
  assert.equal(from({}).name, "local");
  const o = from({ EMBEDDINGS_API_KEY: "k", EMBEDDINGS_BASE_URL: "http://h/v1", EMBEDDINGS_MODEL: "e5" });
  assert.equal(o.name, "openai");
  assert.equal(o.model, "e5");
  assert.equal(from({ EMBEDDINGS_PROVIDER: "voyage", EMBEDDINGS_API_KEY: "k" }).model, "voyage-3.5");
  assert.equal(from({ EMBEDDINGS_PROVIDER: "local", EMBEDDINGS_API_KEY: "k" }).name, "local");
  assert.throws(() => from({ EMBEDDINGS_PROVIDER: "voyage" }), /needs EMBEDDINGS_API_KEY/);
  assert.throws(
    () => from({ EMBEDDINGS_PROVIDER: "magic", EMBEDDINGS_API_KEY: "k" }),
    /unknown EMBEDDINGS_PROVIDER/,
  );
});
