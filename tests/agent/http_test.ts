/**
 * agent-chat's HTTP contract: authentication, validation, agent ids and models, credits (charge,
 * 402, refund), the workspace rule, images, conversations, heartbeats and the bounded tool loop.
 */
import assert from "node:assert/strict";
import { createUser, platformTest } from "../helpers/platform.ts";
import { runWithEnv } from "@shared/env.ts";
import app from "../../supabase/functions/agent-chat/app.ts";
import { HOW_TO_GET_CREDITS } from "@shared/credits/ledger.ts";
import {
  ask,
  askIn,
  balance,
  chat,
  createTeam,
  grant,
  type Json,
  kinds,
  llm,
  only,
  textOf,
} from "./helpers.ts";

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

platformTest("401 without a user: no token, a bad token, the anon key, the service key", async (p) => {
  const model = llm(p);
  assert.equal((await chat(p, null, ask("hi"))).status, 401);
  assert.equal((await chat(p, "not-a-jwt", ask("hi"))).status, 401);
  assert.equal((await chat(p, p.config.anonKey, ask("hi"))).status, 401);
  assert.equal((await chat(p, p.config.serviceRoleKey, ask("hi"))).status, 401);
  assert.equal(model.captures.requests().length, 0);
});

platformTest("400 for bad bodies and unknown agents; nothing is charged", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  const cases: [unknown, string][] = [
    ["{not json", "invalid_json"],
    [{}, "validation_failed"],
    [{ messages: [] }, "validation_failed"],
    [{ messages: [{ role: "system", content: "x" }] }, "validation_failed"],
    [
      { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "yo" }] },
      "validation_failed",
    ],
    [{ messages: [{ role: "user", content: "   " }] }, "validation_failed"],
    [ask("hi", { conversation_id: "nope" }), "validation_failed"],
    [ask("hi", { context: { workspace_id: "nope" } }), "validation_failed"],
    [ask("hi", { agentId: "pricing-bot" }), "unknown_agent"],
    [ask("hi", { agentId: "" }), "validation_failed"],
    [askIn(t.ws, "hi", { images: ["https://example.com/a.png"] }), "invalid_images"],
    [askIn(t.ws, "hi", { images: [`data:text/plain;base64,${btoa("hello")}`] }), "invalid_images"],
    [askIn(t.ws, "hi", { images: [`data:image/jpeg;base64,${PNG_1X1}`] }), "invalid_images"],
    [askIn(t.ws, "hi", { images: Array(5).fill(`data:image/png;base64,${PNG_1X1}`) }), "invalid_images"],
  ];
  for (const [body, code] of cases) {
    const r = await chat(p, t.member.accessToken, body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
    assert.equal(r.error.code, code, JSON.stringify(r.error));
  }
  assert.equal(await balance(p, t.member.id), 100);
  assert.equal(model.captures.requests().length, 0);
});

platformTest("agent ids: aliases resolve to main; demo runs the cheaper model at 0.5 credit", async (p) => {
  const t = await createTeam(p);
  const cases: [string | undefined, string, string, number][] = [
    [undefined, "main", "claude-sonnet-4-6", 1],
    ["main", "main", "claude-sonnet-4-6", 1],
    ["search", "main", "claude-sonnet-4-6", 1],
    ["insights", "main", "claude-sonnet-4-6", 1],
    ["seo", "main", "claude-sonnet-4-6", 1],
    ["interior-designer", "interior-designer", "claude-sonnet-4-6", 1],
    ["demo", "demo", "claude-haiku-4-5", 0.5],
  ];
  for (const [agentId, canonical, modelId, credits] of cases) {
    const model = llm(p);
    model.reply("Hello!");
    const before = await balance(p, t.member.id);
    const r = await chat(p, t.member.accessToken, askIn(t.ws, "hi", agentId ? { agentId } : {}));
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual(kinds(r.chunks), ["status", "text", "done"]);
    assert.equal((model.captures.requests()[0].body as { model: string }).model, modelId);
    assert.equal(before - await balance(p, t.member.id), credits, `${agentId}`);
    const conv = await t.member.client.from("agent_chat_conversations").select("agent_id")
      .eq("id", r.headers.get("x-conversation-id")).single();
    assert.equal(conv.data?.agent_id, canonical);
  }
  // The ledger and usage log of the last (demo) turn: debit, model, tokens.
  const usage = await p.db.query<Record<string, unknown>>(
    `select u.model, u.credits_debited::float8 as credits, u.input_tokens, u.output_tokens, c.amount::float8 as amount
       from public.ai_usage_logs u join public.credit_transactions c on c.id = u.credit_transaction_id
      where u.user_id = $1 and u.action = 'agent_chat' order by u.created_at desc limit 1`,
    [t.member.id],
  );
  assert.equal(usage.rows[0].model, "claude-haiku-4-5");
  assert.equal(usage.rows[0].credits, 0.5);
  assert.equal(usage.rows[0].amount, -0.5);
  assert.ok((usage.rows[0].input_tokens as number) > 0 && (usage.rows[0].output_tokens as number) > 0);
});

