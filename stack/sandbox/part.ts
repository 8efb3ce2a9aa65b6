/**
 * The sandbox as a platform part: serves the stand-ins (on DEFAULT_SANDBOX_PORT, or a free port
 * when the platform itself runs on one, as in tests), points code at the stand-in of every
 * provider without a real key through the variables the official SDKs read, and lists the inbox
 * in the status block. In-memory platforms are test platforms and never reach a real provider,
 * whatever keys the shell has.
 *
 * Outside tools (the Stripe CLI, a svix or twilio script, curl) can sign what they send to the
 * webhook functions: each stand-in's signing secret (STRIPE_WEBHOOK_SECRET, RESEND_WEBHOOK_SECRET,
 * TWILIO_AUTH_TOKEN, LATE_WEBHOOK_SECRET) is the configured one (the process environment outside
 * tests, then supabase/functions/.env), else the one kept in <data folder>/sandbox_secrets.json,
 * else made up (and kept there); the stand-in signs with it, code verifies with it, and the status
 * block prints it with the Stripe stand-in's URL. Without a configured SITE_URL, code's redirects
 * (checkout success/cancel, social OAuth) land on the sandbox's pages (/_site/..., landing.ts).
 */
import { DEFAULT_SANDBOX_PORT, DEFAULT_STRIPE_PORT } from "../config.ts";
import type { Platform, PlatformPart } from "../part.ts";
import { Sandbox } from "./sandbox.ts";
import type { AnthropicStandIn } from "./providers/anthropic.ts";

/** Where made-up secrets are kept, in the data folder. */
export const SECRETS_FILE = "sandbox_secrets.json";

/**
 * Points the platform's function environment (platform.env, which the router scopes to every
 * function call) at the stand-in of every provider without a real key in the process
 * environment; hermetic platforms (tests) point every provider at its stand-in whatever the shell
 * has. The process environment itself is never written: one process may run several platforms.
 * Each such stand-in gets its secret (ProviderDefinition.secret): configured (the process
 * environment unless hermetic, then what target already holds from supabase/functions/.env),
 * else `kept`, else the stand-in's own. Returns the secrets that were not configured.
 */
export function pointEnvironment(
  sandbox: Sandbox,
  target: Record<string, string>,
  hermetic: boolean,
  platformUrl?: string,
  kept: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const madeUp: Record<string, string> = {};
  for (const { def, standIn } of sandbox.entries()) {
    const key = Deno.env.get(def.keyEnv);
    const realKey = !!key && key !== def.placeholderKey;
    if (realKey && !hermetic) continue;
    // The secret: configured (target holds supabase/functions/.env), else kept, else the stand-in's own.
    const secret = def.secret;
    const configured = secret && ((hermetic ? undefined : Deno.env.get(secret.env)) || target[secret.env]);
    if (secret) {
      const value = configured || kept[secret.env] || secret.get(standIn);
      secret.set(standIn, value);
      if (!configured) madeUp[secret.env] = value;
    }
    target[def.baseUrlEnv] = standIn.baseUrl;
    target[def.keyEnv] = def.placeholderKey;
    if (def.connect && platformUrl !== undefined) Object.assign(target, def.connect(standIn, platformUrl));
    if (secret) target[secret.env] = secret.get(standIn);
    sandbox.markSandboxed(def.name, true);
  }
  return madeUp;
}

async function readKept(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return {};
    throw err;
  }
  const kept = JSON.parse(text);
  if (!kept || typeof kept !== "object" || Array.isArray(kept)) {
    throw new Error(`${file} is not a JSON object of secrets (delete it to make new ones)`);
  }
  return kept;
}

/**
 * Wires a started sandbox to a platform: points code at the stand-ins (pointEnvironment), gives
 * them their secrets (made-up ones kept in the data folder, so restarts keep them), sends
 * redirects to the sandbox's pages when no SITE_URL is configured, and adds the status lines.
 */
export async function connectSandbox(
  sandbox: Sandbox,
  p: Pick<Platform, "config" | "env" | "extraUrls" | "url">,
): Promise<void> {
  const hermetic = p.config.dataDir === null;
  const file = hermetic ? null : `${p.config.dataDir}/${SECRETS_FILE}`;
  const kept = file ? await readKept(file) : {};
  const siteConfigured = (!hermetic && Deno.env.get("SITE_URL")) || p.env.SITE_URL;
  const madeUp = pointEnvironment(sandbox, p.env, hermetic, p.url, kept);
  if (file && Object.entries(madeUp).some(([k, v]) => kept[k] !== v)) {
    await Deno.mkdir(p.config.dataDir!, { recursive: true });
    await Deno.writeTextFile(file, JSON.stringify({ ...kept, ...madeUp }, null, 2) + "\n", { mode: 0o600 });
  }
  if (!siteConfigured) p.env.SITE_URL = sandbox.siteUrl;
  p.extraUrls["Sandbox inbox"] = `${sandbox.url}/`;
  if (!siteConfigured) p.extraUrls["Site URL (sandbox pages)"] = sandbox.siteUrl;
  // The Anthropic stand-in serves the claude-* model ids the environment configures (AGENT_MODEL_MAIN ...).
  const anthropic = sandbox.entries().find((e) => e.def.name === "anthropic")?.standIn as
    | AnthropicStandIn
    | undefined;
  const vars = { ...(hermetic ? {} : Deno.env.toObject()), ...p.env };
  for (const [name, value] of Object.entries(vars)) {
    if (name.includes("MODEL") && /^claude-[a-z0-9.-]+$/.test(value)) anthropic?.acceptModel(value);
  }
  for (const { def, standIn, sandboxed } of sandbox.entries()) {
    if (!sandboxed) continue;
    if (def.name === "stripe") p.extraUrls["Stripe API (stand-in)"] = standIn.baseUrl;
    if (def.secret) p.extraUrls[def.secret.label] = def.secret.get(standIn);
  }
}

/** A port from `variable`, else the default (a free one when the API port is free-picked). */
function portFromEnv(variable: string, apiPort: number, fallback: number): number {
  const fromEnv = Deno.env.get(variable);
  if (fromEnv !== undefined) {
    const port = Number(fromEnv);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new Error(`invalid ${variable}: ${fromEnv}`);
    }
    return port;
  }
  return apiPort === 0 ? 0 : fallback;
}

export const sandboxPart: PlatformPart = {
  name: "sandbox",
  async start(p) {
    const api = p.config.apiPort;
    const sandbox = Sandbox.start({
      hostname: p.config.hostname,
      port: portFromEnv("SUPABASE_LOCAL_SANDBOX_PORT", api, DEFAULT_SANDBOX_PORT),
      // A stable Stripe URL: checkout URLs handed out before a restart keep working.
      ownPorts: { stripe: portFromEnv("SUPABASE_LOCAL_STRIPE_PORT", api, DEFAULT_STRIPE_PORT) },
    });
    try {
      await connectSandbox(sandbox, p);
    } catch (err) {
      await sandbox.stop();
      throw err;
    }
    p.sandbox = sandbox;
    return {
      async stop() {
        await sandbox.stop();
      },
    };
  },
};
