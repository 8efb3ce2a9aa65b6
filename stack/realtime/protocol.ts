/**
 * The Phoenix channel wire format that supabase-js's realtime client speaks
 * (/work/shared/reference/realtime-protocol.md §2): vsn 1.0.0 sends JSON objects
 * `{topic, event, payload, ref, join_ref}`, vsn 2.0.0 (the default of current clients) JSON arrays
 * `[join_ref, ref, topic, event, payload]`, and under 2.0.0 a client's broadcast arrives as a
 * binary frame of kind 3. The server only ever sends text frames and binary kind 4 (the one
 * binary kind the client decodes).
 */
export interface Message {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

export type Vsn = "1.0.0" | "2.0.0";

export class ProtocolError extends Error {}

const KIND_USER_BROADCAST_PUSH = 3;
const KIND_USER_BROADCAST = 4;

function asPayload(v: unknown): Record<string, unknown> {
  if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  throw new ProtocolError("payload must be an object");
}

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** A text frame, in either serializer's shape. */
export function decodeText(text: string, vsn: Vsn): Message {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ProtocolError("frame is not JSON");
  }
  if (vsn === "2.0.0" && Array.isArray(v)) {
    if (v.length !== 5 || typeof v[2] !== "string" || typeof v[3] !== "string") {
      throw new ProtocolError("expected [join_ref, ref, topic, event, payload]");
    }
    return { joinRef: str(v[0]), ref: str(v[1]), topic: v[2], event: v[3], payload: asPayload(v[4]) };
  }
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o.topic !== "string" || typeof o.event !== "string") {
      throw new ProtocolError("expected {topic, event, payload, ref}");
    }
    return {
      joinRef: str(o.join_ref),
      ref: str(o.ref),
      topic: o.topic,
      event: o.event,
      payload: asPayload(o.payload ?? {}),
    };
  }
  throw new ProtocolError("unexpected frame shape");
}

/**
 * A binary frame: only kind 3, a client broadcast push:
 * u8 kind | u8 len(join_ref) | u8 len(ref) | u8 len(topic) | u8 len(event) | u8 len(metadata) |
 * u8 encoding (0 raw, 1 JSON) | join_ref | ref | topic | event | metadata | payload.
 */
export function decodeBinary(buf: Uint8Array): Message & { binaryPayload: Uint8Array; json: boolean } {
  if (buf.length < 7 || buf[0] !== KIND_USER_BROADCAST_PUSH) {
    throw new ProtocolError("unsupported binary frame");
  }
  const lens = [buf[1], buf[2], buf[3], buf[4], buf[5]];
  const encoding = buf[6];
  let at = 7;
  const dec = new TextDecoder("utf-8", { fatal: true });
  const take = (n: number) => {
    if (at + n > buf.length) throw new ProtocolError("truncated binary frame");
    const s = buf.subarray(at, at + n);
    at += n;
    return s;
  };
  try {
    const joinRef = dec.decode(take(lens[0]));
    const ref = dec.decode(take(lens[1]));
    const topic = dec.decode(take(lens[2]));
    const userEvent = dec.decode(take(lens[3]));
    take(lens[4]); // metadata: empty with the default serializer
    const rest = buf.subarray(at);
    let inner: unknown = null;
    if (encoding === 1) inner = rest.length ? JSON.parse(dec.decode(rest)) : null;
    return {
      joinRef: joinRef || null,
      ref: ref || null,
      topic,
      event: "broadcast",
      payload: { type: "broadcast", event: userEvent, payload: inner },
      binaryPayload: rest,
      json: encoding === 1,
    };
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    throw new ProtocolError(`bad binary frame: ${(err as Error).message}`);
  }
}

/** A text frame for the client. */
export function encode(m: Message, vsn: Vsn): string {
  if (vsn === "2.0.0") return JSON.stringify([m.joinRef, m.ref, m.topic, m.event, m.payload]);
  return JSON.stringify({ topic: m.topic, event: m.event, payload: m.payload, ref: m.ref });
}

/**
 * A user broadcast as binary kind 4 (vsn 2.0.0):
 * u8 kind | u8 len(topic) | u8 len(event) | u8 len(metadata) | u8 encoding | topic | event | metadata | payload.
 */
export function encodeBroadcastBinary(
  topic: string,
  event: string,
  payload: Uint8Array,
  json: boolean,
): Uint8Array {
  const enc = new TextEncoder();
  const t = enc.encode(topic);
  const e = enc.encode(event);
  const meta = new Uint8Array(0);
  if (t.length > 255 || e.length > 255) throw new ProtocolError("topic or event longer than 255 bytes");
  const out = new Uint8Array(5 + t.length + e.length + meta.length + payload.length);
  out.set([KIND_USER_BROADCAST, t.length, e.length, meta.length, json ? 1 : 0], 0);
  out.set(t, 5);
  out.set(e, 5 + t.length);
  out.set(payload, 5 + t.length + e.length + meta.length);
  return out;
}

/** The id the server gives a postgres_changes binding: stable for the same params (like phash2). */
export function bindingId(params: Record<string, unknown>): number {
  const canon = JSON.stringify(Object.keys(params).sort().map((k) => [k, params[k]]));
  let h = 0x811c9dc5;
  for (let i = 0; i < canon.length; i++) {
    h ^= canon.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % 134217728; // phash2's range: 0 .. 2^27 - 1
}
