/**
 * /functions/v1: the edge runtime's main service. `/functions/v1/<name>/...` runs
 * supabase/functions/<name>/app.ts (the Hono app that index.ts serves in production) with the
 * request path `/<name>/...`, as Kong strips `/functions/v1` before the runtime sees it.
 * verify_jwt comes from supabase/config.toml (default true); OPTIONS is never blocked.
 * Responses and errors follow supabase/cli's serve main.ts.
 */
import { bearerToken, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import { runWithEnv } from "@shared/env.ts";
import { rebuildRequest } from "../gateway.ts";
import { type FunctionConfig, readProjectConfig } from "../project_config.ts";

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** `[functions.<name>]` blocks of supabase/config.toml; undeclared functions get the defaults. */
export async function readFunctionConfigs(rootDir: string): Promise<Map<string, FunctionConfig>> {
  return (await readProjectConfig(rootDir)).functions;
}

type FetchApp = { fetch: (req: Request) => Response | Promise<Response> };

/**
 * The router's own answers (401 before the function runs, 404, boot errors) carry CORS like the
 * function's would, so a browser sees "sign in again" rather than a CORS failure.
 */
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
  });

export interface RouterOptions {
  rootDir: string;
  jwtSecret: string;
  /** The functions' environment (read at call time, so parts may still add to it). */
  env?: Record<string, string>;
  /** supabase/config.toml's [functions.*] blocks, when the caller has read them already. */
  functions?: Map<string, FunctionConfig>;
}

export async function createFunctionsRouter(opts: RouterOptions) {
  const configs = opts.functions ?? await readFunctionConfigs(opts.rootDir);
  const loaded = new Map<string, Promise<FetchApp>>();
  const functionsDir = `${opts.rootDir}/supabase/functions`;

  // A function folder found once stays found; missing names are looked up again, so a function
  // added while the platform runs is served without a restart.
  const present = new Set<string>();
  const exists = async (name: string) => {
    if (present.has(name)) return true;
    try {
      if (!(await Deno.stat(`${functionsDir}/${name}/app.ts`)).isFile) return false;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
    present.add(name);
    return true;
  };

  const load = (name: string): Promise<FetchApp> => {
    let p = loaded.get(name);
    if (!p) {
      p = import(`file://${functionsDir}/${name}/app.ts`).then((mod) => {
        const app = mod.default as FetchApp | undefined;
        if (!app || typeof app.fetch !== "function") {
          throw new Error(`supabase/functions/${name}/app.ts must export default an app with fetch()`);
        }
        return app;
      });
      loaded.set(name, p);
      p.catch(() => loaded.delete(name));
    }
    return p;
  };

  /** `req` has the gateway path; `rest` is the part after /functions/v1. */
  return async function handle(req: Request, rest: string): Promise<Response> {
    const name = rest.split("/")[1] ?? "";
    const config = configs.get(name) ?? { enabled: true, verifyJwt: true };
    if (!NAME_RE.test(name) || !config.enabled || !(await exists(name))) {
      return json(404, { code: "NOT_FOUND", message: "Requested function was not found" });
    }
    if (config.verifyJwt && req.method !== "OPTIONS") {
      const header = req.headers.get("authorization");
      const token = bearerToken(header);
      if (!token) return json(401, { msg: "Error: Missing authorization header" });
      try {
        await verifyJwt(token, opts.jwtSecret);
      } catch (err) {
        if (err instanceof JwtError) return json(401, { msg: "Invalid JWT" });
        throw err;
      }
    }
    let app: FetchApp;
    try {
      app = await load(name);
    } catch (err) {
      console.error(`functions: ${name} failed to boot`, err);
      return json(503, { code: "BOOT_ERROR", message: "Worker failed to boot (please check logs)" });
    }
    const url = new URL(req.url);
    url.pathname = rest;
    const inner = rebuildRequest(req, url);
    try {
      const res = await runWithEnv(opts.env ?? {}, () => app.fetch(inner));
      if (!(res instanceof Response)) {
        return json(500, { code: "WORKER_ERROR", message: "Function returned an invalid response" });
      }
      return res;
    } catch (err) {
      console.error(`functions: ${name} threw`, err);
      return json(500, {
        code: "Internal Server Error",
        message: "Request failed due to an internal server error",
      });
    }
  };
}
