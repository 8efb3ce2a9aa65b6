/**
 * The agent-chat response stream: newline-delimited JSON (application/x-ndjson), one raw JSON
 * object per line, no SSE framing (the origin platform sent NDJSON labelled text/event-stream).
 *
 * Chunk kinds are the spec's Events table (status, heartbeat, tool_progress, tool_call_ids,
 * price_lookup_matches, price_proposal, text, done) plus one of ours, `error` {code, message},
 * sent before `done` when a turn fails after the stream has started (the HTTP status is already
 * 200 by then). `done` is always the last line, and nothing is written after it.
 */
import type { PriceLookupHints, PriceMatch, PriceProposal } from "../pricing/mod.ts";

export type AgentChunk =
  // The first status names the turn's conversation (chat.ts); later ones carry only a message.
  | { type: "status"; message: string; conversation_id?: string; new_conversation?: boolean }
  | { type: "heartbeat"; timestamp: number }
  | { type: "tool_progress"; status: string; tool_name: string }
  | { type: "tool_call_ids"; mapping: { tool_name: string; log_id: string }[] }
  | { type: "price_lookup_matches"; matches: PriceMatch[]; hints: PriceLookupHints }
  | PriceProposal
  | { type: "text"; text: string }
  | { type: "error"; code: string; message: string }
  | { type: "done" };

export const NDJSON_CONTENT_TYPE = "application/x-ndjson; charset=utf-8";

/** One line of the stream. JSON.stringify never emits a raw newline, so a line is a chunk. */
export function encodeChunk(chunk: AgentChunk): string {
  return JSON.stringify(chunk) + "\n";
}

/** Splits an NDJSON body into chunks (clients and tests). */
export function decodeChunks(body: string): AgentChunk[] {
  return body.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
}

export class NdjsonStream {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #encoder = new TextEncoder();
  #closed = false;
  #heartbeat: ReturnType<typeof setInterval> | null = null;
  #abort = new AbortController();

  constructor() {
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      // The client went away: stop the heartbeat and tell the work to stop (signal).
      cancel: () => {
        this.#closed = true;
        this.#stopHeartbeat();
        this.#abort.abort(new DOMException("The client closed the stream", "AbortError"));
      },
    });
  }

  /** Aborted when the client cancels the response body. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes one chunk; false when the stream is already closed (the chunk is dropped). */
  send(chunk: AgentChunk): boolean {
    if (this.#closed) return false;
    this.#controller.enqueue(this.#encoder.encode(encodeChunk(chunk)));
    if (chunk.type === "done") this.#finish();
    return true;
  }

  /** Sends a heartbeat every `intervalMs` until done or cancel, so idle proxies keep the line. */
  startHeartbeat(intervalMs: number, now: () => number = Date.now): void {
    if (this.#heartbeat !== null || this.#closed) return;
    this.#heartbeat = setInterval(() => this.send({ type: "heartbeat", timestamp: now() }), intervalMs);
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }

  #finish(): void {
    this.#closed = true;
    this.#stopHeartbeat();
    this.#controller.close();
  }
}
