/**
 * The providers the sandbox stands in for, and how code finds each one: the environment
 * variable holding the real key, and the one the official SDK reads for its base URL. Adding a
 * provider is one entry here plus its stand-in under providers/.
 */
import type { StandIn } from "./standin.ts";
import { AnthropicStandIn } from "./providers/anthropic.ts";

export interface ProviderDefinition {
  /** Route prefix on the sandbox server (/anthropic/...) and the name tests look it up by. */
  name: string;
  title: string;
  /** Holds the real key; when it is set (outside tests) code talks to the real provider. */
  keyEnv: string;
  /** The variable the official SDK reads for its base URL; pointed at the stand-in. */
  baseUrlEnv: string;
  /** Given to code in keyEnv while the stand-in serves, so SDKs that demand a key start. */
  placeholderKey: string;
  /**
   * Serve on a port of its own instead of a path prefix, for SDKs that take only a host and a
   * port (Stripe).
   */
  ownServer?: boolean;
  create(): StandIn;
}

/** A provider the sandbox serves: its definition, its stand-in, and whether code uses it. */
export interface StandInEntry {
  def: ProviderDefinition;
  standIn: StandIn;
  /** Code in this process is pointed at the stand-in (no real key configured). */
  sandboxed: boolean;
}

/** Typed access from tests: sandbox.get("anthropic") is an AnthropicStandIn. */
export interface StandIns {
  anthropic: AnthropicStandIn;
}

export const PROVIDERS: ProviderDefinition[] = [
  {
    name: "anthropic",
    title: "Anthropic Messages API",
    keyEnv: "ANTHROPIC_API_KEY",
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    placeholderKey: "sk-ant-sandbox-local-placeholder",
    create: () => new AnthropicStandIn(),
  },
];
