// Factory gate and the description/metadata similarity definitions, table-driven.
import assert from "node:assert/strict";
import fixture from "../../fixtures/duplicates/difflib_cases.json" with { type: "json" };
import {
  canonicalValue,
  descriptionSimilarity,
  descriptionWords,
  extractFactory,
  metadataProperties,
  metadataSimilarity,
  nameSimilarity,
} from "@shared/duplicates/mod.ts";
import { Interner, nameCharacterOverlap, prepareProduct } from "@shared/duplicates/similarity.ts";
import { multisetIntersection } from "@shared/duplicates/sequence_matcher.ts";

Deno.test("factory: first present of factory, manufacturer, factory_group, brand, company", () => {
  const cases: [Record<string, unknown> | null | undefined, string | null][] = [
    [undefined, null],
    [null, null],
    [{}, null],
    [{ color: "grey" }, null],
    [{ factory: "Marazzi" }, "marazzi"],
    [{ factory: "  MARAZZI  " }, "marazzi"],
    [{ manufacturer: "Florim" }, "florim"],
    [{ factory_group: "Gruppo Concorde" }, "gruppo concorde"],
    [{ brand: "Mirage" }, "mirage"],
    [{ company: "Iris Ceramica" }, "iris ceramica"],
    // Precedence follows the spec's order, not the object's key order.
    [{ company: "C", brand: "B", factory_group: "G", manufacturer: "M", factory: "F" }, "f"],
    [{ company: "C", brand: "B" }, "b"],
    [{ brand: "B", manufacturer: "M" }, "m"],
    // Blank or null values are not present: the next key decides.
    [{ factory: "", brand: "Refin" }, "refin"],
    [{ factory: "   ", brand: "Refin" }, "refin"],
    [{ factory: null, brand: "Refin" }, "refin"],
    [{ factory: ["Refin"], company: "Kronos" }, "kronos"],
    [{ factory: { name: "Refin" } }, null],
    [{ factory: 42 }, "42"],
    // Keys are exact: a capitalised key is an ordinary property.
    [{ Factory: "Refin" }, null],
  ];
  for (const [metadata, expected] of cases) {
    assert.equal(extractFactory(metadata), expected, JSON.stringify(metadata));
  }
});

Deno.test("name similarity is difflib ratio of lowercased, trimmed names", () => {
  const named = fixture.cases.filter((c) => c.kind.startsWith("material"));
  assert.ok(named.length > 10);
  for (const c of named.filter((c) => c.a === c.a.trim().toLowerCase() && c.b === c.b.trim().toLowerCase())) {
    assert.equal(nameSimilarity(c.a, c.b), c.ratio, `${c.a} vs ${c.b}`);
  }
  const mixed = fixture.cases.find((c) => c.a === "porcelain tile 60x60 matt grey")!;
  assert.equal(
    nameSimilarity("  Porcelain Tile 60x60 Matt Grey ", "PORCELAIN TILE 60x60 MATTE GRAY"),
    mixed.ratio,
  );
  assert.equal(nameSimilarity("Porcelain Tile 60x60 Matt Grey", "Porcelain Tile 60x60 Matt Grey"), 1);
});

Deno.test("quick_ratio's character overlap: histogram path equals the sorted merge", () => {
  const interner = new Interner();
  for (const c of fixture.cases) {
    const a = prepareProduct({ id: "a", name: c.a }, interner),
      b = prepareProduct({ id: "b", name: c.b }, interner);
    assert.equal(nameCharacterOverlap(a, b), multisetIntersection(a.nameSorted, b.nameSorted), c.a);
    assert.equal(nameCharacterOverlap(b, a), multisetIntersection(a.nameSorted, b.nameSorted), c.a);
    if (c.a === c.a.trim().toLowerCase() && c.b === c.b.trim().toLowerCase()) {
      const total = a.nameSeq.length + b.nameSeq.length;
      assert.equal(total ? (2 * nameCharacterOverlap(a, b)) / total : 1, c.quick_ratio, c.a);
    }
  }
});

Deno.test("description words: lowercase, split on non-letters/digits, unique", () => {
  const cases: [string | null | undefined, string[]][] = [
    [undefined, []],
    [null, []],
    ["", []],
    ["  ...  ", []],
    ["Porcelain TILE porcelain", ["porcelain", "tile"]],
    ["Matt finish, 60x60 format; anti-slip (R10).", [
      "matt",
      "finish",
      "60x60",
      "format",
      "anti",
      "slip",
      "r10",
    ]],
    ["Céramique émaillée\tblanc\nmat", ["céramique", "émaillée", "blanc", "mat"]],
    ["e\u0301tage 10.5mm", ["e\u0301tage", "10", "5mm"]],
    ["瓷砖 灰色", ["瓷砖", "灰色"]],
  ];
  for (const [text, words] of cases) assert.deepEqual([...descriptionWords(text)], words, String(text));
});

