/**
 * Search suggestions over the search log, the product catalog and the synonym table (SQL in
 * migration 20260210000500_search_suggestions.sql). Every call takes the workspaces the caller
 * may see (resolved by the HTTP layer from the JWT and workspace_members) and runs one
 * service-role SQL function over them only.
 *
 * - autocomplete: queries searched in the last 90 days starting with the prefix, most searched
 *   first (up to half the limit; search_query_stats), then product names starting with it (name
 *   order, btree index), then - for three characters or more - names containing it, a word
 *   starting with it first, then by trigram word similarity (pg_trgm GIN index);
 * - typo_correction: each word of three letters or more that is neither in the workspaces'
 *   product-name vocabulary (search_terms) nor a synonym term is replaced by the most similar
 *   vocabulary word (trigram similarity >= 0.3);
 * - query_expansion: synonyms (both directions) and related terms of the query, its words and
 *   word pairs, from global and workspace entries of search_synonyms;
 * - trending_searches: the most frequent queries of the last `days`, with the previous period's
 *   count and growth;
 * - search_analytics: records a search (query, results_count) and answers the period's figures;
 * - search_recommendations: the caller's recent searches, popular searches and most clicked
 *   products;
 * - track_suggestion_click: records a picked suggestion.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import type { z } from "zod";
import { DomainError } from "../errors.ts";
import { dbError } from "../supabase/postgrest.ts";
import type { AnalyticsRequest, ClickRequest } from "./schemas.ts";

async function call<T>(service: SupabaseClient, fn: string, args: Record<string, unknown>): Promise<T> {
  const { data, error, status } = await service.rpc(fn, args);
  if (error) {
    throw dbError(error, "Search", status, {
      code: "search_failed",
      message: `${fn} failed: ${error.message}`,
    });
  }
  return data as T;
}

export interface Suggestion {
  text: string;
  type: "query" | "product";
  count?: number;
  product_id?: string;
  category?: string | null;
  workspace_id?: string;
}

export async function autocomplete(
  service: SupabaseClient,
  workspaces: string[],
  query: string,
  limit: number,
) {
  const t0 = performance.now();
  const suggestions = workspaces.length
    ? await call<Suggestion[]>(service, "search_autocomplete", {
      p_workspaces: workspaces,
      p_prefix: query,
      p_limit: limit,
    })
    : [];
  return { query, suggestions, took_ms: Math.round((performance.now() - t0) * 10) / 10 };
}

export function typoCorrection(service: SupabaseClient, workspaces: string[], query: string) {
  return call<Record<string, unknown>>(service, "search_typo_correction", {
    p_workspaces: workspaces,
    p_query: query,
  });
}

export function queryExpansion(service: SupabaseClient, workspaces: string[], query: string) {
  return call<Record<string, unknown>>(service, "search_query_expansion", {
    p_workspaces: workspaces,
    p_query: query,
  });
}

export async function trending(service: SupabaseClient, workspaces: string[], days: number, limit: number) {
  const trending = await call<unknown[]>(service, "search_trending", {
    p_workspaces: workspaces,
    p_days: days,
    p_limit: limit,
  });
  return { days, trending };
}

export function recommendations(
  service: SupabaseClient,
  workspaces: string[],
  userId: string | null,
  limit: number,
) {
  return call<Record<string, unknown>>(service, "search_recommendations", {
    p_workspaces: workspaces,
    p_user: userId,
    p_limit: limit,
  });
}

export async function searchAnalytics(
  service: SupabaseClient,
  workspaces: string[],
  userId: string | null,
  req: z.infer<typeof AnalyticsRequest>,
) {
  let recorded: { id: string; created_at: string } | null = null;
  if (req.query !== undefined) {
    const { data, error } = await service.from("search_queries").insert({
      workspace_id: req.workspace_id,
      user_id: userId,
      query: req.query,
      results_count: req.results_count ?? null,
      source: req.source,
    }).select("id, created_at").single();
    if (error) throw DomainError.internal(`Recording the search failed: ${error.message}`, "search_failed");
    recorded = data;
  }
  const analytics = await call<Record<string, unknown>>(service, "search_analytics_summary", {
    p_workspaces: workspaces,
    p_days: req.days,
  });
  return { recorded, analytics };
}

export async function trackClick(
  service: SupabaseClient,
  userId: string | null,
  req: z.infer<typeof ClickRequest>,
) {
  if (req.product_id) {
    const { data, error } = await service.from("products").select("id").eq("id", req.product_id)
      .eq("workspace_id", req.workspace_id).maybeSingle();
    if (error) throw DomainError.internal(`Reading the product failed: ${error.message}`, "search_failed");
    if (!data) throw DomainError.notFound(`Product ${req.product_id} not found in the workspace`);
  }
  const { data, error } = await service.from("search_suggestion_clicks").insert({
    workspace_id: req.workspace_id,
    user_id: userId,
    query: req.query,
    suggestion: req.suggestion,
    suggestion_type: req.suggestion_type,
    product_id: req.product_id ?? null,
    position: req.position ?? null,
  }).select("id, created_at").single();
  if (error) throw DomainError.internal(`Recording the click failed: ${error.message}`, "search_failed");
  return { tracked: true, click: data };
}
