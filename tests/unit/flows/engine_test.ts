/**
 * The flow engine without the platform: every operator with its coercion, switch and filter
 * semantics, templates (missing paths, nesting, non-string values, prototype keys), graph
 * validation naming the node, the walker's order, skips and joins, the delay cap on a virtual
 * clock, and cron slots across the DST transitions of 2026.
 */
import assert from "node:assert/strict";
import {
  advance,
  compare,
  evaluateGroup,
  type FlowStep,
  nextSlot,
  type Operator,
  resolveTemplates,
  runFlow,
  switchBranch,
  type TemplateScope,
  validateGraph,
  VirtualClock,
} from "@shared/flows/mod.ts";
import { DomainError } from "@shared/errors.ts";

Deno.test("operators, with the documented coercion", () => {
  const cases: [unknown, Operator, unknown, boolean][] = [
    ["10", "equals", 10, true],
    ["1e1", "equals", 10, true],
    ["abc", "equals", "abc", true],
    ["abc", "equals", "ABC", false],
    [true, "equals", "TRUE", true],
    [false, "equals", "true", false],
    [null, "equals", "", true],
    [undefined, "equals", "", true],
    [{ a: 1 }, "equals", '{"a":1}', true],
    ["10", "not_equals", 10, false],
    ["a", "not_equals", "b", true],
    ["hello world", "contains", "lo w", true],
    ["hello", "contains", "H", false],
    [["a", 2, "c"], "contains", "2", true],
    [["a"], "contains", "b", false],
    [undefined, "contains", "", false],
    ["hello", "not_contains", "z", true],
    [["x"], "not_contains", "x", false],
    ["invoice-42", "starts_with", "invoice", true],
    [42, "starts_with", "4", true],
    [undefined, "starts_with", "", false],
    ["report.pdf", "ends_with", ".pdf", true],
    ["report.pdf", "ends_with", ".PDF", false],
    ["10", "gt", "9", true], // numeric, not lexicographic
    [10, "gt", 10, false],
    [10, "gte", "10", true],
    ["2026-03-01", "lt", "2026-03-02T00:00:00Z", true],
    ["abc", "lt", "abd", false], // not numbers, not dates: false
    [null, "lte", 0, false],
    [5, "lte", 5, true],
    [undefined, "is_empty", null, true],
    [null, "is_empty", null, true],
    ["   ", "is_empty", null, true],
    [[], "is_empty", null, true],
    [{}, "is_empty", null, true],
    [0, "is_empty", null, false],
    [false, "is_empty", null, false],
    ["x", "is_not_empty", null, true],
    [[], "is_not_empty", null, false],
  ];
  for (const [a, op, b, want] of cases) {
    assert.equal(compare(a, op, b), want, `${JSON.stringify(a)} ${op} ${JSON.stringify(b)}`);
  }
});

Deno.test("switch: the first matching case, else default", () => {
  const cases = [{ operator: "equals" as const, value: "a" }, { operator: "gt" as const, value: 5 }, {
    operator: "equals" as const,
    value: 9,
  }];
  assert.equal(switchBranch("a", cases), "case_0");
  assert.equal(switchBranch(9, cases), "case_1"); // case_1 matches first, case_2 never reached
  assert.equal(switchBranch(1, cases), "default");
  assert.equal(switchBranch(undefined, cases), "default");
});

Deno.test("filter: AND and OR groups, nested", () => {
  const data: Record<string, unknown> = { a: 1, b: "x", c: null };
  const read = (f: string) => data[f];
  const and = {
    logic: "and" as const,
    conditions: [{ field: "a", operator: "equals" as const, value: 1 }, {
      field: "b",
      operator: "equals" as const,
      value: "y",
    }],
  };
  assert.equal(evaluateGroup(and, read), false);
  assert.equal(evaluateGroup({ ...and, logic: "or" }, read), true);
  const nested = {
    logic: "and" as const,
    conditions: [{ field: "c", operator: "is_empty" as const }, { logic: "or" as const, conditions: [and] }],
  };
  assert.equal(evaluateGroup(nested, read), false);
  assert.equal(
    evaluateGroup({
      logic: "and",
      conditions: [{ field: "c", operator: "is_empty" }, { ...and, logic: "or" }],
    }, read),
    true,
  );
});