Deno.test("description similarity = common unique words / larger unique word count", () => {
  const cases: [string | null | undefined, string | null | undefined, number][] = [
    [undefined, undefined, 0],
    ["", "", 0],
    ["grey tile", "", 0],
    ["", "grey tile", 0],
    ["grey tile", "grey tile", 1],
    ["Grey, TILE!", "grey tile", 1],
    ["grey tile", "white tile", 1 / 2],
    // The larger set is the denominator, whichever side it is on.
    ["grey tile", "grey porcelain tile for floors", 2 / 5],
    ["grey porcelain tile for floors", "grey tile", 2 / 5],
    // Repeats count once on both sides.
    ["tile tile tile grey", "tile grey grey", 1],
    ["oak parquet", "marble slab", 0],
  ];
  for (const [a, b, expected] of cases) {
    assert.equal(descriptionSimilarity(a, b), expected, `${a} | ${b}`);
  }
});

Deno.test("metadata values: strings trimmed and lowercased, everything else structural", () => {
  const same: [unknown, unknown][] = [
    ["Grey", " grey "],
    [60, 60.0],
    [true, true],
    [["Floor", "Wall"], ["floor", " WALL"]],
    [{ w: 60, h: 60, unit: "CM" }, { unit: "cm", h: 60, w: 60 }],
    [{ a: [{ b: "X" }] }, { a: [{ b: "x" }] }],
    [{ a: 1, b: undefined }, { a: 1 }],
  ];
  const different: [unknown, unknown][] = [
    ["60", 60],
    [true, "true"],
    [["floor", "wall"], ["wall", "floor"]],
    [["floor"], "floor"],
    [{ w: 60 }, { w: 60, h: 60 }],
    [{ a: null }, { a: "null" }],
    [1, 2],
  ];
  for (const [x, y] of same) assert.equal(canonicalValue(x), canonicalValue(y), JSON.stringify([x, y]));
  for (const [x, y] of different) {
    assert.notEqual(canonicalValue(x), canonicalValue(y), JSON.stringify([x, y]));
  }
  for (const absent of [null, undefined, "", "   "]) assert.equal(canonicalValue(absent), null);
});

Deno.test("metadata properties exclude factory keys and absent values", () => {
  const props = metadataProperties({
    factory: "Marazzi",
    manufacturer: "x",
    factory_group: "y",
    brand: "z",
    company: "w",
    color: "Grey",
    finish: "",
    size: null,
    thickness_mm: 9,
  });
  assert.deepEqual([...props.keys()], ["color", "thickness_mm"]);
});

Deno.test("metadata similarity = matching properties / union of keys", () => {
  const cases: [
    Record<string, unknown> | null | undefined,
    Record<string, unknown> | null | undefined,
    number,
  ][] = [
    [undefined, undefined, 0],
    [{}, {}, 0],
    [{ factory: "A" }, { factory: "A" }, 0],
    [{ color: "grey" }, { color: "Grey " }, 1],
    [{ color: "grey" }, { color: "white" }, 0],
    [{ color: "grey", finish: "matt" }, { color: "grey", finish: "gloss" }, 1 / 2],
    [{ color: "grey", finish: "matt" }, { color: "grey" }, 1 / 2],
    [{ color: "grey", finish: "matt" }, { color: "grey", size: "60x60" }, 1 / 3],
    // Factory keys never count, even when they differ in wording.
    [{ brand: "A", color: "grey" }, { factory: "a", color: "grey" }, 1],
    // An absent value is no property: it neither matches nor widens the union.
    [{ color: "grey", finish: null }, { color: "grey", finish: "" }, 1],
    [
      { applications: ["floor", "wall"], color: "grey" },
      { applications: ["Floor", "Wall"], color: "gray" },
      1 / 2,
    ],
    [{ thickness_mm: 9 }, { thickness_mm: "9" }, 0],
  ];
  for (const [a, b, expected] of cases) {
    assert.equal(metadataSimilarity(a, b), expected, JSON.stringify([a, b]));
    assert.equal(metadataSimilarity(b, a), expected, JSON.stringify([b, a]));
  }
});
