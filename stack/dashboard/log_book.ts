/**
 * The platform's log kept for the dashboard: every line `deno task start` prints through the
 * platform's `log` (the gateway's request lines, gateway.ts requestLine, the AI backend's, which
 * its part writes in the same form, and the workers' and the functions router's lines, which name
 * `(request <id>)`), parsed, and the console output of functions and the AI backend per request
 * (`console`, given to startPlatform as `functionConsole`). Kept in memory only, newest last,
 * bounded (the last MAX of each), so a restart starts empty. The dashboard's Functions page reads
 * the invocations (request lines of `functions/<name>` and `ai-backend`) and, per request id, the
 * lines that name it.
 */
import type { ConsoleLine } from "../functions/console_capture.ts";
import type { RequestLine } from "../gateway.ts";

/** One request as the gateway logged it (gateway.ts RequestLine), with the time it was seen. */
export type Invocation = RequestLine & { time: string };

export interface LogLine {
  time: string;
  requestId: string | null;
  /** `platform` for the platform's own lines; `console.<level>` for what the code printed. */
  kind: string;
  /** The function's name or `ai-backend` for console lines; null for platform lines. */
  source: string | null;
  line: string;
}

const REQUEST_LINE =
  /^(?:ERROR )?(\S+) (\S+) (\S+) (\S+) (\d{3}) (\d+)ms req=(\S+) caller=(\S+)(?: error="(.*)")?$/;
const REQUEST_ID = /\(request ([0-9A-Za-z-]+)\)|req=([0-9A-Za-z-]+)/;
const MAX = 5000;

export class LogBook {
  readonly invocations: Invocation[] = [];
  readonly lines: LogLine[] = [];

  /** A `log` for startPlatform: records the line (and nothing else). */
  add = (line: string): void => {
    const m = line.match(REQUEST_LINE);
    if (m) {
      this.invocations.push({
        time: m[1],
        surface: m[2],
        method: m[3],
        path: m[4],
        status: Number(m[5]),
        ms: Number(m[6]),
        requestId: m[7],
        caller: m[8],
        error: m[9] ?? null,
      });
      if (this.invocations.length > MAX) this.invocations.shift();
    }
    const id = line.match(REQUEST_ID);
    this.#line({ requestId: id ? id[1] ?? id[2] : null, kind: "platform", source: null, line });
  };

  /** A `functionConsole` for startPlatform: one console call made while serving a request. */
  console = (c: ConsoleLine): void => {
    this.#line({ requestId: c.requestId, kind: `console.${c.level}`, source: c.source, line: c.text });
  };

  #line(l: Omit<LogLine, "time">): void {
    this.lines.push({ time: new Date().toISOString(), ...l });
    if (this.lines.length > MAX) this.lines.shift();
  }

  /** The invocations of function `name`, newest first. */
  invocationsOf(name: string): Invocation[] {
    return this.onSurface(`functions/${name}`);
  }

  /** The request lines of a surface (`ai-backend`, `functions/<name>` ...), newest first. */
  onSurface(surface: string): Invocation[] {
    return this.invocations.filter((i) => i.surface === surface).reverse();
  }

  /** The lines naming request `id`, oldest first. */
  linesOf(id: string): LogLine[] {
    return this.lines.filter((l) => l.requestId === id);
  }
}
