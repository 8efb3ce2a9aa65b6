/**
 * The collaborative-filtering maths of packages/shared/recommendations/cf.ts on small matrices
 * worked out by hand (closed forms in the comments), table-driven.
 */
import assert from "node:assert/strict";
import {
  cosine,
  exhaustiveItemNeighbourhood,
  exhaustiveUserNeighbourhood,
  itemItemScores,
  type Popularity,
  popularityScores,
  type Preference,
  purchasedOf,
  type Recommendation,
  similarScores,
  userUserScores,
  withFallback,
} from "@shared/recommendations/cf.ts";

/**
 *   |   | m1 | m2 | m3 | m4 |
 *   | A |  5*|  3 |    |    |   (* purchased)
 *   | B |  5*|  3 |  4 |    |
 *   | C |    |  1 |    |  2 |
 *   | D |    |    |    |  5*|
 */
const cell = (user_id: string, material_id: string, r: number, purchased = false): Preference => ({
  user_id,
  material_id,
  r,
  purchased,
});
const M: Preference[] = [
  cell("A", "m1", 5, true),
  cell("A", "m2", 3),
  cell("B", "m1", 5, true),
  cell("B", "m2", 3),
  cell("B", "m3", 4),
  cell("C", "m2", 1),
  cell("C", "m4", 2),
  cell("D", "m4", 5, true),
];
const AB = 34 / Math.sqrt(1700);
const AC = 3 / Math.sqrt(170);
const C12 = 30 / Math.sqrt(950);
const C13 = 20 / (Math.sqrt(50) * 4);
const C23 = 12 / (Math.sqrt(19) * 4);
const C24 = 2 / Math.sqrt(551);

type Row = [string, number, number];
function same(actual: Recommendation[], expected: Row[], algorithm: string) {
  assert.deepEqual(actual.map((r) => r.material_id), expected.map(([m]) => m));
  expected.forEach(([, score, confidence], i) => {
    assert.ok(
      Math.abs(actual[i].score - score) < 1e-12,
      `${actual[i].material_id} score ${actual[i].score} vs ${score}`,
    );
    assert.ok(Math.abs(actual[i].confidence - confidence) < 1e-12, `${actual[i].material_id} confidence`);
    assert.equal(actual[i].algorithm, algorithm);
  });
}

Deno.test("cosine: a.b / (|a| |b|), 0 for an empty vector, clamped to [0, 1]", () => {
  const cases: [number, number, number, number][] = [
    [34, Math.sqrt(34), Math.sqrt(50), AB],
    [3, Math.sqrt(34), Math.sqrt(5), AC],
    [0, 3, 4, 0],
    [5, 0, 4, 0],
    [12, 3, 4, 1],
    [12.000000001, 3, 4, 1], // rounding never lifts a cosine above 1
  ];
  for (const [dot, a, b, want] of cases) {
    assert.ok(Math.abs(cosine(dot, a, b) - want) < 1e-12, `${dot}/${a}/${b}`);
  }
});

Deno.test("neighbourhoods: only users sharing a material, ranked by cosine, top k", () => {
  const n = exhaustiveUserNeighbourhood(M, "A", 50);
  assert.deepEqual(n.neighbours, [["B", 34, Math.sqrt(50)], ["C", 3, Math.sqrt(5)]]);
  assert.deepEqual(exhaustiveUserNeighbourhood(M, "A", 1).neighbours, [["B", 34, Math.sqrt(50)]]);
  assert.deepEqual(exhaustiveUserNeighbourhood(M, "nobody", 50), { mine: [], neighbours: [], rows: [] });
  const items = exhaustiveItemNeighbourhood(M, ["m2"], 50);
  assert.deepEqual(items.sources, [["m2", Math.sqrt(19), 7]]);
  assert.deepEqual(items.neighbours, [
    ["m2", "m1", 30, Math.sqrt(50), 6],
    ["m2", "m3", 12, 4, 3],
    ["m2", "m4", 2, Math.sqrt(29), 1],
  ]);
});

Deno.test("user_user: score = sum sim r / (10 sum sim), confidence = supporting share of sim", () => {
  const mass = AB + AC;
  const cases: { name: string; user: string; includePurchased: boolean; k: number; want: Row[] }[] = [
    {
      name: "A, purchases left out",
      user: "A",
      includePurchased: false,
      k: 50,
      want: [["m3", (4 * AB) / (10 * mass), AB / mass], ["m2", (3 * AB + AC) / (10 * mass), 1], [
        "m4",
        (2 * AC) / (10 * mass),
        AC / mass,
      ]],
    },
    {
      name: "A, purchases included",
      user: "A",
      includePurchased: true,
      k: 50,
      want: [
        ["m1", (5 * AB) / (10 * mass), AB / mass],
        ["m3", (4 * AB) / (10 * mass), AB / mass],
        ["m2", (3 * AB + AC) / (10 * mass), 1],
        ["m4", (2 * AC) / (10 * mass), AC / mass],
      ],
    },
    // k = 1: B alone; every score is B's preference / 10, confidence 1.
    { name: "A, k = 1", user: "A", includePurchased: false, k: 1, want: [["m3", 0.4, 1], ["m2", 0.3, 1]] },
    // D's only neighbour is C (cos = 10 / (5 sqrt 5)); D purchased m4.
    { name: "D", user: "D", includePurchased: false, k: 50, want: [["m2", 0.1, 1]] },
    { name: "a stranger", user: "E", includePurchased: false, k: 50, want: [] },
  ];
  for (const c of cases) {
    const n = exhaustiveUserNeighbourhood(M, c.user, c.k);
    const exclude = c.includePurchased ? new Set<string>() : purchasedOf(n.mine);
    same(userUserScores(n, exclude, 20), c.want, "user_user");
  }
  const n = exhaustiveUserNeighbourhood(M, "A", 50);
  assert.equal(userUserScores(n, purchasedOf(n.mine), 2).length, 2);
});

