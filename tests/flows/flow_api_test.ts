/**
 * flow-engine over HTTP: save-flow validation and roles, execute-flow with SMS, email and a
 * notification captured by the sandbox, test-flow firing nothing, http_request refusing
 * loopback and metadata addresses, trigger-event, and the flows table closed to direct writes.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { createTeam } from "../helpers/team.ts";
import { engine, flowTeam, graph, newest, phone, runRow, saveFlow } from "./helpers.ts";

const actions = (to: string, from: string, userId: string) => [
  { id: "gate", type: "if_else", config: { field: "{{trigger.data.total}}", operator: "gte", value: 100 } },
  {
    id: "sms",
    type: "send_sms",
    config: { to, content: "Hi {{trigger.data.name}}, total {{trigger.data.total}}" },
  },
  {
    id: "mail",
    type: "send_email",
    config: {
      to: "{{trigger.data.email}}",
      from,
      subject: "Order {{trigger.data.order}}",
      html: "<p>SMS {{sms.output.message_id}}</p>",
    },
  },
  {
    id: "note",
    type: "create_notification",
    config: { user_id: userId, title: "Small order {{trigger.data.order}}" },
  },
];
const edges: [string, string, string?][] = [
  ["start", "gate"],
  ["gate", "sms", "true"],
  ["sms", "mail"],
  ["gate", "note", "false"],
];

platformTest(
  "execute-flow fires SMS and email; test-flow fires nothing and returns resolved configs",
  async (p) => {
    const t = await flowTeam(p, "flow-exec");
    const tw = p.sandbox!.get("twilio");
    const resend = p.sandbox!.get("resend");
    const to = phone();
    const flow = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "manual" }, actions(to, t.from, t.member.id), edges),
    });
    const data = { name: "Ada", total: 250, email: "ada@example.org", order: "A-1" };

    const smsBefore = tw.messages().length;
    const mailBefore = resend.inbox().length;
    const dry = await engine(p, t.member.accessToken, {
      action: "test-flow",
      flow_id: flow.id,
      trigger_data: data,
    });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.dry_run, true);
    const nodes = dry.body.steps as {
      node_id: string;
      status: string;
      resolved_config: Record<string, unknown>;
    }[];
    const sms = nodes.find((n) => n.node_id === "sms")!;
    assert.equal(sms.resolved_config.content, "Hi Ada, total 250");
    assert.equal(nodes.find((n) => n.node_id === "mail")!.resolved_config.to, "ada@example.org");
    assert.equal(nodes.find((n) => n.node_id === "note")!.status, "skipped");
    assert.equal(tw.messages().length, smsBefore, "test-flow sent no SMS");
    assert.equal(resend.inbox().length, mailBefore, "test-flow sent no email");
    const logs = await p.db.query(`select 1 from public.messaging_logs where workspace_id = $1`, [t.ws]);
    assert.equal(logs.rows.length, 0, "test-flow wrote no messaging log");
    assert.equal((await runRow(p, dry.body.run_id as string)).is_test_run, true);

    const real = await engine(p, t.member.accessToken, {
      action: "execute-flow",
      flow_id: flow.id,
      trigger_data: data,
    });
    assert.equal(real.status, 200, JSON.stringify(real.body));
    assert.equal(real.body.status, "completed", JSON.stringify(real.body));
    const sent = tw.messages().slice(smsBefore);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].to, to);
    assert.equal(sent[0].body, "Hi Ada, total 250");
    const mails = newest(resend.inbox(), mailBefore);
    assert.equal(mails.length, 1);
    assert.deepEqual(mails[0].to, ["ada@example.org"]);
    assert.equal(mails[0].subject, "Order A-1");
    assert.equal(mails[0].html, `<p>SMS ${sent[0].sid}</p>`);
    const row = await runRow(p, real.body.run_id as string);
    assert.equal(row.status, "completed");
    assert.equal(row.is_test_run, false);
    assert.deepEqual(row.steps.map((s) => [s.node_id, s.status]), [
      ["start", "completed"],
      ["gate", "completed"],
      ["sms", "completed"],
      ["note", "skipped"],
      ["mail", "completed"],
    ]);

    // The other branch, in the short form: a notification for a member of the workspace.
    const small = await engine(p, t.owner.accessToken, {
      flow_id: flow.id,
      trigger_data: { ...data, total: 5 },
    });
    assert.equal(small.body.status, "completed", JSON.stringify(small.body));
    const notes = await p.db.query<{ title: string; workspace_id: string }>(
      `select title, workspace_id from public.notifications where user_id = $1`,
      [t.member.id],
    );
    assert.deepEqual(notes.rows, [{ title: "Small order A-1", workspace_id: t.ws }]);
  },
);

platformTest("test-flow and execute-flow name the per-node results alike: steps", async (p) => {
  const t = await createTeam(p, { prefix: "flow-steps" });
  const flow = await saveFlow(p, t.admin.accessToken, {
    workspace_id: t.ws,
    graph: graph({ type: "manual" }, [{
      id: "note",
      type: "create_notification",
      config: { user_id: t.member.id, title: "Order {{trigger.data.order}}" },
    }], [["start", "note"]]),
  });
  const body = { flow_id: flow.id, trigger_data: { order: "B-7" } };
  const dry = await engine(p, t.member.accessToken, { action: "test-flow", ...body });
  const real = await engine(p, t.member.accessToken, { action: "execute-flow", ...body });
  for (const r of [dry, real]) {
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal("nodes" in r.body, false, "one name: steps");
    const steps = r.body.steps as { node_id: string; status: string; resolved_config?: { title?: string } }[];
    assert.deepEqual(steps.map((s) => [s.node_id, s.status]), [["start", "completed"], [
      "note",
      "completed",
    ]]);
    assert.equal(steps[1].resolved_config?.title, "Order B-7");
    assert.deepEqual((await runRow(p, r.body.run_id as string)).steps.map((s) => s.node_id), [
      "start",
      "note",
    ]);
  }
  assert.equal(dry.body.dry_run, true);
  assert.equal("dry_run" in real.body, false);
});

platformTest("flow-engine refuses a key it does not know, naming it, in every action", async (p) => {
  const t = await createTeam(p, { prefix: "flow-strict" });
  const flow = await saveFlow(p, t.admin.accessToken, {
    workspace_id: t.ws,
    graph: graph({ type: "manual" }, [], []),
  });
  const before = await p.db.query(`select 1 from public.flow_runs where flow_id = $1`, [flow.id]);
  const cases: [Record<string, unknown>, string][] = [
    [{ action: "execute-flow", flow_id: flow.id, triger_data: { a: 1 } }, 'unknown field "triger_data"'],
    [{ action: "test-flow", flow_id: flow.id, trigger_data: {}, dry_run: true }, 'unknown field "dry_run"'],
    [{ flow_id: flow.id, trigger_data: {}, workspace_id: t.ws }, 'unknown field "workspace_id"'],
    [
      { action: "trigger-event", event_type: "product.created", workspace_id: t.ws, data: {} },
      'unknown field "data"',
    ],
    [
      {
        action: "save-flow",
        workspace_id: t.ws,
        name: "x",
        graph: graph({ type: "manual" }, [], []),
        flowId: "x",
      },
      'unknown field "flowId"',
    ],
  ];
  for (const [body, named] of cases) {
    const r = await engine(p, t.admin.accessToken, body);
    assert.equal(r.status, 400, JSON.stringify([body, r.body]));
    assert.equal(r.body.code, "validation_failed");
    assert.ok((r.body.error as string).includes(named), JSON.stringify(r.body));
  }
  const after = await p.db.query(`select 1 from public.flow_runs where flow_id = $1`, [flow.id]);
  assert.equal(after.rows.length, before.rows.length, "a refused body runs nothing");
  // The spec's spellings still pass.
  const ok = await engine(p, t.admin.accessToken, { flow_id: flow.id, trigger_data: {} });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

platformTest("save-flow refuses invalid graphs naming the node, and callers without the role", async (p) => {
  const t = await flowTeam(p, "flow-save");
  const bad = await engine(p, t.admin.accessToken, {
    workspace_id: t.ws,
    action: "save-flow",
    name: "Bad",
    graph: graph({ type: "manual" }, [{
      id: "c",
      type: "if_else",
      config: { field: "x", operator: "matches", value: 1 },
    }], [[
      "start",
      "c",
    ]]),
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error as string, /Node "c"/);
  const cyc = await engine(p, t.admin.accessToken, {
    workspace_id: t.ws,
    action: "save-flow",
    name: "Cycle",
    graph: graph({ type: "manual" }, [{ id: "a", type: "delay", config: { seconds: 1 } }, {
      id: "b",
      type: "delay",
      config: { seconds: 1 },
    }], [["start", "a"], ["a", "b"], ["b", "a"]]),
  });
  assert.equal(cyc.status, 400);
  assert.match(cyc.body.error as string, /cycle/);
  const g = graph({ type: "manual" }, [], []);
  assert.equal(
    (await engine(p, t.member.accessToken, { workspace_id: t.ws, action: "save-flow", name: "x", graph: g }))
      .status,
    403,
  );
  assert.equal((await engine(p, null, { action: "save-flow", name: "x", graph: g })).status, 401);
  const flow = await saveFlow(p, t.owner.accessToken, { workspace_id: t.ws, graph: g });
  // Another workspace's owner neither runs nor edits it.
  const other = await engine(p, t.outsider.accessToken, { action: "execute-flow", flow_id: flow.id });
  assert.equal(other.status, 404);
  const edit = await engine(p, t.outsider.accessToken, {
    action: "save-flow",
    flow_id: flow.id,
    name: "x",
    graph: g,
  });
  assert.equal(edit.status, 404);
  // A viewer may not run flows.
  assert.equal(
    (await engine(p, t.viewer.accessToken, { action: "execute-flow", flow_id: flow.id })).status,
    403,
  );
  // No direct writes of graphs through /rest/v1.
  const rest = await fetch(`${p.url}/rest/v1/flows`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      authorization: `Bearer ${t.owner.accessToken}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      workspace_id: t.ws,
      name: "sneaky",
      trigger_type: "manual",
      graph: { nodes: [] },
    }),
  });
  assert.ok(rest.status === 401 || rest.status === 403, `status ${rest.status}`);
  await rest.body?.cancel();
  const patch = await fetch(`${p.url}/rest/v1/flows?id=eq.${flow.id}`, {
    method: "PATCH",
    headers: {
      apikey: p.config.anonKey,
      authorization: `Bearer ${t.owner.accessToken}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ graph: { nodes: [] } }),
  });
  assert.ok(patch.status === 401 || patch.status === 403, `status ${patch.status}`);
  await patch.body?.cancel();
  // RLS: members read their workspace's flows and runs; another workspace's owner sees none.
  const read = (token: string, table: string) =>
    fetch(`${p.url}/rest/v1/${table}?select=id&workspace_id=eq.${t.ws}`, {
      headers: { apikey: p.config.anonKey, authorization: `Bearer ${token}` },
    }).then((r) => r.json() as Promise<unknown[]>);
  await engine(p, t.member.accessToken, { action: "test-flow", flow_id: flow.id });
  assert.equal((await read(t.viewer.accessToken, "flows")).length, 1);
  assert.equal((await read(t.viewer.accessToken, "flow_runs")).length, 1);
  assert.equal((await read(t.outsider.accessToken, "flows")).length, 0);
  assert.equal((await read(t.outsider.accessToken, "flow_runs")).length, 0);
  // The webhook secret is not readable by members.
  const secret = await fetch(`${p.url}/rest/v1/flows?select=webhook_secret`, {
    headers: { apikey: p.config.anonKey, authorization: `Bearer ${t.owner.accessToken}` },
  });
  assert.ok(secret.status >= 400, `status ${secret.status}`);
  await secret.body?.cancel();
});

platformTest(
  "http_request refuses loopback, private and metadata addresses; the failed node is recorded",
  async (p) => {
    const t = await flowTeam(p, "flow-ssrf");
    for (
      const url of [
        "http://127.0.0.1:54321/rest/v1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://10.0.0.1/",
        "http://localhost/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://[::ffff:127.0.0.1]/",
        "file:///etc/passwd",
      ]
    ) {
      const flow = await saveFlow(p, t.admin.accessToken, {
        workspace_id: t.ws,
        graph: graph({ type: "manual" }, [
          { id: "fetch", type: "http_request", config: { method: "GET", url: "{{trigger.data.url}}" } },
          { id: "after", type: "create_notification", config: { user_id: t.admin.id, title: "fetched" } },
          {
            id: "sibling",
            type: "create_notification",
            config: { user_id: t.admin.id, title: "sibling ran" },
          },
        ], [["start", "fetch"], ["fetch", "after"], ["start", "sibling"]]),
      });
      const r = await engine(p, t.admin.accessToken, {
        action: "execute-flow",
        flow_id: flow.id,
        trigger_data: { url },
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.status, "failed", url);
      assert.equal(r.body.error_node_id, "fetch");
      const row = await runRow(p, r.body.run_id as string);
      assert.equal(row.status, "failed");
      assert.equal(row.error_node_id, "fetch");
      const step = row.steps.find((s) => s.node_id === "fetch")!;
      assert.match(step.error!, /Refused|Only http/, `${url}: ${step.error}`);
      assert.equal(row.steps.find((s) => s.node_id === "after")!.status, "skipped");
      assert.equal(row.steps.find((s) => s.node_id === "sibling")!.status, "completed");
    }
  },
);

platformTest("trigger-event runs the workspace's matching event flows only", async (p) => {
  const t = await flowTeam(p, "flow-event");
  const tw = p.sandbox!.get("twilio");
  const to = phone();
  const sms = {
    id: "sms",
    type: "send_sms",
    config: { to, content: "Product {{trigger.data.product.name}}" },
  };
  const listening = await saveFlow(p, t.admin.accessToken, {
    workspace_id: t.ws,
    graph: graph({ type: "event", config: { event_type: "product.created" } }, [sms], [["start", "sms"]]),
  });
  await saveFlow(p, t.admin.accessToken, {
    workspace_id: t.ws,
    graph: graph({ type: "event", config: { event_type: "quote.submitted" } }, [sms], [["start", "sms"]]),
  });
  await saveFlow(p, t.admin.accessToken, {
    workspace_id: t.ws,
    enabled: false,
    graph: graph({ type: "event", config: { event_type: "product.created" } }, [sms], [["start", "sms"]]),
  });
  const before = tw.messages().length;
  const r = await engine(p, t.member.accessToken, {
    workspace_id: t.ws,
    action: "trigger-event",
    event_type: "product.created",
    event_data: { product: { name: "Oak panel" } },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.flows_matched, 1);
  assert.equal((r.body.runs as { flow_id: string }[])[0].flow_id, listening.id);
  const sent = tw.messages().slice(before);
  assert.deepEqual(sent.map((m) => [m.to, m.body]), [[to, "Product Oak panel"]]);
  // Another workspace's event does not reach this workspace's flows.
  const other = await engine(p, t.outsider.accessToken, {
    workspace_id: t.otherWs,
    action: "trigger-event",
    event_type: "product.created",
    event_data: {},
  });
  assert.equal(other.body.flows_matched, 0);
  assert.equal(
    (await engine(p, t.outsider.accessToken, {
      action: "trigger-event",
      event_type: "product.created",
      workspace_id: t.ws,
    }))
      .status,
    404,
  );
  assert.equal(
    (await engine(p, t.member.accessToken, {
      workspace_id: t.ws,
      action: "trigger-event",
      event_type: "Bad Name!",
    })).status,
    400,
  );
});

platformTest(
  "send_quote renders the quote's PDF and emails a link; another workspace's quote is refused",
  async (p) => {
    const t = await flowTeam(p, "flow-quote");
    const resend = p.sandbox!.get("resend");
    const mine = await p.db.query<{ id: string; quote_number: string }>(
      `insert into public.quotes (workspace_id, title, customer_name) values ($1, 'Kitchen', 'Ada') returning id, quote_number`,
      [t.ws],
    );
    const theirs = await p.db.query<{ id: string }>(
      `insert into public.quotes (workspace_id, title) values ($1, 'Not yours') returning id`,
      [t.otherWs],
    );
    const flow = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "manual" }, [{
        id: "quote",
        type: "send_quote",
        config: {
          quote_id: "{{trigger.data.quote_id}}",
          to: "ada@example.org",
          from: t.from,
          message: "Here it is",
        },
      }], [["start", "quote"]]),
    });
    const before = resend.inbox().length;
    const r = await engine(p, t.admin.accessToken, {
      action: "execute-flow",
      flow_id: flow.id,
      trigger_data: { quote_id: mine.rows[0].id },
    });
    assert.equal(r.body.status, "completed", JSON.stringify(r.body));
    const mails = newest(resend.inbox(), before);
    assert.equal(mails.length, 1);
    assert.equal(mails[0].subject, `Quote ${mine.rows[0].quote_number}`);
    assert.match(mails[0].html ?? "", /Here it is.*quote-pdfs/s);
    const stored = await p.db.query<{ pdf_storage_path: string | null }>(
      `select pdf_storage_path from public.quotes where id = $1`,
      [
        mine.rows[0].id,
      ],
    );
    assert.ok(stored.rows[0].pdf_storage_path);

    const other = await engine(p, t.admin.accessToken, {
      action: "execute-flow",
      flow_id: flow.id,
      trigger_data: { quote_id: theirs.rows[0].id },
    });
    assert.equal(other.body.status, "failed");
    assert.match(other.body.error_message as string, /not found in the flow's workspace/);
    assert.equal(resend.inbox().length, before + 1);
  },
);
