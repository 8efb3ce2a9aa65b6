/**
 * flow-webhook (signatures never optional once required, forged, stale and body-only ones
 * refused, a replayed delivery runs nothing, body cap, 404s) and flow-scheduler-cron (service role
 * only; two overlapping calls create one run per slot, which its worker runs; next_run_at
 * advanced in the flow's timezone; a failing node fails only its run), and the
 * platform's own events (product created, quote submitted) reaching flows through pg_net.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { pauseCronJobsInModule, platformTest } from "../helpers/platform.ts";
import { call } from "../quotes/helpers.ts";
import { signatureHeader } from "@shared/webhook_signature.ts";
import { waitFor } from "../cron/helpers.ts";
import { flowTeam, graph, newest, phone, runRow, saveFlow } from "./helpers.ts";

// This module drives flow-scheduler-cron by hand: the real per-minute tick must not claim its work.
pauseCronJobsInModule("flow-scheduler-cron", "flow-run-worker");

/** The project's Vault secrets the scheduler job and the event triggers read (once per module). */
async function vaultSecrets(p: Platform) {
  await p.db.query(
    `select vault.create_secret($1, 'project_url')
      where not exists (select 1 from vault.secrets where name = 'project_url')`,
    [p.url],
  );
  await p.db.query(
    `select vault.create_secret($1, 'service_role_key')
      where not exists (select 1 from vault.secrets where name = 'service_role_key')`,
    [p.config.serviceRoleKey],
  );
}

function hook(p: { url: string }, flowId: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${p.url}/functions/v1/flow-webhook?flow_id=${flowId}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

platformTest(
  "flow-webhook: the body becomes trigger.data; signatures are verified, never skipped",
  async (p) => {
    const t = await flowTeam(p, "flow-hook");
    const tw = p.sandbox!.get("twilio");
    const to = phone();
    const sms = { id: "sms", type: "send_sms", config: { to, content: "Order {{trigger.data.order.id}}" } };
    const mail = {
      id: "mail",
      type: "send_email",
      config: {
        to: "ops@example.org",
        from: t.from,
        subject: "Webhook {{trigger.data.order.id}}",
        text: "paid",
      },
    };
    const resend = p.sandbox!.get("resend");
    const mailsBefore = resend.inbox().length;
    const open = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "webhook" }, [sms, mail], [["start", "sms"], ["sms", "mail"]]),
    });
    const signed = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "webhook", config: { require_signature: true } }, [sms], [["start", "sms"]]),
    });
    assert.match(signed.webhook_secret!, /^whsec_/);

    const before = tw.messages().length;
    const ok = await hook(p, open.id, JSON.stringify({ order: { id: "W-1" } }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.status, "completed");
    const short = await hook(
      p,
      open.id,
      JSON.stringify({ event_type: "order.paid", data: { order: { id: "W-2" } } }),
    );
    assert.equal(short.body.status, "completed");
    assert.equal((await runRow(p, short.body.run_id)).trigger_data.event_type, "order.paid");

    const body = JSON.stringify({ order: { id: "S-1" } });
    assert.equal((await hook(p, signed.id, body)).status, 401, "unsigned refused");
    const forged = await signatureHeader("whsec_guess", body);
    assert.equal(
      (await hook(p, signed.id, body, { "x-webhook-signature": forged })).status,
      401,
      "forged refused",
    );
    const good = await signatureHeader(signed.webhook_secret!, body);
    assert.equal(
      (await hook(p, signed.id, JSON.stringify({ order: { id: "S-2" } }), { "x-webhook-signature": good }))
        .status,
      401,
      "a signature of another body refused",
    );
    assert.equal((await hook(p, signed.id, body, { "x-webhook-signature": good.slice(0, -2) })).status, 401);
    const accepted = await hook(p, signed.id, body, { "x-webhook-signature": good });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual(tw.messages().slice(before).map((m) => m.body), ["Order W-1", "Order W-2", "Order S-1"]);
    assert.deepEqual(newest(resend.inbox(), mailsBefore).map((m) => m.subject), [
      "Webhook W-1",
      "Webhook W-2",
    ]);

    // Unknown, disabled, not a webhook flow: 404; bad JSON 400; too large 413.
    assert.equal((await hook(p, crypto.randomUUID(), "{}")).status, 404);
    await p.db.query(`update public.flows set enabled = false where id = $1`, [open.id]);
    assert.equal((await hook(p, open.id, "{}")).status, 404);
    const manual = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "manual" }, [], []),
    });
    assert.equal((await hook(p, manual.id, "{}")).status, 404);
    assert.equal(
      (await hook(p, signed.id, "[1,2]", {
        "x-webhook-signature": await signatureHeader(signed.webhook_secret!, "[1,2]"),
      })).status,
      400,
    );
    const big = JSON.stringify({ pad: "x".repeat(300 * 1024) });
    assert.equal((await hook(p, signed.id, big)).status, 413);
  },
);

