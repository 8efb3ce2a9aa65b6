/**
 * The pipeline's pure parts, table-driven: chunk planning (product boundaries, index pages,
 * page ranges), ai_config profiles and overrides, which image categories focused extraction
 * keeps, page-proximity similarity, and the local image embeddings (unit length, deterministic,
 * similar pictures closer than different ones).
 */
import assert from "node:assert/strict";
import {
  keptCategories,
  pageSimilarity,
  pipelineOptionsSchema,
  planChunks,
} from "../../../../services/ai-backend/mod.ts";
import { resolveAiConfig } from "@shared/ai_services/config.ts";
import { IMAGE_EMBEDDING_KINDS, LocalImageEmbeddings, type RasterImage } from "@shared/embeddings/image.ts";
import { cosine } from "@shared/embeddings/provider.ts";

const words = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

Deno.test("chunks never cross a product boundary, skip index pages and carry page ranges", () => {
  const pages = [
    "Contents: A 2, B 3",
    words("alpha", 120),
    words("beta", 10),
    words("beta-more", 10),
    "",
    "loose notes",
  ];
  const products = [
    { id: "A", name: "A", page_start: 2, page_end: 2 },
    { id: "B", name: "B", page_start: 3, page_end: 4 },
  ];
  const chunks = planChunks({
    extracted_text: pages,
    index_pages: [1],
    products,
    chunk_size: 300,
    chunk_overlap: 30,
  });
  assert.ok(chunks.every((c) => c.content.length <= 300));
  assert.ok(!chunks.some((c) => c.content.includes("Contents")));
  for (const c of chunks) {
    if (c.product_id === "A") {
      assert.ok(c.page_start === 2 && c.page_end === 2 && !c.content.includes("beta"));
    }
    if (c.product_id === "B") assert.ok(c.page_start >= 3 && c.page_end <= 4 && !c.content.includes("alpha"));
  }
  assert.ok(
    chunks.some((c) => c.product_id === "B" && c.page_start === 3 && c.page_end === 4),
    "spans B's pages",
  );
  const loose = chunks.filter((c) => c.product_id === null);
  assert.deepEqual(loose.map((c) => [c.page_start, c.content]), [[6, "loose notes"]]);
  assert.deepEqual(chunks.map((c) => c.chunk_index), chunks.map((_, i) => i));
});

Deno.test("ai_config: defaults, the four profiles and field overrides", () => {
  const cases: [Parameters<typeof resolveAiConfig>[0], number, number][] = [
    [undefined, 0.7, 4096],
    [{ profile: "FAST_CONFIG" }, 0.7, 2048],
    [{ profile: "HIGH_ACCURACY_CONFIG" }, 0.8, 8192],
    [{ profile: "COST_OPTIMIZED_CONFIG" }, 0.6, 2048],
    [{ profile: "COST_OPTIMIZED_CONFIG", classification_confidence_threshold: 0.9 }, 0.9, 2048],
  ];
  for (const [input, threshold, tokens] of cases) {
    const cfg = resolveAiConfig(input);
    assert.equal(cfg.classification_confidence_threshold, threshold);
    assert.equal(cfg.metadata_max_tokens, tokens);
    assert.equal(cfg.visual_embedding_dimensions, 768);
    assert.equal(cfg.text_embedding_dimensions, 1024);
    assert.equal(cfg.text_embedding_input_type, "document");
  }
  const d = resolveAiConfig(undefined);
  assert.deepEqual([d.discovery_temperature, d.classification_max_tokens, d.discovery_max_tokens], [
    0.1,
    512,
    4096,
  ]);
});

Deno.test("focused extraction keeps material images; `all` or focused_extraction false keeps every image", () => {
  const kept = (o: unknown) => {
    const k = keptCategories(pipelineOptionsSchema.parse(o));
    return k === null ? null : [...k].sort();
  };
  assert.deepEqual(kept({}), ["material"]);
  assert.deepEqual(kept({ extract_categories: ["products", "logos"] }), ["logo", "material"]);
  assert.equal(kept({ extract_categories: ["all"] }), null);
  assert.equal(kept({ focused_extraction: false }), null);
  const o = pipelineOptionsSchema.parse({});
  assert.deepEqual([o.chunk_size, o.chunk_overlap, o.similarity_threshold], [512, 50, 0.5]);
});

Deno.test("page similarity: 1 on the page, 0.5 next to it", () => {
  assert.equal(pageSimilarity(3, 3, 4), 1);
  assert.equal(pageSimilarity(5, 3, 4), 0.5);
  assert.equal(pageSimilarity(1, 3, 4), 1 / 3);
});

function swatch(rgb: [number, number, number], stripes: boolean): RasterImage {
  const w = 32, h = 32, data = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++) {
    const dark = stripes && Math.floor(i / w) % 4 < 2 ? 40 : 0;
    for (let c = 0; c < 3; c++) data[i * 3 + c] = Math.max(0, rgb[c] - dark);
  }
  return { width: w, height: h, channels: 3, data };
}

Deno.test("local image embeddings: five unit 768-d vectors, deterministic, similar closer than different", async () => {
  const e = new LocalImageEmbeddings();
  const oak = await e.embedImage(swatch([150, 100, 60], true));
  const oak2 = await e.embedImage(swatch([155, 102, 62], true));
  const slate = await e.embedImage(swatch([60, 62, 66], false));
  for (const kind of IMAGE_EMBEDDING_KINDS) {
    assert.equal(oak[kind].length, 768);
    assert.ok(Math.abs(Math.hypot(...oak[kind]) - 1) < 1e-9, kind);
    assert.ok(cosine(oak[kind], oak2[kind]) > cosine(oak[kind], slate[kind]), kind);
  }
  assert.deepEqual(await e.embedImage(swatch([150, 100, 60], true)), oak);
});
