/**
 * background-agent-runner over HTTP as a frontend calls it: the catalog; runs of real agents
 * (stale price documents, quote follow-up) with their output, notifications and ordered logs;
 * who may run what (viewer 403, outsider 404, anon 401, reserved triggers 403); resuming a
 * queued pending run by run_id (once); failures recorded with their step; the LLM description
 * writer's credits (debited first, refunded exactly on failure, 402-style failure when short);
 * chains (parent_run_id, triggered_by chain, no cycles); and the duplicate scan delegated to the
 * AI backend (processing -> completed), whose chain comes back through the runner; the
 * migration's pg_cron job (through pg_net and Vault, as in production) arming a schedule and
 * running a due agent once per slot; and a member's supabase-js channel seeing a run's
 * agent_run_logs inserts in order while an outsider's sees none of them.
 */
import assert from "node:assert/strict";
import { pauseCronJobsInModule, platformTest } from "../helpers/platform.ts";
import { call } from "../quotes/helpers.ts";
import {
  agentTeam,
  balance,
  createAgent,
  cronTick,
  grant,
  type Json,
  logsOf,
  runAgent,
  runRow,
  seedPriceDocs,
  seedProduct,
  seedQuoteRequest,
  signedIn,
  subscribe,
  vaultSecrets,
  waitFor,
} from "./helpers.ts";

// This module drives background-agents-cron by hand: the real per-minute tick must not claim its work.
pauseCronJobsInModule("background-agents-cron", "agent-run-worker");

platformTest("catalog: the agent types with input schemas, in step with the SQL check", async (p) => {
  const t = await agentTeam(p, "ag-cat", 0);
  const r = await call(p, "background-agent-runner", "?catalog=1", { token: t.viewer.accessToken });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const catalog = r.body.catalog as Json[];
  const ids = catalog.map((k) => k.id).sort();
  assert.deepEqual(ids, [
    "catalog_description_writer",
    "duplicate_scan",
    "quote_follow_up",
    "stale_price_documents",
  ]);
  for (const k of catalog) {
    assert.equal(typeof k.name, "string");
    assert.equal(typeof k.description, "string");
    assert.equal(k.input_schema.type, "object");
    assert.equal(typeof k.delegated, "boolean");
  }
  assert.equal(catalog.find((k) => k.id === "duplicate_scan").delegated, true);
  assert.equal(
    catalog.find((k) => k.id === "stale_price_documents").input_schema.properties.max_age_days.default,
    90,
  );
  assert.deepEqual(catalog.find((k) => k.id === "catalog_description_writer").cost, {
    credits_per_unit: 2,
    unit: "product described",
  });
  const def = await p.db.query<{ def: string }>(
    `select pg_get_constraintdef(c.oid) as def from pg_constraint c
      where c.conrelid = 'public.background_agents'::regclass and pg_get_constraintdef(c.oid) like '%agent_type%'`,
  );
  const sqlIds = [...def.rows[0].def.matchAll(/'([a-z_]+)'::text/g)].map((m) => m[1]).sort();
  assert.deepEqual(sqlIds, ids);
  assert.equal((await call(p, "background-agent-runner", "?catalog=1", { token: null })).status, 401);
  assert.equal((await call(p, "background-agent-runner", "", { token: t.viewer.accessToken })).status, 400);
});