/** The old scheme: the hex HMAC-SHA256 of the body alone, without a timestamp. */
async function bodyOnlySignature(secret: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

platformTest(
  "flow-webhook: a signed delivery runs once; stale, forged and body-only signatures are refused",
  async (p) => {
    const t = await flowTeam(p, "flow-replay");
    const tw = p.sandbox!.get("twilio");
    const to = phone();
    const sms = { id: "sms", type: "send_sms", config: { to, content: "Order {{trigger.data.order.id}}" } };
    const flow = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "webhook", config: { require_signature: true } }, [sms], [["start", "sms"]]),
    });
    const secret = flow.webhook_secret!;
    const runs = async () =>
      Number(
        (await p.db.query<{ n: number }>(
          `select count(*)::int as n from public.flow_runs where flow_id = $1`,
          [
            flow.id,
          ],
        )).rows[0].n,
      );
    const sent = () => tw.messages().filter((m) => m.to === to).map((m) => m.body);

    // The same signed delivery three times: one run, one SMS; the copies are acknowledged.
    const body = JSON.stringify({ order: { id: "R-1" } });
    const header = { "x-webhook-signature": await signatureHeader(secret, body) };
    const first = await hook(p, flow.id, body, header);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.status, "completed");
    for (let i = 0; i < 2; i++) {
      const again = await hook(p, flow.id, body, header);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { success: true, duplicate: true });
    }
    assert.equal(await runs(), 1);
    assert.deepEqual(sent(), ["Order R-1"]);

    // Five copies at once: the claim is one insert on a unique key, so one of them runs.
    const body2 = JSON.stringify({ order: { id: "R-2" } });
    const header2 = { "x-webhook-signature": await signatureHeader(secret, body2) };
    const burst = await Promise.all(Array.from({ length: 5 }, () => hook(p, flow.id, body2, header2)));
    assert.deepEqual(burst.map((r) => r.status), [200, 200, 200, 200, 200]);
    assert.equal(burst.filter((r) => r.body.run_id).length, 1);
    assert.equal(burst.filter((r) => r.body.duplicate === true).length, 4);
    assert.equal(await runs(), 2);

    // The sender's own retry, signed afresh (another t), is another delivery.
    const now = Math.floor(Date.now() / 1000);
    const retry = await hook(p, flow.id, body, {
      "x-webhook-signature": await signatureHeader(secret, body, now - 60),
    });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.status, "completed");
    assert.equal(await runs(), 3);

    // Refused, and nothing runs: a timestamp outside 5 minutes either way, a wrong secret, a v1
    // moved to another t, and the old body-only signature (with or without `sha256=`).
    const body3 = JSON.stringify({ order: { id: "R-3" } });
    const refusals: [string, string, string, RegExp][] = [
      ["stale", await signatureHeader(secret, body3, now - 310), "signature_expired", /older than 300 s/],
      ["future", await signatureHeader(secret, body3, now + 310), "signature_expired", /newer than 300 s/],
      [
        "forged",
        await signatureHeader("whsec_guess", body3),
        "invalid_signature",
        /^Invalid X-Webhook-Signature$/,
      ],
      [
        "v1 under another t",
        (await signatureHeader(secret, body3, now - 10)).replace(/^t=\d+/, `t=${now}`),
        "invalid_signature",
        /^Invalid X-Webhook-Signature$/,
      ],
      [
        "body only, sha256=",
        `sha256=${await bodyOnlySignature(secret, body3)}`,
        "invalid_signature",
        /must be t=<unix seconds>,v1=.*a signature of the body alone is not accepted/,
      ],
      [
        "body only, bare hex",
        await bodyOnlySignature(secret, body3),
        "invalid_signature",
        /a signature of the body alone is not accepted/,
      ],
      ["v1 without t", `v1=${"0".repeat(64)}`, "invalid_signature", /must be t=<unix seconds>/],
    ];
    for (const [name, signature, code, message] of refusals) {
      const r = await hook(p, flow.id, body3, { "x-webhook-signature": signature });
      assert.equal(r.status, 401, name);
      assert.equal(r.body.code, code, name);
      assert.match(r.body.error, message, name);
    }
    assert.equal(await runs(), 3);
    assert.deepEqual(sent(), ["Order R-1", "Order R-2", "Order R-1"]);

    // A delivery near the edge of the window still passes.
    const edge = await hook(p, flow.id, body3, {
      "x-webhook-signature": await signatureHeader(secret, body3, now - 280),
    });
    assert.equal(edge.status, 200, JSON.stringify(edge.body));
    assert.equal(edge.body.status, "completed");

    // Recorded deliveries are pruned once their timestamp could no longer pass; live ones stay.
    await p.db.query(
      `insert into public.flow_webhook_deliveries (flow_id, delivery_id, signed_at)
       values ($1, 'expired', now() - interval '1 hour')`,
      [flow.id],
    );
    const body4 = JSON.stringify({ order: { id: "R-4" } });
    const fresh = await hook(p, flow.id, body4, {
      "x-webhook-signature": await signatureHeader(secret, body4),
    });
    assert.equal(fresh.status, 200);
    const kept = await p.db.query<{ delivery_id: string }>(
      `select delivery_id from public.flow_webhook_deliveries where flow_id = $1`,
      [flow.id],
    );
    assert.equal(kept.rows.length, 5);
    assert.ok(kept.rows.every((r) => /^[0-9a-f]{64}$/.test(r.delivery_id)));

    // Clients cannot read (or clear) the recorded ids.
    const read = await fetch(`${p.url}/rest/v1/flow_webhook_deliveries?select=*`, {
      headers: { apikey: p.config.anonKey, authorization: `Bearer ${t.owner.accessToken}` },
    });
    await read.body?.cancel();
    assert.equal(read.status, 403);
    const wipe = await fetch(`${p.url}/rest/v1/flow_webhook_deliveries?flow_id=eq.${flow.id}`, {
      method: "DELETE",
      headers: { apikey: p.config.anonKey, authorization: `Bearer ${t.owner.accessToken}` },
    });
    await wipe.body?.cancel();
    assert.equal(wipe.status, 403);
  },
);