const scope = (data: unknown, outputs: Record<string, unknown> = {}): TemplateScope => ({
  trigger: { data },
  outputs: new Map(Object.entries(outputs)),
});

Deno.test("templates: paths, nesting, non-strings, missing, one pass", () => {
  const s = scope({ name: "Ada", n: 3, ok: false, nil: null, items: [{ sku: "A1" }], obj: { k: 1 } }, {
    n1: { id: "r-1", text: "{{trigger.data.name}}" },
  });
  const r = resolveTemplates({
    greeting: "Hi {{trigger.data.name}}, you have {{ trigger.data.n }} items",
    raw: "{{trigger.data.n}}",
    flag: "{{trigger.data.ok}}",
    nested: ["{{trigger.data.items.0.sku}}", { deep: "{{n1.output.id}}" }],
    inline: "obj={{trigger.data.obj}} nil=[{{trigger.data.nil}}]",
    missing: "x {{trigger.data.nope}} {{ghost.output.x}} {{trigger.data.items.5.sku}}",
    once: "{{n1.output.text}}",
  }, s);
  assert.deepEqual(r.value, {
    greeting: "Hi Ada, you have 3 items",
    raw: 3,
    flag: false,
    nested: ["A1", { deep: "r-1" }],
    inline: 'obj={"k":1} nil=[]',
    missing: "x {{trigger.data.nope}} {{ghost.output.x}} {{trigger.data.items.5.sku}}",
    once: "{{trigger.data.name}}", // inserted as text, never expanded again
  });
  assert.deepEqual(r.unresolved, ["trigger.data.nope", "ghost.output.x", "trigger.data.items.5.sku"]);
});

