/**
 * supabase/config.toml, read and parsed in one place: the `[api]` section (the settings the
 * Supabase CLI hands PostgREST) and the `[functions.<name>]` blocks (the edge runtime's per
 * function settings). startPlatform reads it once and hands each part what it needs.
 */
import { parse as parseToml } from "smol-toml";

export interface ApiConfig {
  schemas: string[];
  maxRows: number;
  /**
   * `auto_expose_new_tables`: whether tables created in `public` are granted to anon,
   * authenticated and service_role by default privileges. Off unless set (the hosted default
   * since 2026-05-30); stack/db/migrate.ts applies it after the bootstrap.
   */
  autoExposeNewTables: boolean;
}

export interface FunctionConfig {
  enabled: boolean;
  verifyJwt: boolean;
}

export interface ProjectConfig {
  /** `[api] schemas` and `max_rows`, with the CLI's defaults. */
  api: ApiConfig;
  /** `[functions.<name>]` blocks; undeclared functions get the defaults. */
  functions: Map<string, FunctionConfig>;
}

/** The CLI's defaults (a fresh object each time: callers may keep and change what they get). */
function apiDefaults(): ApiConfig {
  return { schemas: ["public", "graphql_public"], maxRows: 1000, autoExposeNewTables: false };
}

/** Reads `<rootDir>/supabase/config.toml`; a missing file gives the CLI's defaults. */
export async function readProjectConfig(rootDir: string): Promise<ProjectConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${rootDir}/supabase/config.toml`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { api: apiDefaults(), functions: new Map() };
    throw err;
  }
  const toml = parseToml(text) as {
    api?: { schemas?: unknown; max_rows?: unknown; auto_expose_new_tables?: unknown };
    functions?: Record<string, Record<string, unknown>>;
  };
  return { api: apiConfig(toml.api ?? {}), functions: functionConfigs(toml.functions ?? {}) };
}

function apiConfig(
  api: { schemas?: unknown; max_rows?: unknown; auto_expose_new_tables?: unknown },
): ApiConfig {
  const defaults = apiDefaults();
  const schemas =
    Array.isArray(api.schemas) && api.schemas.every((s) => typeof s === "string") && api.schemas.length
      ? api.schemas as string[]
      : defaults.schemas;
  const maxRows = typeof api.max_rows === "number" && api.max_rows > 0 ? api.max_rows : defaults.maxRows;
  const autoExposeNewTables = typeof api.auto_expose_new_tables === "boolean"
    ? api.auto_expose_new_tables
    : defaults.autoExposeNewTables;
  return { schemas, maxRows, autoExposeNewTables };
}

function functionConfigs(blocks: Record<string, Record<string, unknown>>): Map<string, FunctionConfig> {
  const out = new Map<string, FunctionConfig>();
  for (const [name, block] of Object.entries(blocks)) {
    out.set(name, {
      enabled: block.enabled !== false,
      verifyJwt: block.verify_jwt !== false,
    });
  }
  return out;
}
