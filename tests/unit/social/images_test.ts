/**
 * generate-social-image's provider call (packages/shared/social/images.ts) through the openai SDK
 * against the images stand-in (stack/sandbox/providers/images.ts), served locally without a
 * platform: the request the SDK sends and the stand-in accepts (path, bearer key, body fields
 * per model family), a real PNG of the asked size back, and every failure as the function's
 * error code (image_provider_not_configured 503, image_provider_error / _unreachable 502), an
 * image URL on a private address refused by safe_fetch.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { runWithEnv } from "../../../packages/shared/env.ts";
import { DOMAIN_ERROR_STATUS, DomainError } from "../../../packages/shared/errors.ts";
import { UnsafeUrlError } from "../../../packages/shared/net/safe_fetch.ts";
import { imageProviderFromEnv, requestImage } from "../../../packages/shared/social/images.ts";
import { ImagesStandIn } from "../../../stack/sandbox/providers/images.ts";

async function withImages(fn: (s: ImagesStandIn, base: string) => Promise<void>): Promise<void> {
  const s = new ImagesStandIn();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req) => s.serve(req, new URL(req.url).pathname),
  );
  s.baseUrl = `http://127.0.0.1:${server.addr.port}`;
  try {
    await fn(s, `${s.baseUrl}/v1`);
  } finally {
    await server.shutdown();
  }
}

function domain(code: string, status: number, message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof DomainError, String(err));
    assert.equal(err.code, code);
    assert.equal(DOMAIN_ERROR_STATUS[err.kind], status);
    if (message) assert.match(err.message, message);
    return true;
  };
}

Deno.test("no IMAGE_API_KEY: 503 image_provider_not_configured; the base and model come from the env", () => {
  runWithEnv({ IMAGE_API_KEY: "", IMAGE_API_BASE_URL: "", IMAGE_MODEL: "" }, () => {
    assert.throws(
      () => imageProviderFromEnv(),
      domain("image_provider_not_configured", 503, /IMAGE_API_KEY/),
    );
  });
  runWithEnv({ IMAGE_API_KEY: "k", IMAGE_API_BASE_URL: "http://h/v1/", IMAGE_MODEL: "" }, () => {
    assert.deepEqual(imageProviderFromEnv(), { baseUrl: "http://h/v1", key: "k", model: "gpt-image-1" });
    assert.equal(imageProviderFromEnv("dall-e-3").model, "dall-e-3");
  });
});

Deno.test("the SDK's request is what the stand-in accepts: gpt-image asks png, others b64_json", async () => {
  await withImages(async (s, base) => {
    const png = await requestImage(
      { baseUrl: base, key: "sk-img", model: "gpt-image-1" },
      "Oak loft",
      "1024x1536",
    );
    const meta = await sharp(png).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 1024, 1536]);
    const [first] = s.captures.requests();
    assert.equal(first.method, "POST");
    assert.equal(first.path, "/v1/images/generations");
    assert.equal(first.status, 200);
    assert.equal(first.headers["content-type"], "application/json");
    assert.match(first.headers["user-agent"], /^OpenAI\/JS /);
    assert.deepEqual(first.body, {
      model: "gpt-image-1",
      prompt: "Oak loft",
      n: 1,
      size: "1024x1536",
      output_format: "png",
    });

    await requestImage({ baseUrl: base, key: "sk-img", model: "dall-e-3" }, "Tiles", "1024x1024");
    assert.deepEqual(s.captures.requests()[1].body, {
      model: "dall-e-3",
      prompt: "Tiles",
      n: 1,
      size: "1024x1024",
      response_format: "b64_json",
    });
    assert.deepEqual(s.generated.map((g) => [g.model, g.size]), [["gpt-image-1", "1024x1536"], [
      "dall-e-3",
      "1024x1024",
    ]]);
  });
});

Deno.test("provider failures map to the function's codes, once each (no retry)", async () => {
  await withImages(async (s, base) => {
    const p = { baseUrl: base, key: "sk-img", model: "gpt-image-1" };
    s.failNext(500, { message: "model overloaded" });
    await assert.rejects(
      requestImage(p, "x", "1024x1024"),
      domain("image_provider_error", 502, /^The image provider answered HTTP 500: model overloaded$/),
    );
    assert.equal(s.captures.requests().length, 1, "a 500 is not retried: the debit waits on one attempt");
    s.failNext(401, { message: "Incorrect API key provided" });
    await assert.rejects(
      requestImage(p, "x", "1024x1024"),
      domain("image_provider_error", 502, /HTTP 401: Incorrect API key provided/),
    );
    // The stand-in's own 400 for a size it refuses.
    await assert.rejects(
      requestImage(p, "x", "99x99"),
      domain("image_provider_error", 502, /HTTP 400: Invalid value/),
    );
    s.nextAnswer = { created: 1, data: [{}] };
    await assert.rejects(
      requestImage(p, "x", "1024x1024"),
      domain("image_provider_error", 502, /without an image/),
    );
    // A URL answer is fetched through safe_fetch, which refuses the loopback address.
    s.nextAnswer = { created: 1, data: [{ url: `${s.baseUrl}/images/files/img_x.png` }] };
    await assert.rejects(requestImage(p, "x", "1024x1024"), UnsafeUrlError);
    assert.equal(s.captures.requests().filter((c) => c.method === "GET").length, 0, "never fetched");
  });
  await assert.rejects(
    requestImage({ baseUrl: "http://127.0.0.1:9/v1", key: "k", model: "gpt-image-1" }, "x", "1024x1024"),
    domain("image_provider_unreachable", 502),
  );
});
