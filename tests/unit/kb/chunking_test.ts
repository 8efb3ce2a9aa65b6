/** Markdown-aware chunking (512 / 50 defaults), content hashing and search shaping. */
import assert from "node:assert/strict";
import {
  chunkMarkdown,
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  embeddingInput,
  markdownBlocks,
  splitTable,
  splitText,
} from "../../../packages/shared/kb/chunking.ts";
import { contentHash } from "../../../packages/shared/content_hash.ts";

Deno.test("defaults are the spec's 512 characters with 50 overlap", () => {
  assert.equal(DEFAULT_CHUNK_SIZE, 512);
  assert.equal(DEFAULT_CHUNK_OVERLAP, 50);
});

Deno.test("blocks: headings, paragraphs, tables and fenced code, with source offsets", () => {
  const md =
    "# Title\n\nSome text\nmore text\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\n# not a heading\n```\n- item";
  const blocks = markdownBlocks(md);
  assert.deepEqual(blocks.map((b) => b.kind), ["heading", "text", "table", "code", "text"]);
  for (const b of blocks) assert.equal(md.slice(b.start, b.end).trim(), b.text);
});

const cases: { name: string; md: string; expect: (chunks: ReturnType<typeof chunkMarkdown>) => void }[] = [
  {
    name: "a short document is one chunk with its heading path",
    md: "# Price list\n\n## Tiles\n\nMarazzi tiles 60x60 cost 45 EUR per m2.",
    expect: (c) => {
      assert.equal(c.length, 1);
      assert.equal(c[0].heading, "Price list > Tiles");
      assert.match(c[0].content, /^# Price list\n\n## Tiles\n\nMarazzi/);
    },
  },
  {
    name: "a heading ends the chunk before it: no chunk spans two sections",
    md: "# A\n\nalpha text\n\n# B\n\nbeta text",
    expect: (c) => {
      assert.deepEqual(c.map((x) => x.heading), ["A", "B"]);
      assert.ok(!c[0].content.includes("beta"));
    },
  },
  {
    name: "long prose is cut under 512 characters with a 50-character overlap from a word boundary",
    md: Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about tiles and adhesive.`).join(
      " ",
    ),
    expect: (c) => {
      assert.ok(c.length > 3);
      for (const x of c) assert.ok(x.content.length <= 512, `${x.content.length}`);
      for (let i = 1; i < c.length; i++) {
        const seed = c[i].content.split("\n\n")[0];
        assert.ok(seed.length > 0 && seed.length <= 50, `chunk ${i} opens with at most 50 characters`);
        assert.ok(c[i - 1].content.endsWith(seed), `chunk ${i} opens with the end of chunk ${i - 1}`);
      }
    },
  },
  {
    name: "a large table is cut between rows and every piece repeats the header",
    md: "| SKU | Product | Price |\n|---|---|---|\n" +
      Array.from({ length: 40 }, (_, i) => `| MP-${100 + i} | Keraflex variant ${i} 25 kg | ${10 + i},50 |`)
        .join("\n"),
    expect: (c) => {
      assert.ok(c.length > 1);
      for (const x of c) {
        assert.ok(x.content.startsWith("| SKU | Product | Price |\n|---|---|---|\n"), x.content.slice(0, 40));
        assert.ok(x.content.length <= 512);
      }
      const rows = c.flatMap((x) => x.content.split("\n").slice(2));
      assert.equal(rows.length, 40, "every row exactly once");
    },
  },
  {
    name: "a word longer than a chunk is the only thing cut mid-word",
    md: "x".repeat(1200),
    expect: (c) => {
      assert.ok(c.every((x) => x.content.length <= 512));
      const xs = c.map((x) => x.content.replaceAll("\n", "")).join("").length;
      assert.ok(xs >= 1200, "nothing lost");
    },
  },
  {
    name: "a document of headings alone still makes one chunk",
    md: "# Only a title",
    expect: (c) => assert.deepEqual(c.map((x) => x.content), ["# Only a title"]),
  },
  {
    name: "empty content makes no chunk",
    md: "  \n\n ",
    expect: (c) => assert.equal(c.length, 0),
  },
];

for (const t of cases) Deno.test(`chunking: ${t.name}`, () => t.expect(chunkMarkdown(t.md)));

Deno.test("chunk indexes are dense and offsets point into the source", () => {
  const md = "# H\n\n" + "word ".repeat(400) + "\n\n## Sub\n\nend text";
  const c = chunkMarkdown(md);
  assert.deepEqual(c.map((x) => x.chunk_index), c.map((_, i) => i));
  for (const x of c) assert.ok(x.char_start >= 0 && x.char_end <= md.length && x.char_start <= x.char_end);
});

Deno.test("custom sizes; split helpers respect their bound", () => {
  assert.ok(
    chunkMarkdown("a ".repeat(300), { size: 100, overlap: 10 }).every((x) => x.content.length <= 100),
  );
  assert.ok(splitText("one. two. three. ".repeat(50), 60).every((p) => p.length <= 60));
  assert.deepEqual(splitTable("| a |\n|---|\n| 1 |", 512), ["| a |\n|---|\n| 1 |"]);
  assert.throws(() => chunkMarkdown("x", { size: 5 }), RangeError);
});

Deno.test("the embedding input carries the heading path", () => {
  assert.equal(embeddingInput({ heading: "A > B", content: "text" }), "A > B\n\ntext");
  assert.equal(embeddingInput({ heading: null, content: "text" }), "text");
});

Deno.test("content hash: sha256 hex, sensitive to any change", async () => {
  assert.equal(
    await contentHash("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.notEqual(await contentHash("abc "), await contentHash("abc"));
});
