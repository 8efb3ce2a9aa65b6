/**
 * The app factory of every HTTP surface: edge functions (createFunctionApp) and the AI backend
 * (createApp with the service's own config). One core: CORS (functions), the request id
 * (`c.var.requestId`, echoed as x-request-id, recorded by billing), caller resolution, one
 * error shape, one 404, and zod validation failures as the same 400 whether a route is declared
 * with createRoute (validationHook) or parses by hand (validate.ts).
 *
 * Apps are OpenAPIHono: routes declared with `app.openapi(createRoute(...), handler)` validate
 * their input and describe themselves in the app's OpenAPI document.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { cors } from "./cors.ts";
import { errorHandler, notFoundHandler } from "./errors.ts";
import { validationHook } from "./validate.ts";
import { authContext, type CoreEnv } from "../auth/context.ts";
import { type SupabaseConfig, supabaseEnv } from "../env.ts";

export type { CoreEnv };

/** Sets c.var.requestId from x-request-id (or a fresh UUID) and echoes it on the response. */
export function requestId(): MiddlewareHandler<CoreEnv> {
  return async (c, next) => {
    const id = c.req.header("x-request-id") || crypto.randomUUID();
    c.set("requestId", id);
    await next();
    c.res.headers.set("x-request-id", id);
  };
}

/** A router (sub-app) with the platform's validation hook; mount it with app.route(). */
export function createRouter<E extends CoreEnv = CoreEnv>(): OpenAPIHono<E> {
  // deno-lint-ignore no-explicit-any
  return new OpenAPIHono<E>({ strict: false, defaultHook: validationHook as any });
}

export interface AppOptions {
  /** The project the app's callers and clients belong to (or a function read per request). */
  supabase: SupabaseConfig | (() => SupabaseConfig);
  /** Answer CORS preflights and add Access-Control-Allow-Origin (browser-facing surfaces). */
  cors?: boolean;
}

/** A root app: middleware in order (CORS, request id, caller), error and 404 handlers. */
export function createApp<E extends CoreEnv = CoreEnv>(opts: AppOptions): OpenAPIHono<E> {
  const app = createRouter<E>();
  if (opts.cors) app.use("*", cors());
  app.use("*", requestId() as unknown as MiddlewareHandler<E>);
  app.use("*", authContext(opts.supabase) as unknown as MiddlewareHandler<E>);
  app.onError(errorHandler);
  app.notFound(notFoundHandler);
  return app;
}

/**
 * An edge function's app. Routes are written relative to the function (`app.get("/", ...)` is
 * `/functions/v1/<name>`), as the edge runtime passes the path `/<name>/...`; the project comes
 * from the function's environment, read per request (the local router scopes env to each call).
 */
export function createFunctionApp<E extends CoreEnv = CoreEnv>(name: string): OpenAPIHono<E> {
  const app = createApp<E>({ supabase: supabaseEnv, cors: true }).basePath(`/${name}`) as OpenAPIHono<E>;
  // OpenAPIHono's basePath() clone keeps the error handler but not the 404 handler.
  app.notFound(notFoundHandler);
  return app;
}
