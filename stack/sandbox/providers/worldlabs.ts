/**
 * Stand-in for the World Labs Marble API (providers.md 6b): the key in `WLT-Api-Key`, errors as
 * `{detail}` (422 `{detail: [{loc, msg, type}]}` for a bad body).
 *
 *   POST /marble/v1/worlds:generate    -> an Operation {operation_id, done: false, ...}
 *   GET  /marble/v1/operations/{id}    -> the Operation; done after the scripted number of polls,
 *                                         then with `response` (the World) or `error`
 *   GET  /marble/v1/worlds/{id}        -> the World {world_id, world_marble_url, model, assets}
 *   GET  /assets/{world_id}/{file}     -> the asset bytes (small, generated per world)
 *
 * Tests script what the next generations do, in order: `succeed({polls})` (the default: done on
 * the first poll), `fail({message, polls})` (done with an error), `hang()` (never done). Every
 * request is captured; failNext/setLatency from StandIn apply as for every provider.
 */
import { StandIn, type StandInRequest } from "../standin.ts";

export type WorldOutcome =
  | { kind: "succeed"; polls: number }
  | { kind: "fail"; polls: number; code: number; message: string }
  | { kind: "hang" };

/** Model names the API accepts (current ones and the legacy Marble 0.1 names). */
export const MARBLE_MODELS = [
  "marble-1.0-draft",
  "marble-1.0",
  "marble-1.1",
  "marble-1.1-plus",
  "Marble 0.1-mini",
  "Marble 0.1-plus",
];

interface OperationState {
  operation_id: string;
  created_at: string;
  outcome: WorldOutcome;
  polls: number;
  world_id: string;
  model: string;
  text_prompt: string | null;
  display_name: string | null;
  image_uri: string | null;
}

type Body = Record<string, unknown>;