platformTest("run: stale price documents found, managers notified, logs in order; who may run", async (p) => {
  const t = await agentTeam(p, "ag-run", 0);
  const [old, fresh] = await seedPriceDocs(p, t.ws, [200, 10]);
  const agent = await createAgent(t.admin, {
    workspace_id: t.ws,
    agent_type: "stale_price_documents",
    name: "Price freshness",
    config: { max_age_days: 90 },
  });
  // A member may not create agents (owners and admins configure them).
  const denied = await t.member.client.from("background_agents").insert({
    workspace_id: t.ws,
    agent_type: "quote_follow_up",
    name: "x",
  });
  assert.ok(denied.error, "member insert refused");

  const r = await runAgent(p, t.member.accessToken, { agent_id: agent.id, input_data: {} });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true);
  assert.equal(r.body.status, "completed");
  assert.equal(typeof r.body.duration_ms, "number");
  const output = r.body.output as Json;
  assert.deepEqual(output.stale_documents.map((d: Json) => d.id), [old]);
  assert.ok(!output.stale_documents.some((d: Json) => d.id === fresh));
  assert.ok(output.stale_documents[0].age_days >= 199);
  assert.equal(output.notified_users, 2);
  const notes = await p.db.query<{ user_id: string; data: Json }>(
    `select user_id, data from public.notifications where workspace_id = $1 and type = 'stale_price_documents'`,
    [t.ws],
  );
  assert.deepEqual(notes.rows.map((n) => n.user_id).sort(), [t.owner.id, t.admin.id].sort());
  assert.deepEqual(notes.rows[0].data.document_ids, [old]);

  const run = await runRow(p, r.body.run_id as string);
  assert.equal(run.status, "completed");
  assert.equal(run.triggered_by, "manual");
  assert.equal(run.triggered_by_user, t.member.id);
  assert.ok(run.completed_at && run.started_at);
  // Logs: 1..n in order, as the member reads them over /rest/v1.
  const logs = await t.member.client.from("agent_run_logs").select("seq, level, step, message")
    .eq("run_id", run.id).order("seq");
  assert.equal(logs.error, null);
  const rows = logs.data as Json[];
  assert.deepEqual(rows.map((l) => l.seq), rows.map((_, i) => i + 1));
  assert.deepEqual(rows.map((l) => l.step), [null, "find_stale_documents", "notify", null]);
  assert.match(rows[0].message, /Run started \(manual\)/);
  assert.equal(rows.at(-1).message, "Run completed");

  // Who may run it.
  const viewer = await runAgent(p, t.viewer.accessToken, { agent_id: agent.id });
  assert.equal(viewer.status, 403, JSON.stringify(viewer.body));
  const outsider = await runAgent(p, t.outsider.accessToken, { agent_id: agent.id });
  assert.equal(outsider.status, 404, JSON.stringify(outsider.body));
  assert.equal((await runAgent(p, null, { agent_id: agent.id })).status, 401);
  const cron = await runAgent(p, t.member.accessToken, { agent_id: agent.id, triggered_by: "cron" });
  assert.equal(cron.status, 403, JSON.stringify(cron.body));
  const bad = await runAgent(p, t.member.accessToken, {
    agent_id: agent.id,
    input_data: { max_age_days: 0 },
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error as string, /max_age_days/);
  assert.equal((await runAgent(p, t.member.accessToken, { agent_id: "nope" })).status, 400);
  // The outsider reads nothing of it and cannot queue runs of it.
  for (const table of ["background_agents", "agent_runs", "agent_run_logs"]) {
    const seen = await t.outsider.client.from(table).select("id").eq("workspace_id", t.ws);
    assert.deepEqual(seen.data, [], table);
  }
  const queued = await t.outsider.client.from("agent_runs").insert({ agent_id: agent.id });
  assert.ok(queued.error, "outsider cannot queue a run");
  // The service role runs it too (triggered_by api by default).
  const svc = await runAgent(p, p.config.serviceRoleKey, { agent_id: agent.id });
  assert.equal(svc.body.status, "completed");
  assert.equal((await runRow(p, svc.body.run_id as string)).triggered_by, "api");
  // A disabled agent does not run.
  await t.admin.client.from("background_agents").update({ enabled: false }).eq("id", agent.id);
  const off = await runAgent(p, t.member.accessToken, { agent_id: agent.id });
  assert.equal(off.status, 409);
  assert.equal(off.body.code, "agent_disabled");
});