platformTest(
  "flow-scheduler-cron: service role only; overlapping calls create one run per slot",
  async (p) => {
    const t = await flowTeam(p, "flow-cron");
    const sched = (token: string | null) =>
      call(p, "flow-scheduler-cron", "", { method: "POST", token, body: {} });
    assert.equal((await sched(null)).status, 401);
    assert.equal((await sched(p.config.anonKey)).status, 401);
    assert.equal((await sched(t.owner.accessToken)).status, 403);

    const note = {
      id: "note",
      type: "create_notification",
      config: { user_id: t.member.id, title: "tick {{trigger.data.scheduled_for}}" },
    };
    const broken = { id: "fetch", type: "http_request", config: { url: "http://127.0.0.1/" } };
    const tw = p.sandbox!.get("twilio");
    const resend = p.sandbox!.get("resend");
    const smsBefore = tw.messages().length;
    const mailsBefore = resend.inbox().length;
    const to = phone();
    const ok = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "cron", config: { cron: "0 9 * * *", timezone: "Europe/Berlin" } }, [
        note,
        { id: "sms", type: "send_sms", config: { to, content: "Daily {{trigger.data.scheduled_for}}" } },
        {
          id: "mail",
          type: "send_email",
          config: { to: "ops@example.org", from: t.from, subject: "Daily report", text: "ok" },
        },
      ], [["start", "note"], ["start", "sms"], ["start", "mail"]]),
    });
    const failing = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "cron", config: { cron: "0 */6 * * *" } }, [broken, { ...note, id: "n2" }], [[
        "start",
        "fetch",
      ], [
        "start",
        "n2",
      ]]),
    });
    const disabled = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      enabled: false,
      graph: graph({ type: "cron", config: { cron: "* * * * *" } }, [note], [["start", "note"]]),
    });
    // Make the first two due (a slot in the past); the disabled one too, which must not run.
    const slot = "2026-03-29T07:00:00.000Z";
    await p.db.query(`update public.flows set next_run_at = $1 where id = any($2)`, [slot, [
      ok.id,
      failing.id,
      disabled.id,
    ]]);

    const [a, b] = await Promise.all([sched(p.config.serviceRoleKey), sched(p.config.serviceRoleKey)]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal((a.body.claimed as number) + (b.body.claimed as number), 2, "each slot claimed once");
    // The tick queued the runs; the worker (kicked through pg_net, and called here as pg_cron
    // would) runs them.
    const worker = await call(p, "flow-scheduler-cron", "/worker", {
      method: "POST",
      token: p.config.serviceRoleKey,
      body: {},
    });
    assert.equal(worker.status, 200, JSON.stringify(worker.body));
    await waitFor("the two runs to end", async () => {
      const r = await p.db.query(
        `select 1 from public.flow_runs where flow_id = any($1) and status = 'running'`,
        [[ok.id, failing.id]],
      );
      return r.rows.length === 0;
    }, 15_000);
    const runs = await p.db.query<
      { flow_id: string; status: string; scheduled_for: Date; error_node_id: string | null }
    >(
      `select flow_id, status, scheduled_for, error_node_id from public.flow_runs where flow_id = any($1) order by flow_id`,
      [[ok.id, failing.id, disabled.id]],
    );
    assert.equal(runs.rows.length, 2);
    for (const r of runs.rows) assert.equal(r.scheduled_for.toISOString(), slot);
    const byFlow = Object.fromEntries(runs.rows.map((r) => [r.flow_id, r]));
    assert.equal(byFlow[ok.id].status, "completed");
    assert.deepEqual(tw.messages().slice(smsBefore).map((m) => [m.to, m.body]), [[to, `Daily ${slot}`]]);
    assert.deepEqual(newest(resend.inbox(), mailsBefore).map((m) => m.subject), ["Daily report"]);
    assert.equal(byFlow[failing.id].status, "failed");
    assert.equal(byFlow[failing.id].error_node_id, "fetch");
    const notes = await p.db.query<{ title: string }>(
      `select title from public.notifications where user_id = $1 order by title`,
      [
        t.member.id,
      ],
    );
    assert.deepEqual(
      notes.rows.map((r) => r.title),
      [`tick ${slot}`, `tick ${slot}`],
      "the sibling of the failed node ran",
    );

    const flows = await p.db.query<{ id: string; next_run_at: Date; last_run_at: Date | null }>(
      `select id, next_run_at, last_run_at from public.flows where id = any($1)`,
      [[ok.id, failing.id, disabled.id]],
    );
    const f = Object.fromEntries(flows.rows.map((r) => [r.id, r]));
    assert.ok(f[ok.id].next_run_at > new Date(), "advanced to a future slot");
    // 09:00 Berlin wall-clock: 07:00 or 08:00 UTC depending on DST.
    assert.match(f[ok.id].next_run_at.toISOString(), /T0[78]:00:00/);
    assert.ok(f[ok.id].last_run_at);
    assert.equal(f[disabled.id].last_run_at, null);
    // Nothing of theirs is due any more: a third call runs none of them again. (It may claim
    // another test's every-minute flow on this platform if a minute boundary passed.)
    const third = await sched(p.config.serviceRoleKey);
    assert.equal(third.status, 200, JSON.stringify(third.body));
    const again = await p.db.query(`select 1 from public.flow_runs where flow_id = any($1)`, [[
      ok.id,
      failing.id,
      disabled.id,
    ]]);
    assert.equal(again.rows.length, 2);
  },
);

