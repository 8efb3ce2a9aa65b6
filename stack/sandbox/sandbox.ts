/**
 * The provider sandbox: one HTTP server on 127.0.0.1 carrying every stand-in under its name
 * (/anthropic/v1/messages ...), or on a port of its own for those that need one, plus an inbox
 * page listing what each stand-in received and sent, newest first (GET /), its JSON
 * (GET /_captures), a clear button (POST /_clear) and the landing pages redirects reach when no
 * SITE_URL is configured (GET /_site/..., landing.ts). Tests reach it as `platform.sandbox` to
 * script the stand-ins and read their captures.
 *
 * The model stand-ins (anthropic, openai) are scriptable over HTTP and have a viewer of their own:
 * - POST /_models/script  {provider: "anthropic"|"openai", model?, replies: [reply, ...]} queues
 *   replies (model_script.ts: {text}, {tool_call: {name, input} or a list}, {malformed: true |
 *   "text"}, {error: {status, message?}}, each with an optional latency_ms; a reply naming a model
 *   goes only to a request for that model); 201 {provider, model, queued, pending}; 400 {error}
 *   naming the problem. The page's form posts the same endpoint form-encoded (303 back).
 * - GET /_models/script lists what is queued per provider; DELETE /_models/script[?provider=]
 *   clears it ({cleared: {provider: n}}); POST /_models/script/clear does so from the page's form.
 * - GET /_models/calls[?provider=] the model calls answered, newest first, with a cost estimate;
 *   GET /_models/calls/<id> one of them; GET /_models the viewer page (?call=<id> opens one), also
 *   shown on the inbox page.
 */
import type { Captured } from "./capture.ts";
import { renderInbox } from "./inbox.ts";
import { renderLanding, SITE_PREFIX } from "./landing.ts";
import { type ModelCall, priced } from "./providers/model_calls.ts";
import { ModelStandIn } from "./providers/model_standin.ts";
import { parseScriptRequest, ScriptError, scriptFromForm } from "./providers/model_script.ts";
import { type ModelViewerView, renderModelsPage, renderModelViewer } from "./providers/model_viewer.ts";
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
      standIn.baseUrl = `${sandbox.url}/${def.name}${def.basePath ?? ""}`;
      if (def.ownServer) {
        const own = Deno.serve(
          { hostname, port: opts.ownPorts?.[def.name] ?? 0, signal: abort.signal, onListen: () => {} },
          (req) => standIn.serve(req, new URL(req.url).pathname),
        );
        sandbox.#servers.push(own);
        standIn.baseUrl = `http://${hostname}:${own.addr.port}${def.basePath ?? ""}`;
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

  /** The stand-ins that answer model calls (anthropic, openai). */
  modelStandIns(): ModelStandIn[] {
    return this.entries().map((e) => e.standIn).filter((s): s is ModelStandIn => s instanceof ModelStandIn);
  }

  /** Every model call answered (of every model stand-in, or of one), newest first. */
  modelCalls(provider?: string): ModelCall[] {
    return this.modelStandIns()
      .filter((s) => !provider || s.name === provider)
      .flatMap((s) => s.calls.all())
      .sort((a, b) => b.id - a.id);
  }

  #modelView(query: URLSearchParams): ModelViewerView {
    const call = query.get("call");
    return {
      calls: this.modelCalls(),
      selected: call === null || !/^\d+$/.test(call) ? null : Number(call),
      queued: Object.fromEntries(this.modelStandIns().map((s) => [s.name, s.script.list()])),
    };
  }

  /** POST /_models/script, as JSON or from the page's form. */
  async #script(req: Request): Promise<Response> {
    const form = (req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
    const models = this.modelStandIns();
    try {
      let body: unknown;
      if (form) body = scriptFromForm(new URLSearchParams(await req.text()));
      else {
        const text = await req.text();
        try {
          body = JSON.parse(text);
        } catch (_) {
          throw new ScriptError("body: must be JSON {provider, model?, replies}");
        }
      }
      const script = parseScriptRequest(body, models.map((s) => s.name));
      const standIn = models.find((s) => s.name === script.provider)!;
      if (script.model && !standIn.servesModel(script.model)) {
        throw new ScriptError(`model: the ${script.provider} stand-in does not serve ${script.model}`);
      }
      standIn.script.push(...script.replies);
      if (form) return new Response(null, { status: 303, headers: { location: "/_models" } });
      return Response.json({
        provider: script.provider,
        model: script.model ?? null,
        queued: script.replies.length,
        pending: standIn.script.list(),
      }, { status: 201 });
    } catch (err) {
      if (!(err instanceof ScriptError)) throw err;
      return Response.json({ error: err.message }, { status: 400 });
    }
  }

  #clearScripts(provider: string | null): Response {
    const models = this.modelStandIns().filter((s) => !provider || s.name === provider);
    if (provider && !models.length) {
      return Response.json({ error: `provider: no model stand-in named "${provider}"` }, { status: 400 });
    }
    return Response.json({ cleared: Object.fromEntries(models.map((s) => [s.name, s.script.clear()])) });
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
        models: !provider || this.modelStandIns().some((s) => s.name === provider)
          ? renderModelViewer(this.#modelView(url.searchParams))
          : undefined,
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
      for (const s of this.modelStandIns()) s.calls.clear();
      return new Response(null, { status: 303, headers: { location: "/" } });
    }
    if (path === "/_models" && req.method === "GET") {
      return new Response(renderModelsPage(this.#modelView(url.searchParams)), {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    if (path === "/_models/calls" && req.method === "GET") {
      return Response.json(this.modelCalls(url.searchParams.get("provider") ?? undefined).map(priced));
    }
    const callId = /^\/_models\/calls\/(\d+)$/.exec(path)?.[1];
    if (callId && req.method === "GET") {
      const call = this.modelCalls().find((c) => c.id === Number(callId));
      return call
        ? Response.json(priced(call))
        : Response.json({ error: `no model call with id ${callId}` }, { status: 404 });
    }
    if (path === "/_models/script") {
      if (req.method === "POST") return await this.#script(req);
      if (req.method === "GET") {
        return Response.json(Object.fromEntries(this.modelStandIns().map((s) => [s.name, s.script.list()])));
      }
      if (req.method === "DELETE") return this.#clearScripts(url.searchParams.get("provider"));
      await req.body?.cancel();
      return Response.json({ error: `${req.method} /_models/script: use GET, POST or DELETE` }, {
        status: 405,
        headers: { allow: "GET, POST, DELETE" },
      });
    }
    if (path === "/_models/script/clear" && req.method === "POST") {
      await req.body?.cancel();
      for (const s of this.modelStandIns()) s.script.clear();
      return new Response(null, { status: 303, headers: { location: "/_models" } });
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