platformTest(
  "resume: a queued pending run starts by run_id, once; a bad input fails at its step",
  async (p) => {
    const t = await agentTeam(p, "ag-resume", 0);
    const late = await seedQuoteRequest(p, t.ws, t.member.id, 5);
    await seedQuoteRequest(p, t.ws, t.member.id, 0);
    await seedQuoteRequest(p, t.ws, t.member.id, 9, "approved");
    const agent = await createAgent(t.owner, {
      workspace_id: t.ws,
      agent_type: "quote_follow_up",
      name: "Follow-ups",
    });
    const q = await t.member.client.from("agent_runs").insert({
      agent_id: agent.id,
      input_data: { pending_days: 2 },
      // The trigger forces these for users: pending, their own id.
      status: "completed",
    } as Json).select("id, status, workspace_id, triggered_by_user").single();
    assert.ok(q.error, "status is not a column users may write");
    const queued = await t.member.client.from("agent_runs").insert({
      agent_id: agent.id,
      input_data: { pending_days: 2 },
    })
      .select("id, status, workspace_id, triggered_by_user, triggered_by").single();
    assert.equal(queued.error, null, JSON.stringify(queued.error));
    assert.deepEqual(
      { ...queued.data, id: undefined },
      {
        id: undefined,
        status: "pending",
        workspace_id: t.ws,
        triggered_by_user: t.member.id,
        triggered_by: "manual",
      },
    );
    const runId = queued.data!.id as string;

    const withInput = await runAgent(p, t.member.accessToken, {
      agent_id: agent.id,
      run_id: runId,
      input_data: {},
    });
    assert.equal(withInput.status, 400);
    const r = await runAgent(p, t.admin.accessToken, { agent_id: agent.id, run_id: runId });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.run_id, runId);
    assert.equal(r.body.status, "completed");
    assert.deepEqual((r.body.output as Json).pending_requests.map((x: Json) => x.id), [late]);
    assert.equal((r.body.output as Json).pending_days, 2);
    const again = await runAgent(p, t.admin.accessToken, { agent_id: agent.id, run_id: runId });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "run_not_pending");
    // A run id of another agent, or unknown, is not found for this agent.
    const other = await createAgent(t.owner, {
      workspace_id: t.ws,
      agent_type: "stale_price_documents",
      name: "o",
    });
    assert.equal((await runAgent(p, t.admin.accessToken, { agent_id: other.id, run_id: runId })).status, 404);
    assert.equal(
      (await runAgent(p, t.admin.accessToken, { agent_id: agent.id, run_id: crypto.randomUUID() })).status,
      404,
    );

    // A queued run whose input the type refuses fails at validate_input, with the reason.
    const badQ = await t.member.client.from("agent_runs").insert({
      agent_id: agent.id,
      input_data: { pending_days: "x" },
    })
      .select("id").single();
    const bad = await runAgent(p, t.member.accessToken, { agent_id: agent.id, run_id: badQ.data!.id });
    assert.equal(bad.status, 200);
    assert.equal(bad.body.success, false);
    assert.equal(bad.body.status, "failed");
    assert.equal(bad.body.failed_step, "validate_input");
    assert.match(bad.body.error as string, /pending_days/);
    const row = await runRow(p, badQ.data!.id);
    assert.equal(row.status, "failed");
    assert.equal(row.failed_step, "validate_input");
    assert.match(row.error, /pending_days/);
    const logs = await logsOf(p, badQ.data!.id);
    assert.equal(logs.at(-1).level, "error");
    assert.equal(logs.at(-1).step, "validate_input");
  },
);

platformTest(
  "LLM description writer: credits debited first, refunded exactly on failure, short balance",
  async (p) => {
    const t = await agentTeam(p, "ag-llm", 0);
    await grant(p, t.member.id, 10.5);
    const llm = p.sandbox!.get("anthropic");
    llm.reset();
    const a = await seedProduct(p, t.ws, { name: "Oak plank", sku: "OAK-1", metadata: { finish: "oiled" } });
    const b = await seedProduct(p, t.ws, { name: "Slate tile", description: "" });
    await seedProduct(p, t.ws, { name: "Described", description: "Already there" });
    const agent = await createAgent(t.admin, {
      workspace_id: t.ws,
      agent_type: "catalog_description_writer",
      name: "Writer",
    });

    // The model fails on the second product (after one retry): the run fails at generate, the 4
    // credits come back, no product is half-described.
    const described = (description: string) => ({
      toolUse: [{ name: "write_description", input: { description } }],
    });
    llm.reply({ ...described("A warm oak plank."), beforeReply: () => void llm.failNext(500, { times: 2 }) });
    const failed = await runAgent(p, t.member.accessToken, { agent_id: agent.id });
    assert.equal(failed.status, 200, JSON.stringify(failed.body));
    assert.equal(failed.body.success, false);
    assert.equal(failed.body.failed_step, "generate");
    assert.equal(failed.body.error_code, "model_unavailable");
    assert.equal(await balance(p, t.member.id), 10.5);
    const fr = await runRow(p, failed.body.run_id as string);
    assert.equal(Number(fr.credits_charged), 4);
    assert.equal(fr.credits_refunded, true);
    const ledger = await p.db.query<{ amount: string; kind: string }>(
      `select amount, kind from public.credit_transactions where reference_id = $1 order by created_at, kind`,
      [fr.id],
    );
    assert.deepEqual(ledger.rows.map((x) => [x.kind, Number(x.amount)]), [["debit", -4], ["refund", 4]]);
    const still = await p.db.query(
      `select id from public.products where id = any($1) and coalesce(description, '') = ''`,
      [[
        a,
        b,
      ]],
    );
    assert.equal(still.rows.length, 2);
    assert.equal(llm.pendingFaults, 0);

    // Success: 2 credits per product, descriptions saved, the model given the product's facts.
    llm.reset();
    llm.reply(described("A warm oak plank, oiled."), described("A dark slate tile."));
    const ok = await runAgent(p, t.member.accessToken, { agent_id: agent.id });
    assert.equal(ok.body.status, "completed", JSON.stringify(ok.body));
    assert.equal((ok.body.output as Json).products_described, 2);
    assert.equal((ok.body.output as Json).credits_charged, 4);
    assert.equal(await balance(p, t.member.id), 6.5);
    const saved = await p.db.query<{ id: string; description: string }>(
      `select id, description from public.products where id = any($1) order by name`,
      [[a, b]],
    );
    assert.deepEqual(saved.rows.map((r) => r.description), [
      "A warm oak plank, oiled.",
      "A dark slate tile.",
    ]);
    const sent = llm.captures.requests().filter((c) => c.path === "/v1/messages").map((c) =>
      JSON.stringify(c.body)
    );
    assert.equal(sent.length, 2);
    assert.ok(sent[0].includes("Oak plank") && sent[0].includes("OAK-1") && sent[0].includes("oiled"));

    // Short balance: nothing is debited, the model is not called, the run says why.
    await seedProduct(p, t.ws, { name: "Brick" });
    llm.reset();
    const poor = await runAgent(p, t.owner.accessToken, { agent_id: agent.id });
    assert.equal(poor.body.status, "failed", JSON.stringify(poor.body));
    assert.equal(poor.body.failed_step, "charge");
    assert.equal(poor.body.error_code, "insufficient_credits");
    assert.equal(await balance(p, t.owner.id), 0);
    assert.equal(llm.captures.requests().length, 0);
  },
);