Deno.test("templates: prototype keys and code are never walked or evaluated", () => {
  const s = scope({ a: { b: 1 } });
  for (
    const t of [
      "{{__proto__}}",
      "{{trigger.__proto__}}",
      "{{trigger.data.__proto__}}",
      "{{trigger.data.constructor}}",
      "{{trigger.data.a.constructor.name}}",
      "{{trigger.data.toString}}",
      "{{trigger.data.a.b.toFixed}}",
      "{{trigger.data.prototype}}",
      "{{constructor.constructor('return 1')()}}",
      "{{trigger.data.a['b']}}",
      "{{1+1}}",
      "{{trigger.data..a}}",
    ]
  ) {
    const r = resolveTemplates(t, s);
    assert.equal(r.value, t, t);
    assert.equal(r.unresolved.length, 1, t);
  }
  // An object key named __proto__ in the data does not pollute anything.
  const polluted = JSON.parse('{"__proto__": {"x": 1}, "y": 2}');
  const r = resolveTemplates({ v: "{{trigger.data.y}}" }, scope(polluted));
  assert.deepEqual(r.value, { v: 2 });
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

function bad(graph: unknown, pattern: RegExp, node?: string) {
  assert.throws(() => validateGraph(graph), (err: unknown) => {
    assert.ok(err instanceof DomainError && err.kind === "invalid", String(err));
    assert.match(err.message, pattern);
    if (node) assert.match(err.message, new RegExp(`Node "${node}"`));
    return true;
  });
}

const T = { id: "t", type: "manual" };
Deno.test("validation refuses invalid graphs, naming the node", () => {
  bad({ nodes: [] }, /nodes/);
  bad({ nodes: [{ id: "a", type: "send_sms", config: { to: "+1", content: "x" } }] }, /exactly one trigger/);
  bad({ nodes: [T, { id: "t2", type: "webhook" }] }, /exactly one trigger/, "t2");
  bad(
    { nodes: [T, { id: "x", type: "teleport" }], edges: [{ source: "t", target: "x" }] },
    /unknown node type/,
    "x",
  );
  bad(
    { nodes: [T, { id: "c", type: "if_else", config: { field: "a", operator: "like", value: 1 } }] },
    /operator/,
    "c",
  );
  bad(
    {
      nodes: [T, { id: "c", type: "if_else", config: { field: "a", operator: "equals", value: 1 } }, {
        id: "d",
        type: "delay",
        config: { seconds: 1 },
      }],
      edges: [{ source: "t", target: "c" }, { source: "c", target: "d", sourceHandle: "maybe" }],
    },
    /sourceHandle/,
    "c",
  );
  bad(
    {
      nodes: [T, { id: "s", type: "switch", config: { field: "a", cases: [{ value: 1 }] } }, {
        id: "d",
        type: "delay",
        config: { seconds: 1 },
      }],
      edges: [{ source: "t", target: "s" }, { source: "s", target: "d", sourceHandle: "case_1" }],
    },
    /case_0, default/,
    "s",
  );
  const d = (id: string) => ({ id, type: "delay", config: { seconds: 0 } });
  bad(
    {
      nodes: [T, d("a"), d("b")],
      edges: [{ source: "t", target: "a" }, { source: "a", target: "b" }, { source: "b", target: "a" }],
    },
    /cycle/,
  );
  bad({ nodes: [T, d("a"), d("lonely")], edges: [{ source: "t", target: "a" }] }, /not reachable/, "lonely");
  bad(
    { nodes: [T, d("a")], edges: [{ source: "t", target: "a" }, { source: "a", target: "t" }] },
    /incoming/,
    "t",
  );
  bad({ nodes: [T, d("a"), d("a")], edges: [] }, /duplicate node id/, "a");
  bad({ nodes: [T, { id: "trigger", type: "delay", config: { seconds: 1 } }] }, /reserved/, "trigger");
  bad(
    {
      nodes: [T, { id: "m", type: "send_email", config: { to: "a@b.c", from: "x@y.z", subject: "s" } }],
      edges: [{ source: "t", target: "m" }],
    },
    /html or text/,
    "m",
  );
  bad({ nodes: [{ id: "c", type: "cron", config: {} }] }, /cron/, "c");
});

/** A fake executor recording the order actions ran in. */
function recorder(fail: string[] = []) {
  const order: string[] = [];
  return {
    order,
    execute: (node: { id: string }, config: Record<string, unknown>) => {
      order.push(node.id);
      if (fail.includes(node.id)) return Promise.reject(new Error(`boom in ${node.id}`));
      return Promise.resolve({ id: `${node.id}-out`, config });
    },
  };
}

const act = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "create_notification",
  config: { user_id: "u", title: `${id} {{trigger.data.x}}`, ...extra },
});
const status = (steps: FlowStep[]) => Object.fromEntries(steps.map((s) => [s.node_id, s.status]));

