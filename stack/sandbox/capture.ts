/**
 * What a stand-in received (and the callbacks it sent): method, path, headers with secrets
 * masked, the decoded body and the status it answered, kept newest last and bounded, so tests
 * can assert on what our code sent and the inbox page can show it.
 */

export interface Captured {
  /** Increasing across the whole sandbox. */
  id: number;
  provider: string;
  /** "in": a request our code sent to the stand-in; "out": a callback the stand-in sent us. */
  direction: "in" | "out";
  /** ISO 8601. */
  time: string;
  method: string;
  /** Path below the stand-in's base URL (in), or the callback URL's path (out). */
  path: string;
  query: Record<string, string>;
  /** The callback's full URL (out only). */
  url?: string;
  /** Lower-cased names; secret values replaced by "[redacted]". */
  headers: Record<string, string>;
  /** Parsed JSON, a form as an object, text, or null when empty. */
  body: unknown;
  /** Response status, once known. */
  status?: number;
  /** Milliseconds until the response started. */
  durationMs?: number;
  /** Answered by an injected fault instead of the stand-in's API. */
  fault?: boolean;
  /**
   * Model stand-ins: where the answer came from, always the sandbox: "scripted" (a queued reply),
   * "injected" (failNext) or the sandbox model's rule (model_brain.ts).
   */
  rule?: string;
}

/** Keeps the bodies of big uploads from filling memory in a long `deno task start`. */
const MAX_BODY_CHARS = 256 * 1024;
const MAX_ENTRIES = 1000;

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|apikey)$/;
const SECRET_WORD = /secret|token|password|api-?key/;

export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    out[name] = SECRET_HEADER.test(name) || SECRET_WORD.test(name) ? "[redacted]" : value;
  }
  return out;
}

/** Decodes a body the way the inbox and tests want to read it. */
export function decodeBody(text: string, contentType: string | null): unknown {
  if (text === "") return null;
  const clipped = text.length > MAX_BODY_CHARS
    ? `${text.slice(0, MAX_BODY_CHARS)}... [${text.length - MAX_BODY_CHARS} more characters]`
    : text;
  const type = contentType?.split(";")[0].trim().toLowerCase() ?? "";
  if (type === "application/json" || type.endsWith("+json")) {
    try {
      return JSON.parse(text);
    } catch (_) {
      // Not JSON after all: the raw text is what was sent, and that is what to show.
      return clipped;
    }
  }
  if (type === "application/x-www-form-urlencoded") {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return clipped;
}

let nextId = 1;

export class CaptureLog {
  readonly #entries: Captured[] = [];
  readonly #waiters = new Set<() => void>();

  add(entry: Omit<Captured, "id">): Captured {
    const captured = { id: nextId++, ...entry };
    this.#entries.push(captured);
    if (this.#entries.length > MAX_ENTRIES) this.#entries.shift();
    for (const wake of this.#waiters) wake();
    return captured;
  }

  /** Oldest first. */
  all(): Captured[] {
    return [...this.#entries];
  }

  /** What our code sent to the stand-in, oldest first. */
  requests(): Captured[] {
    return this.#entries.filter((e) => e.direction === "in");
  }

  last(): Captured | undefined {
    return this.#entries.at(-1);
  }

  clear(): void {
    this.#entries.length = 0;
  }

  /** Resolves with the first capture (present or future) that matches, or rejects after timeoutMs. */
  waitFor(match: (c: Captured) => boolean, timeoutMs = 5000): Promise<Captured> {
    const found = this.#entries.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.#entries.find(match);
        if (!hit) return;
        done();
        resolve(hit);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no matching capture within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
    });
  }
}
