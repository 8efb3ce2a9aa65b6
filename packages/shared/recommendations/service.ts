/**
 * The recommendation use cases over the database: track an interaction (as the caller, RLS
 * applies), recommend for a user and list similar materials (neighbourhoods read with the
 * service role after the edge function authorised the caller; results cached per user for
 * CACHE_TTL_SECONDS), clear the caller's cache (as the caller) and read analytics (service role,
 * after the owner/admin check).
 *
 * Cache invalidation on a new interaction happens in the database, in the statement that
 * records it (see the migration): the user's lists in that workspace and every similar-materials
 * list of the material.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { one, rows } from "../supabase/postgrest.ts";
import {
  type Algorithm,
  itemItemScores,
  type ItemNeighbourhood,
  itemSources,
  type Mine,
  NEIGHBOURS,
  type Popularity,
  popularityScores,
  purchasedOf,
  type Recommendation,
  similarScores,
  type UserNeighbourhood,
  userUserScores,
  withFallback,
} from "./cf.ts";
import type { InteractionType } from "./schemas.ts";

/** How long a cached list is served (new interactions of the user invalidate it sooner). */
export const CACHE_TTL_SECONDS = 3600;

export interface Listed {
  data: Recommendation[];
  cached: boolean;
}

export interface ForUserRequest {
  workspaceId: string;
  userId: string;
  algorithm: Algorithm;
  limit: number;
  includePurchased: boolean;
}

export interface TrackRequest {
  workspace_id: string;
  material_id: string;
  interaction_type: InteractionType;
  interaction_value?: number;
  session_id?: string | null;
  metadata: Record<string, unknown>;
}

/** Records the caller's interaction (RLS: themself, a workspace they belong to). */
export async function trackInteraction(caller: SupabaseClient, userId: string, body: TrackRequest) {
  await requireMaterial(caller, body.workspace_id, body.material_id);
  return one(
    await caller.from("material_interactions").insert({
      ...body,
      interaction_value: body.interaction_value ?? 1,
      user_id: userId,
    }).select("*").single(),
    "Interaction",
  );
}

/** 404 unless the material is a product of the workspace the caller can read. */
export async function requireMaterial(caller: SupabaseClient, workspaceId: string, materialId: string) {
  one(
    await caller.from("products").select("id").eq("id", materialId).eq("workspace_id", workspaceId)
      .maybeSingle(),
    "Material",
  );
}

export async function recommendForUser(svc: SupabaseClient, q: ForUserRequest): Promise<Listed> {
  const key = `for_user:${q.algorithm}:${q.limit}:${q.includePurchased}`;
  return await cached(svc, q.workspaceId, q.userId, key, null, () => computeForUser(svc, q));
}

export async function similarMaterials(
  svc: SupabaseClient,
  q: { workspaceId: string; userId: string; materialId: string; limit: number },
): Promise<Listed> {
  const key = `similar:${q.materialId}:${q.limit}`;
  return await cached(svc, q.workspaceId, q.userId, key, q.materialId, async () => {
    const n = await rpc<ItemNeighbourhood>(svc, "recommendation_item_neighbourhood", {
      p_workspace: q.workspaceId,
      p_sources: [q.materialId],
      p_k: Math.max(NEIGHBOURS, q.limit),
    });
    const cf = similarScores(q.materialId, n, q.limit);
    return await fillWithPopular(svc, q.workspaceId, cf, new Set([q.materialId]), q.limit);
  });
}

/** The recommendations, computed now (no cache). */
export async function computeForUser(svc: SupabaseClient, q: ForUserRequest): Promise<Recommendation[]> {
  let mine: Mine[];
  let cf: Recommendation[];
  let exclude: Set<string>;
  if (q.algorithm === "user_user") {
    const n = await rpc<UserNeighbourhood>(svc, "recommendation_user_neighbourhood", {
      p_workspace: q.workspaceId,
      p_user: q.userId,
      p_k: NEIGHBOURS,
    });
    mine = n.mine;
    exclude = q.includePurchased ? new Set() : purchasedOf(mine);
    cf = userUserScores(n, exclude, q.limit);
  } else {
    // k = 0: the caller's row only (the database skips the neighbour search).
    mine = (await rpc<UserNeighbourhood>(svc, "recommendation_user_neighbourhood", {
      p_workspace: q.workspaceId,
      p_user: q.userId,
      p_k: 0,
    })).mine;
    exclude = q.includePurchased ? new Set() : purchasedOf(mine);
    const sources = itemSources(mine);
    const n = sources.length
      ? await rpc<ItemNeighbourhood>(svc, "recommendation_item_neighbourhood", {
        p_workspace: q.workspaceId,
        p_sources: sources.map(([m]) => m),
        p_k: NEIGHBOURS,
      })
      : { sources: [], neighbours: [] };
    cf = itemItemScores(sources, n, exclude, q.limit);
  }
  return await fillWithPopular(svc, q.workspaceId, cf, exclude, q.limit);
}

/** Cold start and short lists: workspace popularity fills the page after the CF results. */
async function fillWithPopular(
  svc: SupabaseClient,
  workspaceId: string,
  cf: Recommendation[],
  exclude: Set<string>,
  limit: number,
): Promise<Recommendation[]> {
  if (cf.length >= limit) return cf;
  const skip = [...exclude, ...cf.map((r) => r.material_id)];
  const p = await rpc<Popularity>(svc, "recommendation_popular", {
    p_workspace: workspaceId,
    p_exclude: skip,
    p_limit: limit - cf.length,
  });
  return withFallback(cf, popularityScores(p, new Set(skip), limit), limit);
}

async function cached(
  svc: SupabaseClient,
  workspaceId: string,
  userId: string,
  key: string,
  materialId: string | null,
  compute: () => Promise<Recommendation[]>,
): Promise<Listed> {
  const hit = rows(
    await svc.from("recommendation_cache").select("results").eq("workspace_id", workspaceId)
      .eq("user_id", userId).eq("cache_key", key).gt("expires_at", new Date().toISOString()).limit(1),
    "Recommendation cache",
  ) as { results: Recommendation[] }[];
  if (hit.length) return { data: hit[0].results, cached: true };
  const data = await compute();
  rows(
    await svc.from("recommendation_cache").upsert({
      workspace_id: workspaceId,
      user_id: userId,
      kind: materialId ? "similar" : "for_user",
      material_id: materialId,
      cache_key: key,
      results: data,
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + CACHE_TTL_SECONDS * 1000).toISOString(),
    }, { onConflict: "workspace_id,user_id,cache_key" }),
    "Recommendation cache",
  );
  return { data, cached: false };
}

/** Deletes the caller's cached lists (RLS: their own), optionally of one workspace or material. */
export async function clearCache(
  caller: SupabaseClient,
  userId: string,
  filter: { workspace_id?: string; material_id?: string },
): Promise<number> {
  let q = caller.from("recommendation_cache").delete().eq("user_id", userId);
  if (filter.workspace_id) q = q.eq("workspace_id", filter.workspace_id);
  if (filter.material_id) q = q.eq("material_id", filter.material_id);
  return (rows(await q.select("id"), "Recommendation cache") as unknown[]).length;
}

/** Interaction analytics of the last `days` days (service role, after the owner/admin check). */
export async function analytics(svc: SupabaseClient, workspaceId: string, days: number) {
  return await rpc<Record<string, unknown>>(svc, "recommendation_analytics", {
    p_workspace: workspaceId,
    p_days: days,
  });
}

async function rpc<T>(client: SupabaseClient, fn: string, args: Record<string, unknown>): Promise<T> {
  return rows(await client.rpc(fn, args), fn) as T;
}