Deno.test("walker: branch not taken is skipped downstream; joins wait for every parent", async () => {
  const graph = {
    nodes: [
      T,
      {
        id: "cond",
        type: "if_else",
        config: { field: "trigger.data.x", operator: "gt", value: "{{trigger.data.limit}}" },
      },
      act("yes"),
      act("no"),
      act("after_no"),
      act("join", { title: "{{yes.output.id}}|{{no.output.id}}" }),
      act("side"),
    ],
    edges: [
      { source: "t", target: "cond" },
      { source: "t", target: "side" },
      { source: "cond", target: "yes", sourceHandle: "true" },
      { source: "cond", target: "no", sourceHandle: "false" },
      { source: "no", target: "after_no" },
      { source: "yes", target: "join" },
      { source: "after_no", target: "join" },
    ],
  };
  const flow = validateGraph(graph);
  const rec = recorder();
  const r = await runFlow(flow, {
    triggerData: { x: 7, limit: "5" },
    execute: rec.execute,
    clock: new VirtualClock(0),
  });
  assert.equal(r.status, "completed");
  assert.deepEqual(r.steps.map((s) => s.node_id), ["t", "cond", "side", "yes", "no", "after_no", "join"]);
  assert.deepEqual(status(r.steps), {
    t: "completed",
    cond: "completed",
    side: "completed",
    yes: "completed",
    no: "skipped",
    after_no: "skipped",
    join: "completed",
  });
  assert.equal(r.steps[1].branch, "true");
  assert.deepEqual(rec.order, ["side", "yes", "join"]);
  const join = r.steps.find((s) => s.node_id === "join")!;
  assert.deepEqual((join.resolved_config as { title: string }).title, "yes-out|{{no.output.id}}");
  assert.deepEqual(join.unresolved, ["no.output.id"]);
  // The other way round.
  const r2 = await runFlow(flow, {
    triggerData: { x: 1, limit: 5 },
    execute: recorder().execute,
    clock: new VirtualClock(0),
  });
  assert.deepEqual(status(r2.steps), {
    ...status(r.steps),
    yes: "skipped",
    no: "completed",
    after_no: "completed",
  });
});

Deno.test("walker: a failed node is recorded, its branch skipped, siblings go on, the run fails", async () => {
  const flow = validateGraph({
    nodes: [T, act("a"), act("b"), act("after_a")],
    edges: [{ source: "t", target: "a" }, { source: "t", target: "b" }, { source: "a", target: "after_a" }],
  });
  const rec = recorder(["a"]);
  const r = await runFlow(flow, { triggerData: {}, execute: rec.execute, clock: new VirtualClock(0) });
  assert.equal(r.status, "failed");
  assert.equal(r.error_node_id, "a");
  assert.match(r.error_message!, /Node "a" failed: boom in a/);
  assert.deepEqual(status(r.steps), { t: "completed", a: "failed", b: "completed", after_a: "skipped" });
});

Deno.test("walker: switch and filter route; delay is capped at 30 s on the clock", async () => {
  const flow = validateGraph({
    nodes: [
      T,
      {
        id: "sw",
        type: "switch",
        config: { field: "{{trigger.data.tier}}", cases: [{ value: "gold" }, { value: "silver" }] },
      },
      act("gold"),
      act("silver"),
      act("other"),
      {
        id: "f",
        type: "filter",
        config: { logic: "or", conditions: [{ field: "trigger.data.n", operator: "gte", value: 10 }] },
      },
      { id: "wait", type: "delay", config: { seconds: 120 } },
      act("late"),
    ],
    edges: [
      { source: "t", target: "sw" },
      { source: "sw", target: "gold", sourceHandle: "case_0" },
      { source: "sw", target: "silver", sourceHandle: "case_1" },
      { source: "sw", target: "other", sourceHandle: "default" },
      { source: "t", target: "f" },
      { source: "f", target: "wait" },
      { source: "wait", target: "late" },
    ],
  });
  const clock = new VirtualClock(1_000_000);
  const r = await runFlow(flow, {
    triggerData: { tier: "silver", n: 12 },
    execute: recorder().execute,
    clock,
  });
  assert.deepEqual(status(r.steps), {
    t: "completed",
    sw: "completed",
    f: "completed",
    gold: "skipped",
    silver: "completed",
    other: "skipped",
    wait: "completed",
    late: "completed",
  });
  const wait = r.steps.find((s) => s.node_id === "wait")!;
  assert.deepEqual(wait.output, { delayed_seconds: 30, capped: true, slept: true });
  assert.equal(clock.now(), 1_000_000 + 30_000);
  const r2 = await runFlow(flow, {
    triggerData: { tier: "x", n: 2 },
    execute: recorder().execute,
    clock,
    dryRun: true,
  });
  assert.deepEqual(status(r2.steps).other, "completed");
  assert.deepEqual(status(r2.steps).wait, "skipped");
  assert.equal(clock.now(), 1_000_000 + 30_000);
});

