/**
 * The flow engine: `deno run -A bench/flows.ts [--runs 2000] [--http 200] [--due 1000]`.
 *
 * - engine: a 10-node flow (manual trigger, if_else, switch, filter, delay, five actions, a
 *   join) run in dry run by the walker in-process, --runs times: executions per second and
 *   per-run latency (templates resolved, conditions evaluated, nothing sent);
 * - test-flow over HTTP: the same flow through flow-engine `test-flow` with a user JWT, --http
 *   requests one after the other (auth, load, walk, a flow_runs row opened and closed);
 * - scheduler claim: --due enabled cron flows all due, then one flow_claim_due call through
 *   PostgREST as the service role (the single INSERT ... SELECT ... ON CONFLICT statement), and a
 *   second call, which must claim nothing.
 */
import { parseArgs } from "node:util";
import { dryRunExecutor, runFlow, validateGraph, VirtualClock } from "@shared/flows/mod.ts";
import { percentile } from "./lib.ts";
import { createUser, createWorkspace, serviceClient, startEphemeralPlatform } from "../fixtures/platform.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "2000" },
    http: { type: "string", default: "200" },
    due: { type: "string", default: "1000" },
  },
});

const act = (id: string, type: string, config: Record<string, unknown>) => ({ id, type, config });
const graph = {
  nodes: [
    { id: "start", type: "manual" },
    act("gate", "if_else", { field: "{{trigger.data.total}}", operator: "gte", value: 100 }),
    act("tier", "switch", { field: "trigger.data.tier", cases: [{ value: "gold" }, { value: "silver" }] }),
    act("f", "filter", {
      logic: "and",
      conditions: [{ field: "trigger.data.email", operator: "contains", value: "@" }, {
        logic: "or",
        conditions: [{ field: "trigger.data.country", operator: "equals", value: "DE" }],
      }],
    }),
    act("wait", "delay", { seconds: 5 }),
    act("sms", "send_sms", {
      to: "{{trigger.data.phone}}",
      content: "Hi {{trigger.data.name}}, {{trigger.data.total}}",
    }),
    act("mail", "send_email", {
      to: "{{trigger.data.email}}",
      from: "shop@example.com",
      subject: "Order {{trigger.data.order}}",
      html: "<p>{{sms.output.message_id}}</p>",
    }),
    act("gold", "create_notification", {
      user_id: "{{trigger.data.user}}",
      title: "Gold {{trigger.data.order}}",
    }),
    act("hook", "http_request", {
      method: "POST",
      url: "https://api.example.com/orders",
      body: { o: "{{trigger.data.order}}" },
    }),
    act("join", "create_notification", { user_id: "{{trigger.data.user}}", title: "{{mail.output.log_id}}" }),
  ],
  edges: [
    { source: "start", target: "gate" },
    { source: "start", target: "tier" },
    { source: "gate", target: "f", sourceHandle: "true" },
    { source: "f", target: "wait" },
    { source: "wait", target: "sms" },
    { source: "sms", target: "mail" },
    { source: "tier", target: "gold", sourceHandle: "case_0" },
    { source: "tier", target: "hook", sourceHandle: "default" },
    { source: "mail", target: "join" },
    { source: "gold", target: "join" },
  ],
};
const triggerData = {
  total: 250,
  tier: "gold",
  email: "ada@example.org",
  country: "DE",
  phone: "+15550001111",
  name: "Ada",
  order: "A-1",
  user: crypto.randomUUID(),
};

// 1. The walker alone.
const flow = validateGraph(graph);
const runs = Number(values.runs);
const clock = new VirtualClock(0);
for (let i = 0; i < 100; i++) {
  await runFlow(flow, { triggerData, execute: dryRunExecutor, clock, dryRun: true });
}
const lat: number[] = [];
const t0 = performance.now();
for (let i = 0; i < runs; i++) {
  const s = performance.now();
  const r = await runFlow(flow, { triggerData, execute: dryRunExecutor, clock, dryRun: true });
  if (r.status !== "completed" || r.steps.length !== 10) throw new Error("unexpected run");
  lat.push(performance.now() - s);
}
const elapsed = performance.now() - t0;
lat.sort((a, b) => a - b);
console.log(
  `engine dry run, 10 nodes: ${runs} runs in ${elapsed.toFixed(0)} ms = ${
    (runs / elapsed * 1000).toFixed(0)
  } runs/s; ` +
    `p50 ${percentile(lat, 50).toFixed(3)} ms, p99 ${percentile(lat, 99).toFixed(3)} ms`,
);

const platform = await startEphemeralPlatform();
try {
  const owner = await createUser(platform, "bench-flows");
  const ws = await createWorkspace(platform, owner.id);
  const fn = `${platform.url}/functions/v1/flow-engine`;
  const headers = {
    apikey: platform.config.anonKey,
    authorization: `Bearer ${owner.accessToken}`,
    "content-type": "application/json",
  };
  const saved = await fetch(fn, {
    method: "POST",
    headers,
    body: JSON.stringify({ action: "save-flow", name: "Bench", graph, workspace_id: ws }),
  }).then((r) => r.json());
  const flowId = saved.flow.id;

  // 2. test-flow over HTTP.
  const n = Number(values.http);
  const httpLat: number[] = [];
  const h0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    const r = await fetch(fn, {
      method: "POST",
      headers,
      body: JSON.stringify({ action: "test-flow", flow_id: flowId, trigger_data: triggerData }),
    });
    const body = await r.json();
    if (r.status !== 200 || body.status !== "completed") {
      throw new Error(`test-flow: ${JSON.stringify(body)}`);
    }
    httpLat.push(performance.now() - s);
  }
  const hElapsed = performance.now() - h0;
  httpLat.sort((a, b) => a - b);
  console.log(
    `test-flow over HTTP: ${n} requests in ${hElapsed.toFixed(0)} ms = ${
      (n / hElapsed * 1000).toFixed(1)
    } runs/s; ` +
      `p50 ${percentile(httpLat, 50).toFixed(1)} ms, p99 ${percentile(httpLat, 99).toFixed(1)} ms`,
  );

  // 3. The scheduler's claim with --due due flows.
  const due = Number(values.due);
  await platform.db.query(
    `insert into public.flows (workspace_id, name, graph, trigger_type, trigger_config, enabled, next_run_at)
     select $1, 'cron ' || g, '{"nodes":[{"id":"t","type":"cron","config":{"cron":"* * * * *"}}],"edges":[]}'::jsonb,
            'cron', '{"cron":"* * * * *","timezone":"UTC"}'::jsonb, true, now() - interval '1 minute'
       from generate_series(1, $2) g`,
    [ws, due],
  );
  const service = serviceClient(platform);
  const c0 = performance.now();
  const first = await service.rpc("flow_claim_due", { p_limit: due });
  const claimMs = performance.now() - c0;
  if (first.error) throw new Error(first.error.message);
  const c1 = performance.now();
  const second = await service.rpc("flow_claim_due", { p_limit: due });
  const again = performance.now() - c1;
  console.log(
    `scheduler claim: ${first.data.length} of ${due} due flows claimed in ${claimMs.toFixed(1)} ms ` +
      `(${(claimMs / due * 1000).toFixed(0)} us per flow); claiming the same slots again took ${
        again.toFixed(1)
      } ms ` +
      `and claimed ${second.data?.length}`,
  );
} finally {
  await platform.stop();
}