platformTest("402 with too few credits: nothing runs, nothing is saved", async (p) => {
  const poor = await createUser(p, "agent-poor");
  const model = llm(p);
  const r = await chat(p, poor.accessToken, ask("hi"));
  assert.equal(r.status, 402);
  assert.equal(r.error.code, "insufficient_credits");
  // The answer names the price, the balance and the next step (issue 36).
  assert.deepEqual(r.error.details, { agent_id: "main", price: 1, balance: 0, cost_key: null });
  assert.equal(
    r.error.error,
    `Insufficient credits for the main agent: the main agent costs 1 credit and your balance is 0. ${HOW_TO_GET_CREDITS}.`,
  );
  assert.equal(model.captures.requests().length, 0);
  assert.deepEqual((await poor.client.from("agent_chat_conversations").select("id")).data, []);
  await grant(p, poor.id, 0.5);
  assert.equal((await chat(p, poor.accessToken, ask("hi"))).status, 402, "main costs 1 credit");
  model.reply("Hi from the demo.");
  assert.equal((await chat(p, poor.accessToken, ask("hi", { agentId: "demo" }))).status, 200);
  assert.equal(await balance(p, poor.id), 0);
});

platformTest("a model failure ends the stream with error + done and refunds the request", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  model.failNext(500).failNext(500); // the SDK retries once
  const r = await chat(p, t.member.accessToken, askIn(t.ws, "hi"));
  assert.equal(r.status, 200);
  assert.deepEqual(kinds(r.chunks), ["status", "error", "done"]);
  const error = only(r.chunks, "error")[0] as Record<string, unknown>;
  assert.equal(error.code, "model_unavailable");
  assert.equal(error.message, "agent-chat: the model provider answered HTTP 500");
  assert.deepEqual(
    { ...(error.details as Record<string, unknown>), provider_message: undefined },
    {
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      purpose: "agent-chat",
      provider_status: 500,
      provider_message: undefined,
    },
  );
  assert.match(String((error.details as Record<string, unknown>).provider_message), /Injected failure/);
  assert.equal(await balance(p, t.member.id), 100, "refunded in full");
  const log = await p.db.query<{ metadata: Record<string, unknown> }>(
    `select metadata from public.ai_usage_logs where user_id = $1 and action = 'agent_chat'`,
    [t.member.id],
  );
  assert.equal(log.rows[0].metadata.refunded, true);
});

