/**
 * World Labs Marble API client (providers.md 6b; docs.worldlabs.ai/api): its documented HTTP API
 * over fetch (there is no official TypeScript SDK), the key in the `WLT-Api-Key` header.
 *
 *   POST {base}/marble/v1/worlds:generate      -> Operation {operation_id, done, error, response}
 *   GET  {base}/marble/v1/operations/{id}      -> Operation; when done: response World or error
 *   GET  {base}/marble/v1/worlds/{world_id}    -> World (or {world: World})
 *
 * Configuration (env()): WORLDLABS_API_KEY (required; without it generation answers 503
 * worlds_not_configured), WORLDLABS_BASE_URL (default https://api.worldlabs.ai; the local platform
 * points it at the sandbox stand-in).
 */
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";

export const DEFAULT_WORLDLABS_BASE_URL = "https://api.worldlabs.ai";
const REQUEST_TIMEOUT_MS = 30_000;

export interface WorldAssets {
  splats?: { spz_urls?: Record<string, string>; semantics_metadata?: Record<string, unknown> };
  mesh?: { collider_mesh_url?: string; hq_mesh_url?: string; full_res_mesh_url?: string };
  imagery?: { pano_url?: string };
  thumbnail_url?: string;
  caption?: string;
}

export interface World {
  world_id: string;
  display_name?: string;
  world_marble_url?: string;
  model?: string;
  assets?: WorldAssets;
  created_at?: string;
}

export interface Operation {
  operation_id: string;
  done: boolean;
  created_at?: string;
  updated_at?: string;
  expires_at?: string;
  metadata?: { world_id?: string; progress?: unknown } & Record<string, unknown>;
  error?: { code?: number | string; message?: string } | null;
  response?: World | null;
}

export interface GenerateRequest {
  display_name?: string;
  model: string;
  world_prompt: {
    type: "image";
    image_prompt: { source: "uri"; uri: string };
    text_prompt?: string;
  };
}

/** A non-2xx answer from World Labs: its status and `detail`. */
export class WorldLabsError extends Error {
  constructor(readonly status: number, readonly detail: string) {
    super(`World Labs answered HTTP ${status}: ${detail}`);
    this.name = "WorldLabsError";
  }
}

export interface WorldsProvider {
  generate(req: GenerateRequest): Promise<Operation>;
  operation(operationId: string): Promise<Operation>;
  world(worldId: string): Promise<World>;
}

export class WorldLabsClient implements WorldsProvider {
  readonly #key: string;
  readonly #base: string;
  constructor(opts: { apiKey: string; baseUrl?: string }) {
    this.#key = opts.apiKey;
    this.#base = (opts.baseUrl ?? DEFAULT_WORLDLABS_BASE_URL).replace(/\/+$/, "");
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.#base}${path}`, {
      method,
      headers: {
        "WLT-Api-Key": this.#key,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch (_) {
      // Not JSON: reported below with the raw text.
    }
    if (!res.ok) {
      const detail = (json as { detail?: unknown })?.detail;
      throw new WorldLabsError(
        res.status,
        typeof detail === "string" ? detail : detail ? JSON.stringify(detail) : text.slice(0, 300),
      );
    }
    if (json === undefined) throw new WorldLabsError(res.status, "the answer is not JSON");
    return json as T;
  }

  generate(req: GenerateRequest): Promise<Operation> {
    return this.#call("POST", "/marble/v1/worlds:generate", req);
  }

  operation(operationId: string): Promise<Operation> {
    return this.#call("GET", `/marble/v1/operations/${encodeURIComponent(operationId)}`);
  }

  async world(worldId: string): Promise<World> {
    const r = await this.#call<World | { world: World }>(
      "GET",
      `/marble/v1/worlds/${encodeURIComponent(worldId)}`,
    );
    return "world" in r && r.world ? r.world : r as World;
  }
}

export function worldLabsFromEnv(): WorldLabsClient {
  const apiKey = env("WORLDLABS_API_KEY");
  if (!apiKey) {
    throw DomainError.unavailable(
      "3D world generation is not configured: set WORLDLABS_API_KEY (and WORLDLABS_BASE_URL for a stand-in)",
      "worlds_not_configured",
    );
  }
  return new WorldLabsClient({ apiKey, baseUrl: env("WORLDLABS_BASE_URL") ?? DEFAULT_WORLDLABS_BASE_URL });
}
