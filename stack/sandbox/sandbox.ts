/**
 * The provider sandbox: one HTTP server on 127.0.0.1 carrying every stand-in under its name
 * (/anthropic/v1/messages ...), or on a port of its own for those that need one, plus an inbox
 * page listing what each stand-in received and sent, newest first (GET /), its JSON
 * (GET /_captures), a clear button (POST /_clear) and the landing pages redirects reach when no
 * SITE_URL is configured (GET /_site/..., landing.ts). Tests reach it as `platform.sandbox` to
 * script the stand-ins and read their captures.
 */
import type { Captured } from "./capture.ts";
import { renderInbox } from "./inbox.ts";
import { renderLanding, SITE_PREFIX } from "./landing.ts";
import { type ProviderDefinition, PROVIDERS, type StandInEntry, type StandIns } from "./registry.ts";
import type { StandIn } from "./standin.ts";

export type { StandInEntry } from "./registry.ts";

export interface SandboxOptions {
  hostname?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  /** Ports of the stand-ins that serve on their own port (`ownServer`), by name; 0 or absent: free. */
  ownPorts?: Record<string, number>;
  providers?: ProviderDefinition[];
}

export class Sandbox {
  readonly url: string;
  readonly #entries = new Map<string, StandInEntry>();
  readonly #servers: Deno.HttpServer[] = [];
  readonly #abort: AbortController;

  private constructor(url: string, abort: AbortController) {
    this.url = url;
    this.#abort = abort;
  }

  static start(opts: SandboxOptions = {}): Sandbox {
    const hostname = opts.hostname ?? "127.0.0.1";
    const abort = new AbortController();
    let sandbox: Sandbox | null = null;
    const server = Deno.serve(
      { hostname, port: opts.port ?? 0, signal: abort.signal, onListen: () => {} },
      (req) => sandbox!.fetch(req),
    );
    sandbox = new Sandbox(`http://${hostname}:${server.addr.port}`, abort);
    sandbox.#servers.push(server);
    for (const def of opts.providers ?? PROVIDERS) {
      const standIn = def.create();
      standIn.baseUrl = `${sandbox.url}/${def.name}`;
      if (def.ownServer) {
        const own = Deno.serve(
          { hostname, port: opts.ownPorts?.[def.name] ?? 0, signal: abort.signal, onListen: () => {} },
          (req) => standIn.serve(req, new URL(req.url).pathname),
        );
        sandbox.#servers.push(own);
        standIn.baseUrl = `http://${hostname}:${own.addr.port}`;
      }
      sandbox.#entries.set(def.name, { def, standIn, sandboxed: false });
    }
    return sandbox;
  }

  /** The web app's stand-in: what SITE_URL is when none is configured. */
  get siteUrl(): string {
    return `${this.url}${SITE_PREFIX}`;
  }

  get<K extends keyof StandIns>(name: K): StandIns[K];
  get(name: string): StandIn;
  get(name: string): StandIn {
    const entry = this.#entries.get(name);
    if (!entry) throw new Error(`the sandbox has no stand-in named ${name}`);
    return entry.standIn;
  }

  entries(): StandInEntry[] {
    return [...this.#entries.values()];
  }

  /** Records that code is pointed at the stand-in (shown on the inbox page). */
  markSandboxed(name: string, sandboxed: boolean): void {
    const entry = this.#entries.get(name);
    if (entry) entry.sandboxed = sandboxed;
  }

  /** Every capture of every stand-in (or of one), newest first. */
  captures(provider?: string): Captured[] {
    return this.entries()
      .filter((e) => !provider || e.def.name === provider)
      .flatMap((e) => e.standIn.captures.all())
      .sort((a, b) => b.id - a.id);
  }

  /** Forgets every capture and script, e.g. between tests. */
  reset(): void {
    for (const e of this.#entries.values()) e.standIn.reset();
  }

  fetch = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname;
    if (path === "/" && req.method === "GET") {
      const provider = url.searchParams.get("provider");
      const page = renderInbox({
        entries: this.entries(),
        captures: this.captures(provider ?? undefined),
        provider,
        query: url.searchParams,
      });
      return new Response(page, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    if ((path === SITE_PREFIX || path.startsWith(`${SITE_PREFIX}/`)) && req.method === "GET") {
      const page = renderLanding(path.slice(SITE_PREFIX.length) || "/", url.searchParams, this.entries());
      return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    if (path === "/_captures" && req.method === "GET") {
      return Response.json(this.captures(url.searchParams.get("provider") ?? undefined));
    }
    if (path === "/_clear" && req.method === "POST") {
      for (const e of this.#entries.values()) e.standIn.captures.clear();
      return new Response(null, { status: 303, headers: { location: "/" } });
    }
    const name = path.split("/")[1];
    const entry = this.#entries.get(name);
    if (!entry) {
      await req.body?.cancel();
      return Response.json({ error: `the sandbox has no stand-in named "${name}"` }, { status: 404 });
    }
    return await entry.standIn.serve(req, path.slice(name.length + 1) || "/");
  };

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#servers.map((s) => s.finished));
  }
}
