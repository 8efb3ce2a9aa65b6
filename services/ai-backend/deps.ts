/**
 * The HTTP layer's side of the AI services: what a route hands the domain code, built from the
 * request. `aiDeps(c, workspaceId, roles)` authorises the workspace a request names (any member,
 * or `roles`; outsiders 404, too low a role 403: workspaceScope) and returns the caller's and the
 * service clients, the backend's settings, the model layer and who model calls are recorded
 * against (packages/shared/ai_services/deps.ts). Only routes import this module.
 */
import { caller, db, serviceDb, type WorkspaceRoleName } from "@shared/auth/context.ts";
import { workspaceScope } from "@shared/auth/scope.ts";
import type { AiDeps, Settings } from "@shared/ai_services/deps.ts";
import { type Llm, llmFromEnv } from "@shared/llm/mod.ts";
import type { ClipProvider } from "@shared/embeddings/clip.ts";
import { clipProvider } from "@shared/images/clip.ts";
import { settingsOf } from "./config.ts";
import type { Ctx } from "./env.ts";

/** The backend's settings reader for this request (config.ts settingsOf). */
export function settings(c: Ctx): Settings {
  return settingsOf(c.get("cfg"));
}

/** The model layer keyed from the backend's settings. */
export function backendLlm(c: Ctx): Llm {
  return llmFromEnv(settings(c));
}

/** The AI services' dependencies of a request, after authorising the workspace it names (if any). */
export async function aiDeps(
  c: Ctx,
  workspaceId?: string | null,
  roles: readonly WorkspaceRoleName[] | null = null,
): Promise<AiDeps> {
  if (workspaceId) await workspaceScope(c, workspaceId, roles);
  const who = caller(c);
  const userId = who.kind === "user" ? who.userId ?? null : null;
  const service = serviceDb(c);
  const s = settings(c);
  const llm = () => llmFromEnv(s);
  return {
    db: db(c),
    service,
    userId,
    settings: s,
    llm,
    models: { llm, service, userId, requestId: c.var.requestId ?? null },
  };
}

/** The CLIP provider of this request's settings (a misconfiguration is a 503). */
export function clipOf(c: Ctx): ClipProvider {
  return clipProvider(settings(c));
}
