// The difflib port against ground truth from CPython (tests/fixtures/duplicates/
// generate_difflib_fixtures.py): exact float equality, not a tolerance, because the endpoints
// must rank and threshold exactly as the Python backend did.
import assert from "node:assert/strict";
import fixture from "../../fixtures/duplicates/difflib_cases.json" with { type: "json" };
import { realQuickRatio, SequenceMatcher } from "@shared/duplicates/mod.ts";
import { PreparedSequence, toCodePoints } from "@shared/duplicates/sequence_matcher.ts";

interface DifflibCase {
  kind: string;
  a: string;
  b: string;
  ratio: number;
  ratio_reversed: number;
  quick_ratio: number;
  real_quick_ratio: number;
  matching_blocks: [number, number, number][];
  longest_match: [number, number, number];
  bpopular_count: number;
  ratio_without_autojunk: number;
}

const cases = fixture.cases as DifflibCase[];
const label = (c: DifflibCase, i: number) =>
  `case ${i} (${c.kind}): ${JSON.stringify(c.a)} vs ${JSON.stringify(c.b)}`;

Deno.test("fixture covers the cases that make the port hard", () => {
  assert.ok(cases.length >= 300);
  // Cases where ignoring autojunk would give a different answer, and asymmetric ratios.
  assert.ok(cases.filter((c) => c.ratio !== c.ratio_without_autojunk).length >= 20);
  assert.ok(cases.filter((c) => c.ratio !== c.ratio_reversed).length >= 20);
  assert.ok(cases.some((c) => [...c.a].length !== c.a.length), "astral code points present");
  assert.ok(cases.some((c) => c.a === "" && c.b === ""));
});

Deno.test("ratio equals difflib's, in both directions", () => {
  cases.forEach((c, i) => {
    assert.equal(new SequenceMatcher(c.a, c.b).ratio(), c.ratio, label(c, i));
    assert.equal(new SequenceMatcher(c.b, c.a).ratio(), c.ratio_reversed, label(c, i));
  });
});

Deno.test("get_matching_blocks and find_longest_match equal difflib's", () => {
  cases.forEach((c, i) => {
    const sm = new SequenceMatcher(c.a, c.b);
    assert.deepEqual(sm.getMatchingBlocks().map((m) => [m.a, m.b, m.size]), c.matching_blocks, label(c, i));
    const m = sm.findLongestMatch();
    assert.deepEqual([m.a, m.b, m.size], c.longest_match, label(c, i));
    assert.equal(sm.bpopular.size, c.bpopular_count, label(c, i));
  });
});

Deno.test("quick_ratio and real_quick_ratio equal difflib's and bound ratio", () => {
  cases.forEach((c, i) => {
    const sm = new SequenceMatcher(c.a, c.b);
    assert.equal(sm.quickRatio(), c.quick_ratio, label(c, i));
    assert.equal(sm.realQuickRatio(), c.real_quick_ratio, label(c, i));
    assert.ok(sm.ratio() <= sm.quickRatio() && sm.quickRatio() <= sm.realQuickRatio(), label(c, i));
  });
});

Deno.test("a prepared second sequence gives the same answers when reused", () => {
  // Reuse is what the batch does; the scratch rows must come back clean after every call.
  const b = "porcelain tile 60x60 matte gray";
  const prepared = new PreparedSequence(b);
  for (const c of cases.filter((c) => c.kind.startsWith("material"))) {
    assert.equal(prepared.ratio(toCodePoints(c.a)), new SequenceMatcher(c.a, b).ratio());
  }
  for (let round = 0; round < 3; round++) {
    for (const c of cases) {
      const p = new PreparedSequence(c.b);
      assert.equal(p.ratio(toCodePoints(c.a)), c.ratio);
      assert.equal(p.ratio(toCodePoints(c.a)), c.ratio);
    }
  }
});

Deno.test("sequences are code points, as Python iterates str", () => {
  assert.deepEqual(Array.from(toCodePoints("a🧱b")), [0x61, 0x1f9f1, 0x62]);
  assert.equal(realQuickRatio(0, 0), 1);
  assert.equal(new SequenceMatcher("🧱", "🧱x").ratio(), 2 / 3);
});
