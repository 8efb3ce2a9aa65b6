/** The NDJSON stream: framing, done is last, heartbeats, client cancel. */
import assert from "node:assert/strict";
import { decodeChunks, encodeChunk, NdjsonStream } from "../../../packages/shared/agent/stream.ts";

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

Deno.test("stream: one JSON object per line, no SSE framing, closed by done", async () => {
  const s = new NdjsonStream();
  assert.ok(s.send({ type: "status", message: "Starting" }));
  assert.ok(s.send({ type: "text", text: 'line one\nline two "quoted"' }));
  assert.ok(s.send({ type: "tool_call_ids", mapping: [{ tool_name: "price_lookup", log_id: "l1" }] }));
  assert.ok(s.send({ type: "done" }));
  assert.equal(s.send({ type: "text", text: "late" }), false, "nothing after done");
  const body = await readAll(s.readable);
  const lines = body.split("\n");
  assert.equal(lines.pop(), "", "every line ends with a newline");
  assert.equal(lines.length, 4);
  assert.ok(lines.every((l) => !l.startsWith("data:") && !l.startsWith("event:")));
  assert.deepEqual(lines.map((l) => JSON.parse(l).type), ["status", "text", "tool_call_ids", "done"]);
  assert.equal(JSON.parse(lines[1]).text, 'line one\nline two "quoted"');
  assert.deepEqual(decodeChunks(body).map((c) => c.type), ["status", "text", "tool_call_ids", "done"]);
  assert.equal(encodeChunk({ type: "done" }), '{"type":"done"}\n');
});

Deno.test("stream: heartbeats at the interval until done", async () => {
  const s = new NdjsonStream();
  let clock = 1000;
  s.startHeartbeat(20, () => clock++);
  s.startHeartbeat(20); // a second start is ignored
  await new Promise((r) => setTimeout(r, 110));
  s.send({ type: "done" });
  const chunks = decodeChunks(await readAll(s.readable));
  const beats = chunks.filter((c) => c.type === "heartbeat");
  assert.ok(beats.length >= 2 && beats.length <= 8, `${beats.length} heartbeats`);
  assert.deepEqual(beats.map((b) => b.type === "heartbeat" && b.timestamp), beats.map((_, i) => 1000 + i));
  assert.equal(chunks.at(-1)!.type, "done");
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(s.closed, true);
});

Deno.test("stream: a client cancel aborts the signal and stops writes", async () => {
  const s = new NdjsonStream();
  s.startHeartbeat(10);
  assert.equal(s.signal.aborted, false);
  await s.readable.cancel();
  assert.equal(s.signal.aborted, true);
  assert.equal(s.send({ type: "text", text: "x" }), false);
  assert.equal(s.send({ type: "done" }), false);
});