platformTest("chain: a completed run triggers chain_to with parent_run_id; cycles refused", async (p) => {
  const t = await agentTeam(p, "ag-chain", 0);
  await seedQuoteRequest(p, t.ws, t.member.id, 10);
  const follow = await createAgent(t.admin, { workspace_id: t.ws, agent_type: "quote_follow_up", name: "B" });
  const head = await createAgent(t.admin, {
    workspace_id: t.ws,
    agent_type: "stale_price_documents",
    name: "A",
    chain_to: [follow.id],
  });
  // Cycles and foreign agents are refused when configured.
  const cycle = await t.admin.client.from("background_agents").update({ chain_to: [head.id] }).eq(
    "id",
    follow.id,
  );
  assert.ok(cycle.error, "cycle refused");
  const self = await t.admin.client.from("background_agents").update({ chain_to: [head.id] }).eq(
    "id",
    head.id,
  );
  assert.ok(self.error, "self refused");
  const foreignAgent = await createAgent(t.outsider, {
    workspace_id: t.otherWs,
    agent_type: "quote_follow_up",
    name: "F",
  });
  const foreign = await t.admin.client.from("background_agents").update({ chain_to: [foreignAgent.id] })
    .eq("id", follow.id);
  assert.ok(foreign.error, "foreign agent refused");

  const r = await runAgent(p, t.member.accessToken, { agent_id: head.id });
  assert.equal(r.body.status, "completed", JSON.stringify(r.body));
  const chained = r.body.chained_run_ids as string[];
  assert.equal(chained.length, 1);
  const child = await waitFor("the chained run", async () => {
    const row = await runRow(p, chained[0]);
    return row.status === "completed" ? row : null;
  });
  assert.equal(child.agent_id, follow.id);
  assert.equal(child.parent_run_id, r.body.run_id);
  assert.equal(child.triggered_by, "chain");
  assert.equal(child.chain_depth, 1);
  assert.equal(child.output.pending_requests.length, 1);
  const parentLogs = await logsOf(p, r.body.run_id as string);
  assert.ok(parentLogs.some((l) => l.step === "chain" && /Triggered 1 chained run/.test(l.message)));
});

