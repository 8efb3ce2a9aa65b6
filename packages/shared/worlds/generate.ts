/**
 * One world generation, synchronous (spec "3D world generation"): check the image URL -> debit
 * the model's credits (ledger; a short balance is a 402 and nothing is written) -> record the
 * vr_worlds row -> start the provider operation -> poll it until done or the deadline -> store
 * the world's splat, mesh, panorama and thumbnail URLs. A provider failure, an operation error or
 * the deadline refunds the debit exactly once, marks the row failed with the reason, and is a
 * 500 (code generation_failed or generation_timeout).
 *
 * A world the provider finishes after our deadline stays failed here (its operation_id is kept);
 * the user was refunded.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import { DomainError } from "../errors.ts";
import { type Charge, debit, refund } from "../credits/ledger.ts";
import { UnsafeUrlError } from "../net/safe_fetch.ts";
import type { Operation, World, WorldsProvider } from "./provider.ts";
import { type GenerateWorldRequest, PROVIDER_MODELS, WORLD_CREDITS, type WorldModel } from "./schemas.ts";

/** Default deadlines per model (spec Limits: ~30-45 s and ~5 min), overridable by VR_WORLD_TIMEOUT_MS. */
export const DEFAULT_TIMEOUT_MS: Readonly<Record<WorldModel, number>> = {
  "world-0.1-mini": 180_000,
  "world-0.1-plus": 540_000,
};
export const DEFAULT_POLL_INTERVAL_MS = 5_000;
/** Poll errors in a row that end the generation (a single blip does not). */
const MAX_POLL_ERRORS = 3;

export interface GenerateDeps {
  service: SupabaseClient;
  provider: WorldsProvider;
  userId: string;
  /** Refuses URLs that do not lead to the public internet (safe_fetch checkUrl). */
  checkUrl: (url: string) => Promise<URL>;
  timeoutMs?: number;
  pollIntervalMs?: number;
}

export interface WorldView {
  id: string;
  world_id: string;
  status: "completed";
  splat_url_100k: string | null;
  splat_url_500k: string | null;
  splat_url_full: string | null;
  collider_glb_url: string | null;
  panorama_url: string | null;
  thumbnail_url: string | null;
  caption: string | null;
  credits_charged: number;
  completed_at: string;
}

class GenerationTimeout extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or a GenerationTimeout when the deadline passes first. */
async function before<T>(deadline: number, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new GenerationTimeout()), Math.max(0, deadline - Date.now()));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function textPrompt(req: GenerateWorldRequest): string {
  const extra = [req.room_type && `Room type: ${req.room_type}.`, req.style && `Style: ${req.style}.`].filter(
    Boolean,
  );
  return [req.prompt, ...extra].join(" ");
}

export function assetUrls(world: World) {
  const spz = world.assets?.splats?.spz_urls ?? {};
  return {
    splat_url_100k: spz["100k"] ?? null,
    splat_url_500k: spz["500k"] ?? null,
    splat_url_full: spz["full_res"] ?? null,
    collider_glb_url: world.assets?.mesh?.collider_mesh_url ?? null,
    panorama_url: world.assets?.imagery?.pano_url ?? null,
    thumbnail_url: world.assets?.thumbnail_url ?? null,
    caption: world.assets?.caption ?? null,
  };
}

async function waitDone(
  deps: GenerateDeps,
  op: Operation,
  deadline: number,
  interval: number,
): Promise<Operation> {
  let errors = 0;
  while (!op.done) {
    if (Date.now() + interval >= deadline) throw new GenerationTimeout();
    await sleep(interval);
    try {
      op = await before(deadline, deps.provider.operation(op.operation_id));
      errors = 0;
    } catch (err) {
      if (err instanceof GenerationTimeout || ++errors >= MAX_POLL_ERRORS) throw err;
    }
  }
  return op;
}

export async function generateWorld(deps: GenerateDeps, req: GenerateWorldRequest): Promise<WorldView> {
  try {
    await deps.checkUrl(req.source_image_url);
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw DomainError.invalid(`source_image_url: ${err.message}`);
    throw err;
  }
  const service = deps.service;
  const id = crypto.randomUUID();
  const credits = WORLD_CREDITS[req.model];
  const charge: Charge = await debit(service, {
    userId: deps.userId,
    action: `vr_world:${req.model}`,
    credits,
    referenceId: id,
    metadata: { model: req.model },
  });
  const inserted = await service.from("vr_worlds").insert({
    id,
    user_id: deps.userId,
    workspace_id: req.workspace_id ?? null,
    status: "generating",
    prompt: req.prompt,
    source_image_url: req.source_image_url,
    room_type: req.room_type ?? null,
    style: req.style ?? null,
    model: req.model,
    credits_charged: credits,
    charge_transaction_id: charge.transactionId,
  });
  if (inserted.error) {
    await refund(service, charge, "vr world: the record could not be written");
    rows(inserted, "VR world");
  }

  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS[req.model];
  const deadline = Date.now() + timeoutMs;
  const interval = deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  let operationId: string | null = null;
  try {
    const started = await before(
      deadline,
      deps.provider.generate({
        display_name: req.prompt.slice(0, 64),
        model: PROVIDER_MODELS[req.model],
        world_prompt: {
          type: "image",
          image_prompt: { source: "uri", uri: req.source_image_url },
          text_prompt: textPrompt(req),
        },
      }),
    );
    operationId = started.operation_id;
    rows(await service.from("vr_worlds").update({ operation_id: operationId }).eq("id", id), "VR world");
    const done = await waitDone(deps, started, deadline, interval);
    if (done.error) {
      throw new Error(`the generation failed: ${done.error.message ?? done.error.code ?? "unknown error"}`);
    }
    let world = done.response ?? null;
    const worldId = world?.world_id ?? done.metadata?.world_id;
    if (!worldId) throw new Error("the finished operation names no world");
    if (!world?.assets) world = await before(deadline, deps.provider.world(worldId));
    const urls = assetUrls(world);
    if (!urls.splat_url_100k && !urls.splat_url_500k && !urls.splat_url_full) {
      throw new Error("the world has no Gaussian splat assets");
    }
    const completed_at = new Date().toISOString();
    rows(
      await service.from("vr_worlds").update({
        status: "completed",
        world_id: worldId,
        world_marble_url: world.world_marble_url ?? null,
        ...urls,
        completed_at,
      }).eq("id", id),
      "VR world",
    );
    return { id, world_id: worldId, status: "completed", ...urls, credits_charged: credits, completed_at };
  } catch (err) {
    const timedOut = err instanceof GenerationTimeout;
    const reason = timedOut
      ? `The world was not ready within ${Number((timeoutMs / 1000).toFixed(1))} s`
      : `World generation failed: ${err instanceof Error ? err.message : String(err)}`;
    const back = await refund(service, charge, reason);
    const { error } = await service.from("vr_worlds").update({
      status: "failed",
      error: reason.slice(0, 2000),
      credits_refunded: back.refunded,
      completed_at: new Date().toISOString(),
    }).eq("id", id);
    if (error) console.error(`generate-vr-world: could not mark ${id} failed`, error);
    throw new DomainError("internal", timedOut ? "generation_timeout" : "generation_failed", reason, {
      id,
      operation_id: operationId,
      credits_refunded: back.refunded,
    });
  }
}
