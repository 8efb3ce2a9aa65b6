/**
 * What the AI services' domain functions (packages/shared/ai_services, images, direct_llm) are
 * handed by the HTTP layer, which builds it from the request after authorising the workspace a
 * request names (services/ai-backend/deps.ts `aiDeps`). Nothing here sees the request.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import type { Llm } from "../llm/mod.ts";
import { ModelRun, type ModelRunDeps } from "./models.ts";

/** Reads a backend setting or secret (the backend's one settings reader). */
export type Settings = (name: string) => string | undefined;

export interface AiDeps {
  /** The client acting as the caller (RLS applies); the service client for the service role. */
  db: SupabaseClient;
  /** The service client: rows only the system writes or reads (call log, uploads, prompts). */
  service: SupabaseClient;
  /** The calling user; null for the service role. */
  userId: string | null;
  settings: Settings;
  /** The model layer, keyed from the settings. */
  llm: () => Llm;
  /** Who model calls are recorded against. */
  models: ModelRunDeps;
}

/** The model run of one action, recorded against `workspaceId`. */
export function modelRun(deps: AiDeps, action: string, workspaceId: string | null | undefined): ModelRun {
  return new ModelRun(deps.models, action, workspaceId ?? null);
}
