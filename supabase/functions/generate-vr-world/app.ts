/**
 * POST /functions/v1/generate-vr-world (spec "3D world generation"): {source_image_url, prompt,
 * room_type?, style?, model? (world-0.1-mini default | world-0.1-plus), workspace_id?}. Waits for
 * the world: 200 {success, data: {id, world_id, status, splat_url_100k, splat_url_500k,
 * splat_url_full, collider_glb_url, panorama_url, thumbnail_url, caption, credits_charged,
 * completed_at}}. 75 / 300 credits are debited at start and refunded on failure.
 *
 * Errors: 400 missing or bad fields (source_image_url must be a public http(s) URL), 401 no user
 * JWT, 402 insufficient credits, 405 any method but POST (Allow: POST, OPTIONS), 500
 * generation_failed / generation_timeout (credits refunded), 503 provider not configured.
 *
 * Configuration: WORLDLABS_API_KEY, WORLDLABS_BASE_URL (provider.ts); VR_WORLD_TIMEOUT_MS (the
 * polling deadline; default 180 s mini, 540 s plus); VR_WORLD_POLL_INTERVAL_MS (default 5000).
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { requireUser, requireWorkspaceRole, serviceDb, userOnly } from "@shared/auth/context.ts";
import { env } from "@shared/env.ts";
import { checkUrl } from "@shared/net/safe_fetch.ts";
import { generateWorld, GenerateWorldRequest, worldLabsFromEnv } from "@shared/worlds/mod.ts";

const MAX_BODY_BYTES = 16 * 1024;
const app = createFunctionApp("generate-vr-world");

function positiveInt(name: string): number | undefined {
  const v = Number(env(name));
  return Number.isInteger(v) && v > 0 ? v : undefined;
}

app.on(["GET", "PUT", "PATCH", "DELETE"], "/", (c) => {
  c.header("Allow", "POST, OPTIONS");
  return c.json({ error: `Method ${c.req.method} not allowed: use POST`, code: "method_not_allowed" }, 405);
});

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["3D world generation"],
    summary: "Generate a 3D world (Gaussian splats, collider mesh, panorama) from a room photo and a prompt",
    middleware: [
      userOnly,
      limitBody(MAX_BODY_BYTES),
    ] as const,
    request: jsonBody(GenerateWorldRequest),
    responses: {
      ...okJson(
        "{success, data: {id, world_id, status, splat_url_100k, ..., credits_charged, completed_at}}",
      ),
      ...errorResponses,
      402: errorResponse("Insufficient credits (75 for world-0.1-mini, 300 for world-0.1-plus)"),
      405: errorResponse("Any method but POST"),
      500: errorResponse("Generation failed or timed out; the credits were refunded"),
      503: errorResponse("The world provider is not configured"),
    },
  }),
  async (c) => {
    const who = requireUser(c);
    const body = c.req.valid("json");
    if (body.workspace_id) await requireWorkspaceRole(c, body.workspace_id, null);
    const data = await generateWorld({
      service: serviceDb(c),
      provider: worldLabsFromEnv(),
      userId: who.userId,
      checkUrl: (u) => checkUrl(u),
      timeoutMs: positiveInt("VR_WORLD_TIMEOUT_MS"),
      pollIntervalMs: positiveInt("VR_WORLD_POLL_INTERVAL_MS"),
    }, body);
    return c.json({ success: true, data }, 200);
  },
);

export default app;
