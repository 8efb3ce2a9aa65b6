/**
 * The spec: "An unresolved {{path}} template stays as literal text and execution continues".
 * A real run sends an SMS and an email whose content keeps an unresolved `{{trigger.data.x}}`
 * as written (the messaging and email code take no plain-content braces for variables), just as
 * the dry run shows it.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { engine, flowTeam, graph, newest, phone, runRow, saveFlow } from "./helpers.ts";

platformTest("execute-flow sends SMS and email with unresolved templates as literal text", async (p) => {
  const t = await flowTeam(p, "flow-literal");
  const tw = p.sandbox!.get("twilio");
  const resend = p.sandbox!.get("resend");
  const to = phone();
  const flow = await saveFlow(p, t.admin.accessToken, {
    workspace_id: t.ws,
    graph: graph({ type: "manual" }, [
      {
        id: "sms",
        type: "send_sms",
        config: { to, content: "Order {{trigger.data.order}}: {{trigger.data.x}}" },
      },
      {
        id: "mail",
        type: "send_email",
        config: {
          to: "ada@example.org",
          from: t.from,
          subject: "Order {{trigger.data.order}} {{trigger.data.x}}",
          html: "<p>{{trigger.data.x}} {{ghost.output.y}}</p>",
          text: "{{trigger.data.x}}",
        },
      },
    ], [["start", "sms"], ["sms", "mail"]]),
  });
  const data = { order: "A-1" };

  const dry = await engine(p, t.member.accessToken, {
    action: "test-flow",
    flow_id: flow.id,
    trigger_data: data,
  });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.equal(dry.body.status, "completed", JSON.stringify(dry.body));
  const dryRow = await runRow(p, dry.body.run_id as string);
  const drySms = dryRow.steps.find((s) => s.node_id === "sms")!;
  assert.equal((drySms.resolved_config as { content: string }).content, "Order A-1: {{trigger.data.x}}");

  const smsBefore = tw.messages().length;
  const mailBefore = resend.inbox().length;
  const real = await engine(p, t.member.accessToken, {
    action: "execute-flow",
    flow_id: flow.id,
    trigger_data: data,
  });
  assert.equal(real.status, 200, JSON.stringify(real.body));
  assert.equal(real.body.status, "completed", JSON.stringify(real.body));
  const row = await runRow(p, real.body.run_id as string);
  assert.deepEqual(row.steps.map((s) => [s.node_id, s.status]), [
    ["start", "completed"],
    ["sms", "completed"],
    ["mail", "completed"],
  ]);
  assert.equal(row.error_message, null);
  // What the Twilio stand-in captured: the text as written.
  const sent = tw.messages().slice(smsBefore);
  assert.deepEqual(sent.map((m) => [m.to, m.body]), [[to, "Order A-1: {{trigger.data.x}}"]]);
  const logs = await p.db.query<{ content: string; status: string }>(
    `select content, status from public.messaging_logs where workspace_id = $1`,
    [t.ws],
  );
  // The stand-in's status callback may already have moved it on from sent.
  assert.deepEqual(logs.rows.map((r) => r.content), ["Order A-1: {{trigger.data.x}}"]);
  assert.ok(["sent", "delivered"].includes(logs.rows[0].status), logs.rows[0].status);
  const [mail] = newest(resend.inbox(), mailBefore);
  assert.equal(mail.subject, "Order A-1 {{trigger.data.x}}");
  assert.equal(mail.html, "<p>{{trigger.data.x}} {{ghost.output.y}}</p>");
  assert.equal(mail.text, "{{trigger.data.x}}");
});

platformTest(
  "send_email without from sends from the workspace's default verified domain, as email-api does",
  async (p) => {
    const t = await flowTeam(p, "flow-nofrom");
    const resend = p.sandbox!.get("resend");
    const flow = await saveFlow(p, t.admin.accessToken, {
      workspace_id: t.ws,
      graph: graph({ type: "manual" }, [
        { id: "mail", type: "send_email", config: { to: "ada@example.org", subject: "Hi", text: "Hello" } },
      ], [["start", "mail"]]),
    });
    const before = resend.inbox().length;
    const real = await engine(p, t.member.accessToken, { action: "execute-flow", flow_id: flow.id });
    assert.equal(real.status, 200, JSON.stringify(real.body));
    assert.equal(real.body.status, "completed", JSON.stringify(real.body));
    const [mail] = newest(resend.inbox(), before);
    const domain = t.from.split("@")[1];
    assert.match(String(mail.from), new RegExp(`noreply@${domain.replace(/\./g, "\\.")}`));
  },
);
