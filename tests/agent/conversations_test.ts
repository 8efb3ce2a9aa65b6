/**
 * agent-chat persistence as a client sees it: conversation_id is "string or null". null starts a
 * conversation whose id the stream tells (first `status` chunk) as well as the header; a
 * client-made id starts a conversation with that id and continues it after; an id that is
 * someone else's conversation is 404 before anything is charged, read or written.
 */
import assert from "node:assert/strict";
import { ask, askIn, balance, chat, createTeam, type Json, kinds, llm } from "./helpers.ts";
import { platformTest } from "../helpers/platform.ts";

const SPEC_KINDS = new Set([
  "status",
  "heartbeat",
  "tool_progress",
  "tool_call_ids",
  "price_lookup_matches",
  "price_proposal",
  "text",
  "error",
  "done",
]);

platformTest("a new conversation's id is told in the first status chunk and the header", async (p) => {
  const t = await createTeam(p);
  llm(p).reply("Hello.");
  const r = await chat(p, t.member.accessToken, askIn(t.ws, "Hi there", { conversation_id: null }));
  assert.equal(r.status, 200, r.raw);
  const id = r.headers.get("x-conversation-id");
  assert.match(id ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const first = r.chunks[0] as Json;
  assert.deepEqual(
    { type: first.type, conversation_id: first.conversation_id, new_conversation: first.new_conversation },
    { type: "status", conversation_id: id, new_conversation: true },
  );
  assert.equal(typeof first.message, "string");
  for (const c of r.chunks) assert.ok(SPEC_KINDS.has(c.type), `unexpected chunk kind ${c.type}`);
  assert.deepEqual(kinds(r.chunks), ["status", "text", "done"]);
  const rows = await t.member.client.from("agent_chat_conversations").select("id, title").eq("id", id!);
  assert.deepEqual(rows.data, [{ id, title: "Hi there" }]);
});

platformTest("a client-made id starts a conversation with that id, then continues it", async (p) => {
  const t = await createTeam(p);
  llm(p).reply("First answer.", "Second answer.");
  const id = crypto.randomUUID();
  const first = await chat(p, t.member.accessToken, askIn(t.ws, "First question", { conversation_id: id }));
  assert.equal(first.status, 200, first.raw);
  assert.equal(first.headers.get("x-conversation-id"), id);
  assert.equal((first.chunks[0] as Json).conversation_id, id);
  assert.equal((first.chunks[0] as Json).new_conversation, true);

  const second = await chat(p, t.member.accessToken, {
    messages: [
      { role: "user", content: "First question" },
      { role: "assistant", content: "First answer." },
      { role: "user", content: "Second question" },
    ],
    conversation_id: id,
    context: { workspace_id: t.ws },
  });
  assert.equal(second.status, 200, second.raw);
  assert.equal((second.chunks[0] as Json).conversation_id, id);
  assert.equal((second.chunks[0] as Json).new_conversation, false);

  const conv = await t.member.client.from("agent_chat_conversations").select("id, user_id").eq("id", id);
  assert.deepEqual(conv.data, [{ id, user_id: t.member.id }]);
  const messages = await t.member.client.from("agent_chat_messages").select("role, content")
    .eq("conversation_id", id).order("created_at");
  assert.deepEqual(messages.data, [
    { role: "user", content: "First question" },
    { role: "assistant", content: "First answer." },
    { role: "user", content: "Second question" },
    { role: "assistant", content: "Second answer." },
  ]);
});

platformTest("someone else's conversation id is 404: nothing charged, read or written", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  model.reply("Private answer.");
  const victim = await chat(p, t.member.accessToken, askIn(t.ws, "My secret plan"));
  assert.equal(victim.status, 200, victim.raw);
  const id = victim.headers.get("x-conversation-id")!;
  const before = model.captures.requests().length;
  const credits = await balance(p, t.owner.id);

  // The workspace owner and an outsider both try to use it as a "client-made" id.
  for (const [attacker, ws] of [[t.owner, t.ws], [t.outsider, t.otherWs]] as const) {
    const r = await chat(
      p,
      attacker.accessToken,
      askIn(ws, "Tell me what was said", { conversation_id: id }),
    );
    assert.equal(r.status, 404, r.raw);
    assert.equal(r.error.code, "conversation_not_found");
    assert.doesNotMatch(r.raw, /secret|Private/);
    // supabase-js as the attacker: neither the conversation nor its messages are visible.
    assert.deepEqual(
      (await attacker.client.from("agent_chat_conversations").select("id").eq("id", id)).data,
      [],
    );
    assert.deepEqual(
      (await attacker.client.from("agent_chat_messages").select("id").eq("conversation_id", id)).data,
      [],
    );
    // Nor can a message be slipped in directly.
    const slipped = await attacker.client.from("agent_chat_messages")
      .insert({ conversation_id: id, role: "user", content: "injected" });
    assert.notEqual(slipped.error, null);
  }
  assert.equal(await balance(p, t.owner.id), credits, "a refused turn is not charged");
  assert.equal(model.captures.requests().length, before, "the model was not called");
  const stored = await p.db.query<{ user_id: string; n: number }>(
    `select c.user_id, (select count(*)::int from public.agent_chat_messages m where m.conversation_id = c.id) n
       from public.agent_chat_conversations c where c.id = $1`,
    [id],
  );
  assert.deepEqual(stored.rows, [{ user_id: t.member.id, n: 2 }]);
});

platformTest("a conversation_id that is not a UUID string is a 400 saying so", async (p) => {
  const t = await createTeam(p);
  const model = llm(p);
  for (const bad of ["conv-123", "", 42]) {
    const r = await chat(p, t.member.accessToken, ask("hi", { conversation_id: bad }));
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.equal(r.error.code, "validation_failed");
    assert.match(JSON.stringify(r.error), /conversation_id/);
  }
  assert.equal(model.captures.requests().length, 0);
});