platformTest("delegated: the duplicate scan runs on the AI backend and its chain comes back", async (p) => {
  const t = await agentTeam(p, "ag-dup", 0);
  const meta = { factory: "Acme", thickness: "20mm" };
  const one = await seedProduct(p, t.ws, {
    name: "Oak Floor Plank Natural",
    description: "Solid oak",
    metadata: meta,
  });
  const two = await seedProduct(p, t.ws, {
    name: "Oak Floor Plank Natural",
    description: "Solid oak",
    metadata: meta,
  });
  await seedProduct(p, t.ws, { name: "Granite Kitchen Worktop", metadata: { factory: "Stone AG" } });
  await seedQuoteRequest(p, t.ws, t.member.id, 4);
  const follow = await createAgent(t.admin, {
    workspace_id: t.ws,
    agent_type: "quote_follow_up",
    name: "after",
  });
  const scan = await createAgent(t.admin, {
    workspace_id: t.ws,
    agent_type: "duplicate_scan",
    name: "Duplicates",
    chain_to: [follow.id],
  });
  const r = await runAgent(p, t.member.accessToken, { agent_id: scan.id });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), [
    "delegated_to_python",
    "duration_ms",
    "run_id",
    "status",
    "success",
  ]);
  assert.equal(r.body.status, "processing");
  assert.equal(r.body.delegated_to_python, true);
  const done = await waitFor("the delegated run", async () => {
    const row = await runRow(p, r.body.run_id as string);
    return row.status === "completed" || row.status === "failed" ? row : null;
  }, 15_000);
  assert.equal(done.status, "completed", done.error);
  assert.equal(done.output.duplicates_found, 1);
  assert.deepEqual([done.output.pairs[0].product_id_1, done.output.pairs[0].product_id_2], [one, two].sort());
  const cache = await p.db.query(
    `select status from public.duplicate_detection_cache where workspace_id = $1`,
    [t.ws],
  );
  assert.deepEqual(cache.rows, [{ status: "pending" }]);
  const child = await waitFor("the chained run from the backend", async () => {
    const row = (await p.db.query(`select * from public.agent_runs where parent_run_id = $1`, [done.id]))
      .rows[0] as Json;
    return row?.status === "completed" ? row : null;
  }, 15_000);
  assert.equal(child.agent_id, follow.id);
  assert.equal(child.triggered_by, "chain");
  const steps = (await logsOf(p, done.id)).map((l) => l.step);
  assert.deepEqual(steps, ["delegate", null, "load_catalogue", "detect", "store", "notify", null, "chain"]);
  // Only the runner hands runs to the backend.
  const direct = await fetch(`${p.env.AI_BACKEND_URL}/api/agent-runs/${done.id}/execute`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.owner.accessToken}` },
  });
  assert.equal(direct.status, 403);
  await direct.body?.cancel();
});

platformTest("cron: the pg_cron job arms a schedule, then runs a due agent once per slot", async (p) => {
  const t = await agentTeam(p, "ag-cron", 0);
  await vaultSecrets(p);
  await seedQuoteRequest(p, t.ws, t.member.id, 6);
  const agent = await createAgent(t.admin, {
    workspace_id: t.ws,
    agent_type: "quote_follow_up",
    name: "Nightly follow-up",
    schedule: "0 6 * * *",
    timezone: "Europe/Berlin",
  });
  const broken = await createAgent(t.admin, {
    workspace_id: t.ws,
    agent_type: "quote_follow_up",
    name: "Broken",
    schedule: "99 * * * *",
  });
  assert.equal(agent.next_run_at, null);
  // Members and admins cannot tick the scheduler.
  const denied = await call(p, "background-agent-runner", "/cron", {
    method: "POST",
    token: t.admin.accessToken,
  });
  assert.equal(denied.status, 403);

  await cronTick(p);
  const armed = await waitFor("the schedule armed", async () => {
    const r = await p.db.query<{ next_run_at: Date | null }>(
      `select next_run_at from public.background_agents where id = $1`,
      [agent.id],
    );
    return r.rows[0].next_run_at;
  }, 15_000);
  assert.ok(armed > new Date());
  assert.match(armed.toISOString(), /T0[45]:00:00/, "06:00 Berlin");
  const brokenRow = await waitFor("the bad schedule reported", async () => {
    const r = await p.db.query<{ schedule_error: string | null; next_run_at: Date | null }>(
      `select schedule_error, next_run_at from public.background_agents where id = $1`,
      [broken.id],
    );
    return r.rows[0].schedule_error ? r.rows[0] : null;
  });
  assert.equal(brokenRow.next_run_at, null);
  assert.equal(
    (await p.db.query(`select 1 from public.agent_runs where agent_id = $1`, [agent.id])).rows.length,
    0,
    "arming runs nothing",
  );

  // Time passes: the slot is due. The tick claims it, queues it (the kicked worker runs it), and
  // moves to the next slot.
  const slot = new Date(Date.now() - 60_000);
  slot.setUTCSeconds(0, 0);
  await p.db.query(`update public.background_agents set next_run_at = $2 where id = $1`, [agent.id, slot]);
  await cronTick(p);
  const run = await waitFor("the cron run", async () => {
    const r = await p.db.query<Json>(`select * from public.agent_runs where agent_id = $1`, [agent.id]);
    return r.rows[0]?.status === "completed" ? r.rows[0] : null;
  }, 15_000);
  assert.equal(run.triggered_by, "cron");
  assert.equal(run.triggered_by_user, null);
  assert.equal(run.scheduled_for.getTime(), slot.getTime());
  assert.equal(run.output.pending_requests.length, 1);
  const after = await p.db.query<{ next_run_at: Date; last_run_at: Date }>(
    `select next_run_at, last_run_at from public.background_agents where id = $1`,
    [agent.id],
  );
  assert.ok(after.rows[0].next_run_at > new Date());
  assert.ok(after.rows[0].last_run_at);

  // Two overlapping ticks for the same due slot: one run.
  const slot2 = new Date(slot.getTime() - 60_000);
  await p.db.query(`update public.background_agents set next_run_at = $2 where id = $1`, [agent.id, slot2]);
  const [x, y] = await Promise.all([
    call(p, "background-agent-runner", "/cron", { method: "POST", token: p.config.serviceRoleKey }),
    call(p, "background-agent-runner", "/cron", { method: "POST", token: p.config.serviceRoleKey }),
  ]);
  assert.equal(x.status, 200);
  assert.equal(y.status, 200);
  assert.equal(Number(x.body.claimed) + Number(y.body.claimed), 1);
  // The ticks queued the run and kicked the worker (pg_net), which runs it.
  const forSlot = await waitFor("the slot's run", async () => {
    const r = await p.db.query<{ status: string }>(
      `select status from public.agent_runs where agent_id = $1 and scheduled_for = $2`,
      [agent.id, slot2],
    );
    return r.rows.length === 1 && r.rows[0].status === "completed" ? r.rows : null;
  }, 15_000);
  assert.deepEqual(forSlot, [{ status: "completed" }]);
});

platformTest(
  "realtime: a member's channel sees the run's logs in order; an outsider's sees none",
  async (p) => {
    const t = await agentTeam(p, "ag-rt", 0);
    await seedQuoteRequest(p, t.ws, t.member.id, 8);
    const agent = await createAgent(t.admin, {
      workspace_id: t.ws,
      agent_type: "quote_follow_up",
      name: "RT",
    });
    const own = await createAgent(t.outsider, {
      workspace_id: t.otherWs,
      agent_type: "quote_follow_up",
      name: "Mine",
    });
    // Queue the run first, so the frontend can subscribe to exactly its logs before it starts.
    const q = await t.member.client.from("agent_runs").insert({ agent_id: agent.id }).select("id").single();
    assert.equal(q.error, null);
    const runId = q.data!.id as string;
    const memberSb = await signedIn(p, t.member);
    const outsiderSb = await signedIn(p, t.outsider);
    const seen: Json[] = [];
    const outsiderSeen: Json[] = [];
    const ch = await subscribe(memberSb, "run-logs", `run_id=eq.${runId}`, seen);
    const och = await subscribe(outsiderSb, "all-logs", undefined, outsiderSeen);
    try {
      const r = await runAgent(p, t.member.accessToken, { agent_id: agent.id, run_id: runId });
      assert.equal(r.body.status, "completed", JSON.stringify(r.body));
      const stored = await logsOf(p, runId);
      await waitFor("every log row over realtime", () => seen.length >= stored.length, 15_000);
      assert.deepEqual(seen.map((l) => l.seq), stored.map((l) => l.seq));
      assert.deepEqual(seen.map((l) => l.message), stored.map((l) => l.message));
      assert.ok(seen.every((l) => l.run_id === runId));
      // The outsider's own run's logs arrive; none of the victim's came before them (one socket,
      // commit order), so none came at all.
      const mine = await runAgent(p, t.outsider.accessToken, { agent_id: own.id });
      assert.equal(mine.body.status, "completed");
      await waitFor("the outsider's own logs", () => outsiderSeen.length >= 1, 15_000);
      assert.ok(outsiderSeen.every((l) => l.run_id === mine.body.run_id), JSON.stringify(outsiderSeen));
    } finally {
      await memberSb.removeChannel(ch);
      await outsiderSb.removeChannel(och);
      await memberSb.realtime.disconnect();
      await outsiderSb.realtime.disconnect();
    }
  },
);
