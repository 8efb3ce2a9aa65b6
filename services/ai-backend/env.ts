/**
 * The AI backend's Hono environment: the core's variables (caller, request id, clients) plus the
 * service's own config (embedding provider, upload limits), and the router every route group
 * starts from.
 */
import type { Context } from "hono";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { CoreVariables } from "@shared/auth/context.ts";
import { createRouter } from "@shared/http/app.ts";
import type { BackendConfig } from "./config.ts";

export type BackendEnv = { Variables: CoreVariables & { cfg: BackendConfig } };
export type Ctx = Context<BackendEnv>;

export function router(): OpenAPIHono<BackendEnv> {
  return createRouter<BackendEnv>();
}