function randomHex(n: number): string {
  return [...crypto.getRandomValues(new Uint8Array(n))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class WorldLabsStandIn extends StandIn {
  readonly name = "worldlabs";
  #script: WorldOutcome[] = [];
  #operations = new Map<string, OperationState>();

  succeed(opts: { polls?: number } = {}): this {
    this.#script.push({ kind: "succeed", polls: opts.polls ?? 1 });
    return this;
  }

  fail(opts: { polls?: number; code?: number; message?: string } = {}): this {
    this.#script.push({
      kind: "fail",
      polls: opts.polls ?? 1,
      code: opts.code ?? 500,
      message: opts.message ?? "World generation failed in the sandbox",
    });
    return this;
  }

  hang(): this {
    this.#script.push({ kind: "hang" });
    return this;
  }

  get pendingOutcomes(): number {
    return this.#script.length;
  }

  /** Operations started so far (for the sandbox page and tests). */
  operations(): OperationState[] {
    return [...this.#operations.values()];
  }

  override reset(): void {
    super.reset();
    this.#script = [];
    this.#operations.clear();
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    return Response.json({ detail: message }, { status, headers });
  }

  #invalid(loc: string[], msg: string): Response {
    return Response.json({ detail: [{ loc: ["body", ...loc], msg, type: "value_error" }] }, { status: 422 });
  }

  protected route(req: StandInRequest): Response {
    if (req.path.startsWith("/assets/")) return this.#asset(req.path);
    if (!req.headers.get("wlt-api-key")) return this.errorResponse(401, "Missing WLT-Api-Key header");
    if (req.path === "/marble/v1/worlds:generate") {
      if (req.method !== "POST") return this.errorResponse(405, "Method Not Allowed");
      return this.#generate(req);
    }
    const op = /^\/marble\/v1\/operations\/([^/]+)$/.exec(req.path);
    if (op) {
      if (req.method !== "GET") return this.errorResponse(405, "Method Not Allowed");
      const state = this.#operations.get(decodeURIComponent(op[1]));
      if (!state) return this.errorResponse(404, "Operation not found");
      state.polls++;
      return Response.json(this.#operationView(state));
    }
    const world = /^\/marble\/v1\/worlds\/([^/:]+)$/.exec(req.path);
    if (world) {
      if (req.method !== "GET") return this.errorResponse(405, "Method Not Allowed");
      const state = [...this.#operations.values()].find((s) => s.world_id === decodeURIComponent(world[1]));
      if (!state || !this.#finished(state) || state.outcome.kind !== "succeed") {
        return this.errorResponse(404, "World not found");
      }
      return Response.json(this.#world(state));
    }
    return this.errorResponse(404, `Not found: ${req.method} ${req.path}`);
  }

  #generate(req: StandInRequest): Response {
    const body = req.json() as Body | undefined;
    if (!body || typeof body !== "object") return this.#invalid([], "Input should be a valid dictionary");
    const wp = body.world_prompt as Body | undefined;
    if (!wp || typeof wp !== "object") return this.#invalid(["world_prompt"], "Field required");
    if (!["text", "image", "multi-image", "video"].includes(wp.type as string)) {
      return this.#invalid(["world_prompt", "type"], "Input tag does not match any of the expected tags");
    }
    let imageUri: string | null = null;
    if (wp.type === "image") {
      const content = wp.image_prompt as Body | undefined;
      if (!content || typeof content !== "object") {
        return this.#invalid(["world_prompt", "image_prompt"], "Field required");
      }
      if (content.source === "uri") {
        if (typeof content.uri !== "string" || !content.uri) {
          return this.#invalid(["world_prompt", "image_prompt", "uri"], "Field required");
        }
        imageUri = content.uri;
      } else if (content.source !== "media_asset" && content.source !== "data_base64") {
        return this.#invalid(["world_prompt", "image_prompt", "source"], "Input tag does not match");
      }
    } else if (wp.type === "text" && typeof wp.text_prompt !== "string") {
      return this.#invalid(["world_prompt", "text_prompt"], "Field required");
    }
    const model = (body.model as string | undefined) ?? "marble-1.1";
    if (!MARBLE_MODELS.includes(model)) {
      return this.#invalid(["model"], `Input should be ${MARBLE_MODELS.map((m) => `'${m}'`).join(", ")}`);
    }
    if (typeof body.display_name === "string" && body.display_name.length > 64) {
      return this.#invalid(["display_name"], "String should have at most 64 characters");
    }
    const state: OperationState = {
      operation_id: `op_${randomHex(12)}`,
      created_at: new Date().toISOString(),
      outcome: this.#script.shift() ?? { kind: "succeed", polls: 1 },
      polls: 0,
      world_id: `wld_${randomHex(12)}`,
      model,
      text_prompt: typeof wp.text_prompt === "string" ? wp.text_prompt : null,
      display_name: typeof body.display_name === "string" ? body.display_name : null,
      image_uri: imageUri,
    };
    this.#operations.set(state.operation_id, state);
    return Response.json(this.#operationView(state));
  }

  #finished(s: OperationState): boolean {
    return s.outcome.kind !== "hang" && s.polls >= s.outcome.polls;
  }

  #operationView(s: OperationState) {
    const done = this.#finished(s);
    const now = new Date().toISOString();
    const base = {
      operation_id: s.operation_id,
      done,
      created_at: s.created_at,
      updated_at: now,
      expires_at: new Date(Date.parse(s.created_at) + 86_400_000).toISOString(),
      metadata: {
        progress: { status: done ? "SUCCEEDED" : "IN_PROGRESS" },
        world_id: done ? s.world_id : null,
      },
      error: null as unknown,
      response: null as unknown,
    };
    if (!done) return base;
    if (s.outcome.kind === "fail") {
      return { ...base, error: { code: s.outcome.code, message: s.outcome.message } };
    }
    return {
      ...base,
      response: this.#world(s),
      cost: { total_credits: s.model.includes("plus") ? 1500 : 150 },
    };
  }

  #world(s: OperationState) {
    const a = `${this.baseUrl}/assets/${s.world_id}`;
    return {
      world_id: s.world_id,
      display_name: s.display_name ?? "Untitled world",
      world_marble_url: `https://marble.worldlabs.ai/world/${s.world_id}`,
      model: s.model,
      tags: [],
      created_at: s.created_at,
      updated_at: s.created_at,
      permission: { public: false },
      world_prompt: {
        type: "image",
        text_prompt: s.text_prompt,
        image_prompt: { source: "uri", uri: s.image_uri },
      },
      assets: {
        caption: `A world generated from: ${s.text_prompt ?? "an image"}`,
        thumbnail_url: `${a}/thumbnail.webp`,
        splats: {
          spz_urls: {
            "100k": `${a}/splats_100k.spz`,
            "500k": `${a}/splats_500k.spz`,
            "full_res": `${a}/splats.spz`,
          },
          semantics_metadata: { metric_scale_factor: 1, ground_plane_offset: 0 },
        },
        mesh: {
          collider_mesh_url: `${a}/collider.glb`,
          hq_mesh_url: `${a}/hq.glb`,
          full_res_mesh_url: `${a}/full.glb`,
        },
        imagery: { pano_url: `${a}/pano.webp` },
      },
    };
  }

  /** A small deterministic file per world and asset, so the stored URLs resolve. */
  #asset(path: string): Response {
    const m = /^\/assets\/(wld_[0-9a-f]+)\/([a-z0-9_.]+)$/.exec(path);
    const known = m && [...this.#operations.values()].some((s) => s.world_id === m[1] && this.#finished(s));
    if (!m || !known) return this.errorResponse(404, "Asset not found");
    const bytes = new TextEncoder().encode(`sandbox asset ${m[2]} of ${m[1]}\n`);
    return new Response(bytes, { headers: { "content-type": "application/octet-stream" } });
  }
}
