/**
 * createFunctionApp(name): the Hono app every edge function starts from. Routes are written
 * relative to the function (`app.get("/", ...)` is `/functions/v1/<name>`), as the edge runtime
 * passes the path `/<name>/...`. CORS, request ids, caller resolution and error shaping are
 * middleware here, never copied into a function.
 */
import { Hono } from "hono";
import { cors } from "./cors.ts";
import { errorHandler, HttpError } from "./errors.ts";
import { authContext, type AuthEnv } from "../auth/context.ts";

export function createFunctionApp(name: string): Hono<AuthEnv> {
  // strict: false, so that `/crm-contacts-api/` and `/crm-contacts-api` are the same route.
  const app = new Hono<AuthEnv>({ strict: false }).basePath(`/${name}`);
  app.use("*", cors());
  app.use("*", async (c, next) => {
    const id = c.req.header("x-request-id") ?? crypto.randomUUID();
    await next();
    c.res.headers.set("x-request-id", id);
  });
  app.use("*", authContext());
  app.onError(errorHandler);
  app.notFound((c) => {
    const err = HttpError.notFound(`No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
    return c.json({ error: err.message, code: err.code }, 404);
  });
  return app;
}
