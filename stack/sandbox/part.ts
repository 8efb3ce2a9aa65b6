/**
 * The sandbox as a platform part: serves the stand-ins (on DEFAULT_SANDBOX_PORT, or a free port
 * when the platform itself runs on one, as in tests), points code at the stand-in of every
 * provider without a real key through the variables the official SDKs read, and lists the inbox
 * in the status block. In-memory platforms are test platforms and never reach a real provider,
 * whatever keys the shell has.
 */
import { DEFAULT_SANDBOX_PORT } from "../config.ts";
import type { PlatformPart } from "../part.ts";
import { Sandbox } from "./sandbox.ts";

/**
 * Points the platform's function environment (platform.env, which the router scopes to every
 * function call) at the stand-in of every provider without a real key in the process
 * environment; hermetic platforms (tests) point every provider at its stand-in whatever the shell
 * has. The process environment itself is never written: one process may run several platforms.
 */
export function pointEnvironment(
  sandbox: Sandbox,
  target: Record<string, string>,
  hermetic: boolean,
  platformUrl?: string,
): void {
  for (const { def, standIn } of sandbox.entries()) {
    const key = Deno.env.get(def.keyEnv);
    const realKey = !!key && key !== def.placeholderKey;
    if (realKey && !hermetic) continue;
    target[def.baseUrlEnv] = standIn.baseUrl;
    target[def.keyEnv] = def.placeholderKey;
    if (def.connect && platformUrl !== undefined) Object.assign(target, def.connect(standIn, platformUrl));
    sandbox.markSandboxed(def.name, true);
  }
}

function sandboxPort(apiPort: number): number {
  const fromEnv = Deno.env.get("SUPABASE_LOCAL_SANDBOX_PORT");
  if (fromEnv !== undefined) {
    const port = Number(fromEnv);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new Error(`invalid SUPABASE_LOCAL_SANDBOX_PORT: ${fromEnv}`);
    }
    return port;
  }
  return apiPort === 0 ? 0 : DEFAULT_SANDBOX_PORT;
}

export const sandboxPart: PlatformPart = {
  name: "sandbox",
  start(p) {
    const sandbox = Sandbox.start({ hostname: p.config.hostname, port: sandboxPort(p.config.apiPort) });
    pointEnvironment(sandbox, p.env, p.config.dataDir === null, p.url);
    p.sandbox = sandbox;
    p.extraUrls["Sandbox inbox"] = `${sandbox.url}/`;
    return Promise.resolve({
      async stop() {
        await sandbox.stop();
      },
    });
  },
};
