/**
 * The one scheduled tick (packages/shared/scheduling/tick.ts): sweep before claim, claims run
 * `concurrency` at a time in claim order, a full batch is followed by another claim only while
 * the time budget lasts, and the staleness cutoff every sweep uses.
 */
import assert from "node:assert/strict";
import { runTick, staleBefore, timeBudget } from "@shared/scheduling/tick.ts";

Deno.test("sweep, then claim, then run each claimed item in order; the report counts them", async () => {
  const steps: string[] = [];
  const t = await runTick({
    name: "test",
    now: new Date("2026-03-01T00:00:00Z"),
    sweep: (now) => {
      steps.push(`sweep ${now.toISOString()}`);
      return Promise.resolve(2);
    },
    claim: () => {
      steps.push("claim");
      return Promise.resolve(["a", "b", "c"]);
    },
    run: (x) => {
      steps.push(`run ${x}`);
      return Promise.resolve(x.toUpperCase());
    },
  });
  assert.deepEqual(steps, ["sweep 2026-03-01T00:00:00.000Z", "claim", "run a", "run b", "run c"]);
  assert.equal(t.swept, 2);
  assert.deepEqual(t.claimed, ["a", "b", "c"]);
  assert.deepEqual(t.results, ["A", "B", "C"]);
});

Deno.test("batch: a full claim is followed by another; a short one ends the tick", async () => {
  const batches = [[1, 2], [3, 4], [5]];
  let claims = 0;
  const t = await runTick({
    name: "test",
    now: new Date(),
    claim: () => Promise.resolve(batches[claims++] ?? []),
    run: (n) => Promise.resolve(n * 10),
    batch: 2,
    budgetMs: 60_000,
  });
  assert.equal(claims, 3);
  assert.deepEqual(t.results, [10, 20, 30, 40, 50]);
});

Deno.test("batch: no further claim once the budget is spent; without batch, one claim", async () => {
  let claims = 0;
  const spent = await runTick({
    name: "test",
    now: new Date(),
    claim: () => Promise.resolve([claims++, claims]),
    batch: 2,
    budgetMs: 0,
  });
  assert.equal(claims, 1, "the first claim is always made");
  assert.equal(spent.claimed.length, 2);
  claims = 0;
  await runTick({ name: "test", now: new Date(), claim: () => Promise.resolve([claims++, claims]) });
  assert.equal(claims, 1);
});

Deno.test("concurrency: at most n items in flight, results in claim order", async () => {
  let inFlight = 0;
  let most = 0;
  const t = await runTick({
    name: "test",
    now: new Date(),
    claim: () => Promise.resolve([5, 1, 4, 2, 3]),
    concurrency: 2,
    run: async (ms) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return ms;
    },
  });
  assert.equal(most, 2);
  assert.deepEqual(t.results, [5, 1, 4, 2, 3]);
});

Deno.test("staleBefore and timeBudget", () => {
  assert.equal(staleBefore(new Date("2026-03-01T00:15:00Z"), 15 * 60_000), "2026-03-01T00:00:00.000Z");
  let now = 100;
  const b = timeBudget(50, () => now);
  assert.equal(b.left(), true);
  now = 149;
  assert.equal(b.left(), true);
  now = 150;
  assert.equal(b.left(), false);
  assert.equal(b.elapsedMs(), 50);
});