Deno.test("item_item: score = sum cos(i,j) r_uj / sum r_uj, confidence = supporting share of r_uj", () => {
  const cases: { name: string; user: string; includePurchased: boolean; want: Row[] }[] = [
    {
      name: "A (m1 5 purchased, m2 3; total 8)",
      user: "A",
      includePurchased: false,
      want: [["m3", (5 * C13 + 3 * C23) / 8, 1], ["m2", (5 * C12) / 8, 5 / 8], ["m4", (3 * C24) / 8, 3 / 8]],
    },
    {
      name: "A with purchases",
      user: "A",
      includePurchased: true,
      want: [
        ["m3", (5 * C13 + 3 * C23) / 8, 1],
        ["m2", (5 * C12) / 8, 5 / 8],
        ["m1", (3 * C12) / 8, 3 / 8],
        ["m4", (3 * C24) / 8, 3 / 8],
      ],
    },
    // C: m2 1, m4 2 (total 3). cos(m4, m2) = C24; m1 and m3 only through m2.
    {
      name: "C",
      user: "C",
      includePurchased: false,
      // m1 0.324, m3 0.229, m2 0.057 (via m4, weighted 2), m4 0.028 (via m2, weighted 1).
      want: [
        ["m1", C12 / 3, 1 / 3],
        ["m3", C23 / 3, 1 / 3],
        ["m2", (2 * C24) / 3, 2 / 3],
        ["m4", C24 / 3, 1 / 3],
      ],
    },
  ];
  for (const c of cases) {
    const mine = exhaustiveUserNeighbourhood(M, c.user, 0).mine;
    const n = exhaustiveItemNeighbourhood(M, mine.map(([m]) => m), 50);
    const exclude = c.includePurchased ? new Set<string>() : purchasedOf(mine);
    same(itemItemScores(mine, n, exclude, 20), c.want, "item_item");
  }
});

Deno.test("similar materials: cosine, confidence = co-choosers' share of the source's mass", () => {
  const cases: [string, Row[]][] = [
    ["m2", [["m1", C12, 6 / 7], ["m3", C23, 3 / 7], ["m4", C24, 1 / 7]]],
    ["m1", [["m2", C12, 1], ["m3", C13, 5 / 10]]],
    ["m3", [["m1", C13, 1], ["m2", C23, 1]]],
    ["nothing", []],
  ];
  for (const [source, want] of cases) {
    same(similarScores(source, exhaustiveItemNeighbourhood(M, [source], 50), 10), want, "item_item");
  }
});

Deno.test("popularity: mass / max mass, confidence = users / active users; fills after CF", () => {
  // Masses m1 10, m2 7, m4 7, m3 4 over 4 users.
  const pop: Popularity = {
    max_mass: 10,
    users: 4,
    items: [["m1", 10, 2], ["m4", 7, 2], ["m2", 7, 3], ["m3", 4, 1]],
  };
  same(popularityScores(pop, new Set(), 10), [["m1", 1, 0.5], ["m2", 0.7, 0.75], ["m4", 0.7, 0.5], [
    "m3",
    0.4,
    0.25,
  ]], "popularity");
  same(popularityScores(pop, new Set(["m1"]), 2), [["m2", 0.7, 0.75], ["m4", 0.7, 0.5]], "popularity");
  assert.deepEqual(popularityScores({ max_mass: 0, users: 0, items: [] }, new Set(), 10), []);
  const cf: Recommendation[] = [{ material_id: "m2", score: 0.1, confidence: 1, algorithm: "user_user" }];
  const filled = withFallback(cf, popularityScores(pop, new Set(), 10), 3);
  assert.deepEqual(filled.map((r) => [r.material_id, r.algorithm]), [
    ["m2", "user_user"],
    ["m1", "popularity"],
    ["m4", "popularity"],
  ]);
});

Deno.test("scores and confidences stay in [0, 1] on a random matrix; score <= confidence", () => {
  let s = 7;
  const rnd = () => ((s = (s * 48271) % 2147483647) / 2147483647);
  const m: Preference[] = [];
  for (let u = 0; u < 40; u++) {
    for (let i = 0; i < 30; i++) {
      if (rnd() < 0.2) m.push(cell(`u${u}`, `i${i}`, Math.ceil(rnd() * 10), rnd() < 0.1));
    }
  }
  for (let u = 0; u < 40; u++) {
    const n = exhaustiveUserNeighbourhood(m, `u${u}`, 10);
    const items = exhaustiveItemNeighbourhood(m, n.mine.map(([x]) => x), 10);
    for (
      const r of [...userUserScores(n, new Set(), 100), ...itemItemScores(n.mine, items, new Set(), 100)]
    ) {
      assert.ok(r.score >= 0 && r.score <= 1 && r.confidence >= 0 && r.confidence <= 1);
      assert.ok(r.score <= r.confidence + 1e-12);
    }
  }
});
