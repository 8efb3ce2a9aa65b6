/**
 * A function's console output, per request: what hosted Supabase shows as a function's logs.
 * `captureConsole()` wraps console.log/info/warn/error/debug once per process or Worker: output
 * is printed as before (with an optional prefix, `[<name>]` in a Worker) and, when the call runs
 * inside `withConsoleSink(sink, ...)` (an AsyncLocalStorage scope, so every continuation of the
 * request counts, `EdgeRuntime.waitUntil` work included, also when several platforms share a
 * test process), is handed to that sink as one line of text. Calls outside any scope (module top
 * level, other services in the process) are only printed.
 *
 * The router (router.ts) scopes every function request, in-process and in its Worker
 * (worker_host.ts posts the lines back); the AI backend's part (../ai-backend/part.ts) scopes its
 * requests. The sink is `StartOptions.functionConsole` (the dashboard's LogBook).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export const CONSOLE_LEVELS = ["log", "info", "warn", "error", "debug"] as const;
export type ConsoleLevel = typeof CONSOLE_LEVELS[number];

/** One console call made while serving a request. */
export interface ConsoleLine {
  /** The function's name, or `ai-backend`. */
  source: string;
  /** The request's x-request-id (the gateway's), null when it came without one. */
  requestId: string | null;
  level: ConsoleLevel;
  text: string;
}

export type ConsoleSink = (level: ConsoleLevel, text: string) => void;

/** A line is cut here: a function logging a whole document should not fill the log. */
const MAX_TEXT = 4000;
const scope = new AsyncLocalStorage<ConsoleSink>();
const WRAPPED = Symbol.for("local-platform.console-captured");

/** Runs `fn` with its console output (and that of everything it starts) going to `sink` too. */
export function withConsoleSink<T>(sink: ConsoleSink, fn: () => T): T {
  return scope.run(sink, fn);
}

/** The text console would print for `args` (no colours). */
export function consoleText(args: unknown[]): string {
  const text = args.map((a) => typeof a === "string" ? a : Deno.inspect(a, { colors: false, depth: 4 }))
    .join(" ");
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (${text.length} characters)` : text;
}

/** Wraps the console once in this realm; `prefix` is printed before every line (not captured). */
export function captureConsole(prefix?: string): void {
  const c = console as Console & { [WRAPPED]?: boolean };
  if (c[WRAPPED]) return;
  c[WRAPPED] = true;
  for (const level of CONSOLE_LEVELS) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      if (prefix) original(prefix, ...args);
      else original(...args);
      scope.getStore()?.(level, consoleText(args));
    };
  }
}
