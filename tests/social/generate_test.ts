/**
 * generate-social-content (3 caption variants from the language model, zod-checked; 2 credits
 * debited first, refunded when the model fails or answers unusably; 402 when short, also under
 * concurrent calls) and generate-social-image (credits by image_type, a real PNG of the aspect
 * ratio's size stored in the public social-images bucket, refunds on provider failure).
 * Balances are checked to the cent for every path.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { platformTest } from "../helpers/platform.ts";
import { balance, createTeam, grant } from "../helpers/team.ts";
import { type Json, post, rows } from "./helpers.ts";

const submit = (input: Record<string, unknown>) => ({ toolUse: [{ name: "submit_variants", input }] });
const variants = (n: number, tags: string[]) =>
  submit({
    variants: Array.from(
      { length: n },
      (_, i) => ({ caption: `Caption ${i + 1}: oak that lasts`, hashtags: tags }),
    ),
  });

async function ledger(p: Parameters<typeof balance>[0], userId: string, action: string): Promise<string[]> {
  const r = await rows(
    p,
    `select amount::text from public.credit_transactions where user_id = $1 and action = $2 order by created_at, id`,
    [userId, action],
  );
  return r.map((x) => x.amount);
}

platformTest(
  "generate-social-content: 3 variants for 2 credits; refunds and 402s exact to the cent",
  async (p) => {
    const t = await createTeam(p, { prefix: "soc-gen" });
    await grant(p, t.member.id, 5.25);
    const llm = p.sandbox!.get("anthropic");
    llm.reset();
    const body = {
      topic: "Spring launch of the oak range",
      platform: "instagram",
      tone: "warm",
      product_info: { name: "Rustic Oak 190", category: "flooring" },
      include_hashtags: true,
      hashtag_count: 3,
      workspace_id: t.ws,
    };
    const gen = (token: string | null, extra: Record<string, unknown> = {}) =>
      post(p, "generate-social-content", token, { ...body, ...extra });

    llm.reply(variants(3, ["#oak", "flooring", "#interiors", "#extra"]));
    const ok = await gen(t.member.accessToken);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.variants.length, 3);
    for (const v of ok.body.variants as Json[]) {
      assert.deepEqual(v.hashtags, ["#oak", "#flooring", "#interiors"], "exactly hashtag_count, normalised");
      assert.equal(v.text, `${v.caption}\n\n#oak #flooring #interiors`);
      assert.equal(v.character_count, [...v.text].length);
    }
    assert.equal(ok.body.credits_used, 2);
    assert.equal(await balance(p, t.member.id), 3.25);
    // The prompt carried the request.
    const sent = p.sandbox!.captures("anthropic").find((c) => c.direction === "in")!.body as Json;
    assert.match(JSON.stringify(sent.messages), /Rustic Oak 190 \(flooring\)/);
    assert.match(JSON.stringify(sent.messages), /exactly 3 relevant hashtags/);

    // Without hashtags none are kept.
    llm.reply(variants(3, ["#oak"]));
    const plain = await gen(t.member.accessToken, { include_hashtags: false, platform: "linkedin" });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.deepEqual(plain.body.variants.map((v: Json) => v.hashtags), [[], [], []]);
    assert.equal(await balance(p, t.member.id), 1.25);

    // Short: 402 before the model is called.
    const capturesBefore = p.sandbox!.captures("anthropic").length;
    const short = await gen(t.member.accessToken);
    assert.equal(short.status, 402, JSON.stringify(short.body));
    assert.equal(p.sandbox!.captures("anthropic").length, capturesBefore);
    assert.equal(await balance(p, t.member.id), 1.25);

    // Model failures refund in full, once: provider error (the SDK retries once), and answers
    // unusable twice (the layer asks once more with the problem): prose, wrong variant count, too
    // few tags, a caption over the platform's limit.
    await grant(p, t.admin.id, 2.5);
    const twice = (reply: Parameters<typeof llm.reply>[0]) => () => llm.reply(reply, reply);
    const failures: [() => void, Record<string, unknown>, string][] = [
      [() => llm.failNext(500, { times: 2 }), {}, "model_unavailable"],
      [twice("Here are some ideas: oak is great"), {}, "model_bad_output"],
      [twice(variants(2, ["#a", "#b", "#c"])), {}, "model_bad_output"],
      [twice(variants(3, ["#a"])), {}, "model_bad_output"],
      [
        twice(submit({ variants: Array(3).fill({ caption: "x".repeat(281), hashtags: [] }) })),
        {
          platform: "twitter",
          include_hashtags: false,
        },
        "model_bad_output",
      ],
    ];
    for (const [script, extra, code] of failures) {
      script();
      const r = await gen(t.admin.accessToken, extra);
      assert.equal(r.status, 502, JSON.stringify(r.body));
      assert.equal(r.body.code, code);
      assert.equal(await balance(p, t.admin.id), 2.5, JSON.stringify(r.body));
    }
    assert.deepEqual(await ledger(p, t.admin.id, "social_content_generation"), Array(5).fill("-2.0000"));
    llm.reset();

    // Concurrent calls on a balance for one: exactly one succeeds, the rest 402.
    await grant(p, t.owner.id, 3.99);
    llm.reply(
      variants(3, ["#a", "#b", "#c"]),
      variants(3, ["#a", "#b", "#c"]),
      variants(3, ["#a", "#b", "#c"]),
    );
    const race = await Promise.all([0, 1, 2].map(() => gen(t.owner.accessToken)));
    assert.deepEqual(race.map((r) => r.status).sort(), [200, 402, 402]);
    assert.equal(await balance(p, t.owner.id), 1.99);
    llm.reset();

    // Tenancy and input.
    assert.equal((await gen(t.outsider.accessToken)).status, 404);
    assert.equal((await gen(t.viewer.accessToken)).status, 403);
    assert.equal((await gen(null)).status, 401);
    const bad = await gen(t.member.accessToken, { platform: "myspace", hashtag_count: 0 });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /platform/);
  },
);

platformTest(
  "generate-social-image: credits by image_type, a PNG of the ratio's size stored, refunds",
  async (p) => {
    const t = await createTeam(p, { prefix: "soc-img" });
    const images = p.sandbox!.get("images");
    images.reset();
    await grant(p, t.member.id, 21.5);
    const gen = (token: string | null, extra: Record<string, unknown>) =>
      post(p, "generate-social-image", token, {
        prompt: "Oak floor in a sunny loft",
        workspace_id: t.ws,
        ...extra,
      });

    const cases: [string, string, number, number, number, string][] = [
      ["product", "1:1", 5, 1080, 1080, "1024x1024"],
      ["interior", "4:5", 5, 1080, 1350, "1024x1536"],
      ["artistic", "16:9", 6, 1920, 1080, "1536x1024"],
    ];
    let expected = 21.5;
    for (const [imageType, ratio, credits, width, height, asked] of cases) {
      const r = await gen(t.member.accessToken, { image_type: imageType, aspect_ratio: ratio });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      expected -= credits;
      assert.equal(r.body.credits_used, credits);
      assert.equal(await balance(p, t.member.id), expected);
      assert.deepEqual([r.body.width, r.body.height, r.body.aspect_ratio, r.body.image_type], [
        width,
        height,
        ratio,
        imageType,
      ]);
      assert.equal(images.generated.at(-1)!.size, asked);
      assert.ok(r.body.storage_path.startsWith(`${t.ws}/`));
      // The public URL serves the PNG, without a token.
      const res = await fetch(r.body.image_url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/png");
      const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ["png", width, height]);
    }
    assert.equal(await balance(p, t.member.id), 5.5);
    // lifestyle / people cost 10: short now.
    const short = await gen(t.member.accessToken, { image_type: "people", aspect_ratio: "9:16" });
    assert.equal(short.status, 402);
    assert.equal(await balance(p, t.member.id), 5.5);

    // 9:16 at 10 credits, the model override passed through.
    await grant(p, t.admin.id, 10);
    const tall = await gen(t.admin.accessToken, {
      image_type: "lifestyle",
      aspect_ratio: "9:16",
      model: "dall-e-3",
    });
    assert.equal(tall.status, 200, JSON.stringify(tall.body));
    assert.deepEqual([tall.body.width, tall.body.height, tall.body.model], [1080, 1920, "dall-e-3"]);
    assert.equal(images.generated.at(-1)!.model, "dall-e-3");
    assert.equal(await balance(p, t.admin.id), 0);

    // Provider failures refund in full.
    await grant(p, t.viewer.id, 0); // viewers may not generate at all
    assert.equal((await gen(t.viewer.accessToken, { image_type: "product" })).status, 403);
    await grant(p, t.owner.id, 6.75);
    images.failNext(500);
    const down = await gen(t.owner.accessToken, { image_type: "textured" });
    assert.equal(down.status, 502, JSON.stringify(down.body));
    assert.equal(await balance(p, t.owner.id), 6.75);
    images.nextAnswer = { created: 1, data: [{}] };
    const empty = await gen(t.owner.accessToken, { image_type: "textured" });
    assert.equal(empty.status, 502);
    images.nextAnswer = { created: 1, data: [{ b64_json: btoa("not an image") }] };
    const garbage = await gen(t.owner.accessToken, { image_type: "textured" });
    assert.equal(garbage.status, 502);
    assert.match(garbage.body.error, /cannot be decoded/);
    assert.equal(await balance(p, t.owner.id), 6.75);

    // Concurrent calls on a small balance: two of three fit.
    await grant(p, t.outsider.id, 12.3);
    const race = await Promise.all(
      [0, 1, 2].map(() =>
        post(p, "generate-social-image", t.outsider.accessToken, {
          prompt: "Tile",
          image_type: "product",
          aspect_ratio: "1:1",
          workspace_id: t.otherWs,
        })
      ),
    );
    assert.deepEqual(
      race.map((r) => r.status).sort(),
      [200, 200, 402],
    );
    assert.equal(await balance(p, t.outsider.id), 2.3);

    // Tenancy and input.
    assert.equal((await gen(t.outsider.accessToken, { image_type: "product" })).status, 404);
    assert.equal((await gen(null, { image_type: "product" })).status, 401);
    const badType = await gen(t.owner.accessToken, { image_type: "lifestyle-or-people" });
    assert.equal(badType.status, 400);
    assert.match(badType.body.error, /image_type/);
    assert.equal(
      (await gen(t.owner.accessToken, { image_type: "product", aspect_ratio: "3:2" })).status,
      400,
    );
    assert.equal((await gen(t.owner.accessToken, { image_type: "product", model: "../etc" })).status, 400);
    assert.equal(await balance(p, t.owner.id), 6.75);
    // Users cannot write to the bucket themselves.
    const upload = await fetch(`${p.url}/storage/v1/object/social-images/${t.ws}/mine.png`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${t.owner.accessToken}`,
        "content-type": "image/png",
      },
      body: new Uint8Array([1, 2, 3]),
    });
    assert.ok(upload.status >= 400, `upload refused (${upload.status})`);
    await upload.body?.cancel();
  },
);
