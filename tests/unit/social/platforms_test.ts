/**
 * The per-platform publishing rules (packages/shared/social/platforms.ts), the best-time
 * aggregation and the caption-variant checks, table-driven.
 */
import assert from "node:assert/strict";
import {
  captionLength,
  mediaKindOf,
  PLATFORM_RULES,
  platformProblems,
  PLATFORMS,
  type PostDraft,
} from "@shared/social/platforms.ts";
import { bestTimesFrom } from "@shared/social/analytics.ts";
import { shapeVariants, variantsSchema } from "@shared/social/content.ts";
import { ContentBody } from "@shared/social/schemas.ts";

const img = (url = "https://cdn.example/a.jpg") => ({ url, kind: mediaKindOf(url) });

Deno.test("platform rules: every platform has its row", () => {
  assert.deepEqual(Object.keys(PLATFORM_RULES).sort(), [...PLATFORMS].sort());
  assert.equal(PLATFORMS.length, 8);
});

Deno.test("platform rules: caption length and media, per platform", () => {
  const cases: [string, PostDraft, RegExp | null][] = [
    ["twitter at 280", { platform: "twitter", content: "a".repeat(280), media: null }, null],
    ["twitter at 281", { platform: "twitter", content: "a".repeat(281), media: null }, /at most 280/],
    ["twitter emoji count once", { platform: "twitter", content: "👷".repeat(280), media: null }, null],
    ["threads 500", { platform: "threads", content: "a".repeat(501), media: null }, /at most 500/],
    ["linkedin 3000", { platform: "linkedin", content: "a".repeat(3001), media: null }, /at most 3000/],
    ["facebook long ok", { platform: "facebook", content: "a".repeat(60000), media: null }, null],
    ["facebook 63206", { platform: "facebook", content: "a".repeat(63207), media: null }, /at most 63206/],
    ["instagram needs media", { platform: "instagram", content: "hi", media: null }, /need media/],
    ["instagram image", { platform: "instagram", content: "hi", media: img() }, null],
    [
      "instagram video",
      { platform: "instagram", content: "hi", media: img("https://x.example/v.MP4") },
      null,
    ],
    ["instagram 2200", { platform: "instagram", content: "a".repeat(2201), media: img() }, /at most 2200/],
    ["instagram 31 hashtags", {
      platform: "instagram",
      content: Array.from({ length: 31 }, (_, i) => `#t${i}`).join(" "),
      media: img(),
    }, /30 hashtags/],
    ["tiktok needs media", { platform: "tiktok", content: "hi", media: null }, /need media \(video\)/],
    ["tiktok refuses images", { platform: "tiktok", content: "hi", media: img() }, /does not take image/],
    ["tiktok video", { platform: "tiktok", content: "hi", media: img("https://x.example/v.webm") }, null],
    [
      "youtube needs video",
      { platform: "youtube", content: "hi", media: img("https://x.example/p.png") },
      /does not take image/,
    ],
    ["youtube 5000", {
      platform: "youtube",
      content: "a".repeat(5001),
      media: img("https://x.example/v.mov"),
    }, /at most 5000/],
    ["pinterest needs media", { platform: "pinterest", content: "hi", media: null }, /need media/],
    [
      "pinterest image",
      { platform: "pinterest", content: "hi", media: img("https://x.example/p.webp") },
      null,
    ],
    [
      "unknown kind",
      { platform: "facebook", content: "hi", media: img("https://x.example/file") },
      /media_type/,
    ],
    ["linkedin optional media", { platform: "linkedin", content: "hi", media: null }, null],
  ];
  for (const [name, draft, problem] of cases) {
    const problems = platformProblems(draft);
    if (problem === null) assert.deepEqual(problems, [], name);
    else assert.match(problems.join("; "), problem, name);
  }
});

Deno.test("mediaKindOf: declared kind wins, else the extension", () => {
  const cases: [string, "image" | "video" | null, "image" | "video" | null][] = [
    ["https://a.example/x.jpeg", null, "image"],
    ["https://a.example/x.GIF?size=2", null, "image"],
    ["https://a.example/x.m4v", null, "video"],
    ["https://a.example/x", null, null],
    ["https://a.example/x", "video", "video"],
    ["not a url", null, null],
  ];
  for (const [url, declared, kind] of cases) assert.equal(mediaKindOf(url, declared), kind, url);
  assert.equal(captionLength("🧱🧱"), 2);
});

Deno.test("bestTimesFrom: UTC weekday and hour, by average engagement", () => {
  const at = (iso: string, likes: number, comments = 0, shares = 0, saves = 0) => ({
    published_at: iso,
    likes,
    comments,
    shares,
    saves,
  });
  assert.deepEqual(bestTimesFrom([]), []);
  const slots = bestTimesFrom([
    at("2026-03-02T09:10:00Z", 10), // Monday 9
    at("2026-03-09T09:50:00Z", 20, 2), // Monday 9
    at("2026-03-03T09:00:00+02:00", 5), // Tuesday 7 UTC
    at("2026-03-07T23:30:00Z", 16), // Saturday 23
    at("2026-03-01T12:00:00Z", 0), // Sunday 12
    at("garbage", 1000),
  ]);
  assert.deepEqual(slots.map((s) => [s.day, s.hour, s.avg_engagement, s.post_count]), [
    ["monday", 9, 16, 2],
    ["saturday", 23, 16, 1],
    ["tuesday", 7, 5, 1],
  ]);
});

Deno.test("variants: three, hashtags exact, platform limit (schema, then shapeVariants)", () => {
  const req = ContentBody.parse({
    topic: "t",
    platform: "twitter",
    include_hashtags: true,
    hashtag_count: 2,
    workspace_id: crypto.randomUUID(),
  });
  const schema = variantsSchema(req);
  const v = (caption: string, hashtags: string[]) => ({ caption, hashtags });
  const ok = shapeVariants(
    schema.parse({ variants: [v("a", ["x", "#y", "z"]), v("b", ["#x", "#y"]), v("c", ["#x", "y"])] }),
    req,
  );
  assert.ok("variants" in ok);
  assert.deepEqual(ok.variants.map((x) => x.text), ["a\n\n#x #y", "b\n\n#x #y", "c\n\n#x #y"]);
  // The tool schema refuses a wrong count and too few hashtags outright.
  assert.equal(schema.safeParse({ variants: [v("a", ["x", "y"])] }).success, false);
  assert.equal(
    schema.safeParse({ variants: [v("a", ["x"]), v("b", ["x", "y"]), v("c", ["x", "y"])] }).success,
    false,
  );
  // The check finds what the schema cannot: unusable tags, the full text over the limit.
  const bad: [unknown, RegExp][] = [
    [{ variants: [v("a", ["bad tag!", "y"]), v("b", ["x", "y"]), v("c", ["x", "y"])] }, /1 usable hashtags/],
    [{ variants: [v("a".repeat(275), ["x", "y"]), v("b", ["x", "y"]), v("c", ["x", "y"])] }, /allows 280/],
  ];
  for (const [answer, problem] of bad) {
    const shaped = shapeVariants(schema.parse(answer), req);
    assert.ok("problem" in shaped, JSON.stringify(answer));
    assert.match(shaped.problem, problem);
  }
});
