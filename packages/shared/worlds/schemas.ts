/**
 * generate-vr-world's request (spec "3D world generation"; strict: an undeclared key is a 400
 * naming it) and the prices of its models (Limits).
 */
import { z } from "zod";

export const WORLD_MODELS = ["world-0.1-mini", "world-0.1-plus"] as const;
export type WorldModel = (typeof WORLD_MODELS)[number];

/** Credits per generation (spec Limits). */
export const WORLD_CREDITS: Readonly<Record<WorldModel, number>> = {
  "world-0.1-mini": 75,
  "world-0.1-plus": 300,
};

/** The provider's names for the spec's models (legacy Marble 0.1 names, still accepted). */
export const PROVIDER_MODELS: Readonly<Record<WorldModel, string>> = {
  "world-0.1-mini": "Marble 0.1-mini",
  "world-0.1-plus": "Marble 0.1-plus",
};

export const GenerateWorldRequest = z.strictObject({
  source_image_url: z.string().min(1).max(2048)
    .meta({
      description:
        "A public http(s) URL of the room photo (private, loopback and metadata hosts are refused)",
    }),
  prompt: z.string().trim().min(1).max(2000).meta({ description: "What the world should look like" }),
  room_type: z.string().trim().max(100).optional(),
  style: z.string().trim().max(100).optional(),
  model: z.enum(WORLD_MODELS).default("world-0.1-mini")
    .meta({ description: "world-0.1-mini (75 credits, ~30-45 s) or world-0.1-plus (300 credits, ~5 min)" }),
  workspace_id: z.uuid().optional()
    .meta({
      description: "Optional: the workspace the world is for (its members can read it); caller must belong",
    }),
}).meta({ id: "GenerateVrWorldRequest" });
export type GenerateWorldRequest = z.infer<typeof GenerateWorldRequest>;