platformTest("503 with a clear message when no model is configured; nothing is charged", async (p) => {
  const t = await createTeam(p);
  const noModel = {
    ...p.env,
    ANTHROPIC_API_KEY: "",
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
    LLM_PROVIDER: "",
  };
  const res = await runWithEnv(noModel, () =>
    app.fetch(
      new Request(`${p.url}/agent-chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.member.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify(askIn(t.ws, "hi")),
      }),
    ));
  assert.equal(res.status, 503);
  const body = await res.json();
  assert.equal(body.code, "model_unavailable");
  assert.equal(body.details.reason, "not_configured");
  assert.match(body.error, /ANTHROPIC_API_KEY/);
  assert.equal(await balance(p, t.member.id), 100);
});

platformTest("403 for a suspended account; workspace choice rules", async (p) => {
  const t = await createTeam(p);
  await p.db.query(`update public.user_profiles set status = 'suspended' where user_id = $1`, [t.viewer.id]);
  const suspended = await chat(p, t.viewer.accessToken, askIn(t.ws, "hi"));
  assert.equal(suspended.status, 403);

  // Two workspaces (their personal one and the team's) and no context.workspace_id: the caller
  // must choose; the personal workspace is not a default.
  const ambiguous = await chat(p, t.member.accessToken, ask("hi"));
  assert.equal(ambiguous.status, 400);
  assert.equal(ambiguous.error.code, "workspace_required");
  assert.match(ambiguous.error.error, /^context\.workspace_id is required: you belong to 2 workspaces/);
  assert.match(ambiguous.error.error, /personal workspace is not a default/);
  const model = llm(p);
  model.reply("Hi.");
  const chosen = await chat(
    p,
    t.member.accessToken,
    ask("hi", { context: { workspace_id: t.ws, source: "catalog" } }),
  );
  assert.equal(chosen.status, 200);
  assert.match((model.captures.requests()[0].body as { system: string }).system, /as its member/);

  // A new user belongs to their personal workspace only: the chat works in it, as its owner,
  // without naming it (no workspace at all: tests/unit/agent/agents_test.ts).
  const loner = await createUser(p, "agent-loner");
  await grant(p, loner.id, 5);
  model.reply("Hi.");
  const r = await chat(p, loner.accessToken, ask("hi"));
  assert.equal(r.status, 200);
  assert.match((model.captures.requests()[1].body as { system: string }).system, /as its owner/);
  assert.ok((model.captures.requests()[1].body as { tools?: unknown[] }).tools?.length);
});

platformTest("images reach the model as image blocks of the last user message", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  model.reply("A bright bathroom.");
  const r = await chat(p, t.member.accessToken, {
    context: { workspace_id: t.ws },
    messages: [
      { role: "user", content: "Hello" },
      { role: "assistant", content: "Hi, how can I help?" },
      { role: "user", content: "What style is this room?" },
    ],
    agentId: "interior-designer",
    images: [`data:image/png;base64,${PNG_1X1}`],
  });
  assert.equal(r.status, 200);
  const sent =
    (model.captures.requests()[0].body as { messages: { role: string; content: unknown }[] }).messages;
  assert.deepEqual(sent.slice(0, 2), [
    { role: "user", content: "Hello" },
    { role: "assistant", content: "Hi, how can I help?" },
  ]);
  assert.deepEqual(sent[2], {
    role: "user",
    content: [
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 } },
      { type: "text", text: "What style is this room?" },
    ],
  });
});

platformTest("conversations persist; another user's conversation is not found", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  model.reply("First answer.", "Second answer.");
  const first = await chat(p, t.member.accessToken, askIn(t.ws, "First question\nwith details"));
  const id = first.headers.get("x-conversation-id")!;
  assert.match(id, /^[0-9a-f-]{36}$/);
  const second = await chat(p, t.member.accessToken, {
    messages: [
      { role: "user", content: "First question\nwith details" },
      { role: "assistant", content: "First answer." },
      { role: "user", content: "Second question" },
    ],
    conversation_id: id,
    context: { workspace_id: t.ws },
  });
  assert.equal(second.headers.get("x-conversation-id"), id);
  const conv = await t.member.client.from("agent_chat_conversations").select("title, workspace_id").eq(
    "id",
    id,
  )
    .single();
  assert.deepEqual(conv.data, { title: "First question", workspace_id: t.ws });
  const messages = await t.member.client.from("agent_chat_messages").select("role, content")
    .eq("conversation_id", id).order("created_at");
  assert.deepEqual(messages.data, [
    { role: "user", content: "First question\nwith details" },
    { role: "assistant", content: "First answer." },
    { role: "user", content: "Second question" },
    { role: "assistant", content: "Second answer." },
  ]);
  // Owners of the workspace cannot read a member's chats; nobody can continue them.
  assert.deepEqual(
    (await t.owner.client.from("agent_chat_messages").select("id").eq("conversation_id", id)).data,
    [],
  );
  const hijack = await chat(p, t.owner.accessToken, askIn(t.ws, "hi", { conversation_id: id }));
  assert.equal(hijack.status, 404);
  // A client-made id nobody uses starts a conversation (tests/agent/conversations_test.ts).
  assert.equal(
    (await chat(p, t.owner.accessToken, askIn(t.ws, "hi", { conversation_id: crypto.randomUUID() }))).status,
    200,
  );
});

platformTest("heartbeats arrive at a steady interval while the model works", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  p.env.AGENT_HEARTBEAT_MS = "100";
  model.setLatency(650);
  model.reply("Done thinking.");
  try {
    const r = await chat(p, t.member.accessToken, askIn(t.ws, "think"));
    const beats = only(r.chunks, "heartbeat");
    assert.ok(beats.length >= 4, `got ${beats.length} heartbeats`);
    assert.ok(
      beats.every((b, i) =>
        typeof b.timestamp === "number" && (i === 0 || b.timestamp >= beats[i - 1].timestamp)
      ),
    );
    assert.equal(r.chunks[0].type, "status");
    assert.equal(r.chunks.at(-1)!.type, "done");
  } finally {
    model.setLatency(0);
    delete p.env.AGENT_HEARTBEAT_MS;
  }
});

platformTest("the tool loop is bounded: the last model call gets tool_choice none", async (p) => {
  const t = await createTeam(p);
  await t.member.client.from("products").insert([
    { workspace_id: t.ws, name: "Keraflex Maxi S1 grey 25 kg", sku: "MP-100", description: "Tile adhesive" },
    { workspace_id: t.ws, name: "Ultracolor Plus grout", sku: "MP-200" },
  ]);
  const model = llm(p);
  const search = { toolUse: [{ name: "product_search", input: { query: "keraflex grey" } }] };
  model.reply(search, search, search, search, search);
  const r = await chat(p, t.member.accessToken, askIn(t.ws, "find keraflex"));
  assert.equal(r.status, 200);
  const requests = model.captures.requests().map((c) => c.body as Record<string, Json>);
  assert.equal(requests.length, 5);
  assert.deepEqual(requests[4].tool_choice, { type: "none" });
  assert.ok(requests.slice(0, 4).every((b) => b.tool_choice === undefined));
  assert.equal(only(r.chunks, "tool_call_ids").length, 4, "four searches ran (and were logged)");
  assert.ok(only(r.chunks, "status").some((s) => /Stopped after 5 model calls/.test(s.message)));
  const result = JSON.parse(requests[1].messages.at(-1).content[0].content);
  assert.deepEqual(result.products.map((x: { sku: string }) => x.sku), ["MP-100"]);
  assert.equal(textOf(r.chunks), "");
});

platformTest("text of successive model calls streams as paragraphs and is saved as one answer", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  model.reply(
    { text: "Let me search the catalog.", toolUse: [{ name: "product_search", input: { query: "grout" } }] },
    "Nothing matched grout.",
  );
  const r = await chat(p, t.member.accessToken, askIn(t.ws, "any grout?"));
  assert.deepEqual(kinds(r.chunks), ["status", "text", "tool_call_ids", "text", "done"]);
  assert.equal(textOf(r.chunks), "Let me search the catalog.\n\nNothing matched grout.");
  const saved = await t.member.client.from("agent_chat_messages").select("content")
    .eq("conversation_id", r.headers.get("x-conversation-id")).eq("role", "assistant").single();
  assert.equal(saved.data?.content, "Let me search the catalog.\n\nNothing matched grout.");
});