Deno.test("cron slots are wall-clock in the timezone across the DST transitions of 2026", () => {
  const iso = (d: Date) => d.toISOString();
  // Europe/Berlin springs forward 2026-03-29 02:00 -> 03:00 (CET -> CEST).
  assert.equal(
    iso(nextSlot("0 9 * * *", "Europe/Berlin", new Date("2026-03-28T09:00:00Z"))),
    "2026-03-29T07:00:00.000Z",
  );
  assert.equal(
    iso(nextSlot("0 9 * * *", "Europe/Berlin", new Date("2026-03-27T09:00:00Z"))),
    "2026-03-28T08:00:00.000Z",
  );
  // 02:30 does not exist on 2026-03-29 in Berlin: not invented at a shifted time that day twice.
  const gap = nextSlot("30 2 * * *", "Europe/Berlin", new Date("2026-03-28T12:00:00Z"));
  assert.ok(gap >= new Date("2026-03-29T00:00:00Z"));
  assert.notEqual(iso(gap), "2026-03-29T00:30:00.000Z");
  // Falls back 2026-10-25 03:00 -> 02:00: 09:00 stays 09:00 local (08:00 UTC after).
  assert.equal(
    iso(nextSlot("0 9 * * *", "Europe/Berlin", new Date("2026-10-24T08:00:00Z"))),
    "2026-10-25T08:00:00.000Z",
  );
  // America/New_York: 2026-03-08 and 2026-11-01.
  assert.equal(
    iso(nextSlot("0 9 * * *", "America/New_York", new Date("2026-03-07T15:00:00Z"))),
    "2026-03-08T13:00:00.000Z",
  );
  assert.equal(
    iso(nextSlot("0 9 * * *", "America/New_York", new Date("2026-10-31T14:00:00Z"))),
    "2026-11-01T14:00:00.000Z",
  );
  // The repeated hour fires once: 01:30 on 2026-11-01 in New York.
  const first = nextSlot("30 1 * * *", "America/New_York", new Date("2026-11-01T04:00:00Z"));
  const second = nextSlot("30 1 * * *", "America/New_York", first);
  assert.ok(second.getTime() - first.getTime() >= 23 * 3600_000, `${iso(first)} then ${iso(second)}`);
  // advance() skips missed slots: one run, then the next future slot.
  assert.equal(
    iso(advance("*/5 * * * *", "UTC", new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T01:02:00Z"))),
    "2026-01-01T01:05:00.000Z",
  );
  assert.throws(() => nextSlot("0 9 * * *", "Mars/Olympus", new Date()), /Unknown timezone/);
  assert.throws(() => nextSlot("61 * * * *", "UTC", new Date()), /Invalid cron/);
  assert.throws(() => nextSlot("* * * * * *", "UTC", new Date()), /five fields/);
});

Deno.test("walker: delays count against the run deadline", async () => {
  const delays = ["d1", "d2", "d3", "d4", "d5"].map((id) => ({ id, type: "delay", config: { seconds: 30 } }));
  const flow = validateGraph({
    nodes: [T, ...delays, act("end")],
    edges: [["t", "d1"], ["d1", "d2"], ["d2", "d3"], ["d3", "d4"], ["d4", "d5"], ["d5", "end"]].map((
      [source, target],
    ) => ({
      source,
      target,
    })),
  });
  const clock = new VirtualClock(0);
  const r = await runFlow(flow, { triggerData: {}, execute: recorder().execute, clock });
  assert.equal(r.status, "failed");
  assert.equal(r.error_node_id, "d5");
  assert.match(r.error_message!, /120 s deadline/);
  assert.deepEqual(status(r.steps), {
    t: "completed",
    d1: "completed",
    d2: "completed",
    d3: "completed",
    d4: "completed",
    d5: "failed",
    end: "skipped",
  });
  assert.equal(clock.now(), 120_000);
});