platformTest(
  "platform events: a product insert and a quote request reach their flows through pg_net",
  async (p) => {
    const t = await flowTeam(p, "flow-platform-events");
    await vaultSecrets(p);
    const note = (title: string) => ({
      id: "note",
      type: "create_notification",
      config: { user_id: t.member.id, title },
    });
    await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "event", config: { event_type: "product.created" } }, [
        note("New {{trigger.data.product.name}}"),
        {
          id: "mail",
          type: "send_email",
          config: {
            to: "catalog@example.org",
            from: t.from,
            subject: "New product {{trigger.data.product.name}}",
            text: "-",
          },
        },
      ], [["start", "note"], ["start", "mail"]]),
    });
    await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "event", config: { event_type: "quote.submitted" } }, [
        note("Request {{trigger.data.quote_request.status}}"),
      ], [[
        "start",
        "note",
      ]]),
    });
    await p.db.query(`insert into public.products (workspace_id, name) values ($1, 'Oak panel')`, [t.ws]);
    const q = await p.db.query<{ id: string }>(
      `insert into public.quotes (workspace_id, title) values ($1, 'Q') returning id`,
      [t.ws],
    );
    await p.db.query(
      `insert into public.quote_requests (quote_id, workspace_id, user_id) values ($1, $2, $3)`,
      [q.rows[0].id, t.ws, t.member.id],
    );
    const titles = await waitFor("both event flows", async () => {
      const r = await p.db.query<{ title: string }>(
        `select title from public.notifications where user_id = $1 order by title`,
        [
          t.member.id,
        ],
      );
      return r.rows.length >= 2 ? r.rows.map((x) => x.title) : null;
    }, 15_000);
    assert.deepEqual(titles, ["New Oak panel", "Request pending"]);
    const mails = await waitFor("the event flow's email", () => {
      const found = p.sandbox!.get("resend").inbox().filter((m) => m.subject === "New product Oak panel");
      return found.length ? found : null;
    });
    assert.equal(mails.length, 1);
  },
);
