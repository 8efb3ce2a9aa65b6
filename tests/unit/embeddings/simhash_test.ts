/**
 * SimHash sketches (packages/shared/embeddings/simhash.ts): format, determinism, the rotation's
 * exactness, and the property the vector index relies on - the Hamming distance of two sketches
 * tracks the angle between the vectors (expected fraction of differing bits: angle / pi), for
 * dense vectors and for the local provider's sparse ones alike.
 */
import assert from "node:assert/strict";
import {
  embeddingSketch,
  signLiterals,
  SKETCH_BITS,
  sketchBits,
} from "../../../packages/shared/embeddings/simhash.ts";
import { cosine, hashEmbed, l2Normalize } from "../../../packages/shared/embeddings/mod.ts";
import { seededRandom } from "../../../fixtures/random.ts";

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

function randomUnit(r: () => number): number[] {
  return l2Normalize(Array.from({ length: SKETCH_BITS }, () => gaussian(r)));
}

/** A unit vector at exactly `cos` to `a` (a plus a random orthogonal direction). */
function atCosine(a: number[], cos: number, r: () => number): number[] {
  const u = randomUnit(r);
  const dot = u.reduce((s, x, i) => s + x * a[i], 0);
  const orth = l2Normalize(u.map((x, i) => x - dot * a[i]));
  const sin = Math.sqrt(1 - cos * cos);
  return a.map((x, i) => cos * x + sin * orth[i]);
}

function hamming(a: Uint8Array, b: Uint8Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i] ^ b[i];
  return d;
}

Deno.test("a sketch is 'x' and 256 hex digits, the same bits as sketchBits, and deterministic", () => {
  const v = randomUnit(seededRandom(1));
  const hex = embeddingSketch(v);
  assert.match(hex, /^x[0-9a-f]{256}$/);
  const bits = sketchBits(v);
  const fromHex = [...hex.slice(1)].flatMap((h) =>
    parseInt(h, 16).toString(2).padStart(4, "0").split("").map(Number)
  );
  assert.deepEqual(fromHex, Array.from(bits));
  assert.equal(embeddingSketch([...v]), hex);
});

Deno.test("the two sign diagonals are fixed 1024-bit strings with both signs", () => {
  const [d1, d2] = signLiterals();
  for (const d of [d1, d2]) {
    assert.equal(d.length, SKETCH_BITS);
    const ones = [...d].filter((c) => c === "1").length;
    assert.ok(ones > 400 && ones < 624, `${ones} flips`);
  }
  assert.notEqual(d1, d2);
});

Deno.test("wrong dimensions are refused", () => {
  for (const n of [0, 768, 1023, 1025, 1536]) {
    assert.throws(() => sketchBits(new Array(n).fill(0.1)), RangeError);
  }
});

Deno.test("sketches are taken at float32: values that store alike sketch alike", () => {
  const v = randomUnit(seededRandom(2));
  const stored = v.map((x) => Math.fround(x));
  const printed = v.map((x) => Number(x.toPrecision(7)));
  assert.equal(embeddingSketch(v), embeddingSketch(stored));
  // toPrecision(7) can move a value by one float32 step: the sketch moves by at most a few bits.
  assert.ok(hamming(sketchBits(v), sketchBits(printed)) <= 4);
});

Deno.test("the rotation spreads a sparse vector: about half the bits are set", () => {
  for (const text of ["Mapei adhesive line 3", "x", "Kerakoll grout 5% off for dealers, valid 2026-03-01"]) {
    const ones = sketchBits(hashEmbed(text)).reduce((s, b) => s + b, 0);
    assert.ok(ones > 380 && ones < 644, `${text}: ${ones} of 1024 bits set`);
  }
  // A zero vector has no direction: no bit is set (the SQL function agrees, see kb_sketch_test).
  assert.equal(sketchBits(new Array(SKETCH_BITS).fill(0)).reduce((s, b) => s + b, 0), 0);
});

Deno.test("Hamming distance tracks the angle (expected angle / pi of the bits)", () => {
  const r = seededRandom(3);
  const table: { cos: number }[] = [
    { cos: 1 },
    { cos: 0.95 },
    { cos: 0.8 },
    { cos: 0.5 },
    { cos: 0 },
    { cos: -0.5 },
    { cos: -1 },
  ];
  for (const { cos } of table) {
    const fractions: number[] = [];
    for (let k = 0; k < 8; k++) {
      const a = randomUnit(r);
      const b = cos === 1 ? a : cos === -1 ? a.map((x) => -x) : atCosine(a, cos, r);
      assert.ok(Math.abs(cosine(a, b) - cos) < 1e-9);
      fractions.push(hamming(sketchBits(a), sketchBits(b)) / SKETCH_BITS);
    }
    const mean = fractions.reduce((s, x) => s + x, 0) / fractions.length;
    const expected = Math.acos(cos) / Math.PI;
    // Binomial spread over 8 x 1024 bits is ~0.006; allow 0.03.
    assert.ok(
      Math.abs(mean - expected) < 0.03,
      `cos ${cos}: mean ${mean.toFixed(3)}, expected ${expected.toFixed(3)}`,
    );
  }
});

Deno.test("sparse local embeddings: nearer texts have nearer sketches", () => {
  const q = hashEmbed("Mapei adhesive line 3");
  const near = hashEmbed("Mapei adhesive line 3 piece 12.50");
  const far = hashEmbed("Sika sealant promotion spring");
  assert.ok(cosine(q, near) > cosine(q, far));
  assert.ok(hamming(sketchBits(q), sketchBits(near)) < hamming(sketchBits(q), sketchBits(far)));
});
