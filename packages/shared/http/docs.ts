/**
 * API documentation pages rendered by the maintained viewers from npm: `/docs` with Swagger UI
 * (swagger-ui-dist) and `/redoc` with Redoc (its standalone bundle). The viewer's script and
 * styles and the OpenAPI document are inlined into the page, so it loads nothing from a CDN or
 * any other origin, works offline, and renders the same when proxied (the ai-gateway's docs
 * action passes the backend's page through).
 *
 * Only the AI backend and the local platform import this module (edge functions do not serve
 * docs: the platform merges their documents, see stack/functions/openapi.ts).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import redocJs from "redoc/bundles/redoc.standalone.js" with { type: "text" };

export interface ApiInfo {
  title: string;
  version: string;
  description: string;
  [extension: `x-${string}`]: unknown;
}

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );

/** JSON that is safe inside a <script> element. */
const scriptJson = (v: unknown) =>
  JSON.stringify(v).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

function page(title: string, head: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">${head}</head><body>${body}</body></html>`;
}

/** Swagger UI for `doc`: try-it-out requests go to the paths the document names. */
export function swaggerPage(doc: unknown, title: string): string {
  return page(
    title,
    `<style>${swaggerCss}</style>`,
    `<div id="swagger-ui"></div><script type="application/json" id="openapi">${scriptJson(doc)}</script>` +
      `<script>${swaggerJs}</script><script>SwaggerUIBundle({spec: JSON.parse(` +
      `document.getElementById("openapi").textContent), dom_id: "#swagger-ui", deepLinking: true});</script>`,
  );
}

/** Redoc's three-panel reference for `doc`. */
export function redocPage(doc: unknown, title: string): string {
  return page(
    title,
    `<style>body{margin:0}</style>`,
    `<div id="redoc"></div><script type="application/json" id="openapi">${scriptJson(doc)}</script>` +
      `<script>${redocJs}</script><script>Redoc.init(JSON.parse(document.getElementById("openapi")` +
      `.textContent), {}, document.getElementById("redoc"));</script>`,
  );
}

/** The bearer scheme every document names: a user JWT or the service-role key. */
export const BEARER_SCHEME = {
  type: "http" as const,
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "A user JWT from /auth/v1/token, or the service-role key",
};

/**
 * Serves `app`'s own OpenAPI 3.1 document at /openapi.json and the two viewers at /docs and
 * /redoc, built once on first request (routes are all registered by then).
 */
// deno-lint-ignore no-explicit-any
export function serveApiDocs(app: OpenAPIHono<any>, info: ApiInfo): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", BEARER_SCHEME);
  let doc: unknown = null;
  const spec = () => doc ??= app.getOpenAPI31Document({ openapi: "3.1.0", info, security: [{ bearer: [] }] });
  let swagger: string | null = null;
  let redoc: string | null = null;
  app.get("/openapi.json", (c) => c.json(spec()));
  app.get("/docs", (c) => c.html(swagger ??= swaggerPage(spec(), `${info.title} - API docs`)));
  app.get("/redoc", (c) => c.html(redoc ??= redocPage(spec(), `${info.title} - API reference`)));
}
