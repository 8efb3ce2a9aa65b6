/**
 * API documentation on the gateway, for both HTTP surfaces of the project:
 *
 *   /docs                  an index linking the two APIs
 *   /docs/functions        Swagger UI for /functions/v1 (../functions/openapi.ts merges the functions)
 *   /redoc/functions       Redoc for the same document
 *   /openapi/functions.json
 *   /docs/api, /redoc/api, /openapi/api.json   the AI backend's /api (its own /openapi.json,
 *                          with the backend's URL as the server; it also serves /docs and /redoc)
 *
 * The viewers come from npm and are inlined with the document (packages/shared/http/docs.ts):
 * the pages load nothing from another origin. Documents and pages are built on first request
 * and kept (function code is loaded once per platform, as the functions router does).
 */
import { redocPage, swaggerPage } from "@shared/http/docs.ts";
import type { Platform, PlatformPart } from "../part.ts";
import { aiBackendOf } from "../ai-backend/part.ts";
import { functionsOpenApiDocument, type OpenApiDocument } from "../functions/openapi.ts";

type Api = "functions" | "api";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const html = (body: string) =>
  new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });

const TITLES: Record<Api, string> = { functions: "Edge functions (/functions/v1)", api: "AI backend (/api)" };

/** The AI backend's document, asked of the running backend in-process, with its URL as the server. */
async function backendDocument(p: Platform): Promise<OpenApiDocument> {
  const backend = aiBackendOf(p);
  const res = await backend.app.request("/openapi.json");
  if (!res.ok) throw new Error(`the AI backend answered ${res.status} for /openapi.json`);
  const doc = await res.json() as OpenApiDocument;
  return { ...doc, servers: doc.servers?.length ? doc.servers : [{ url: backend.url }] };
}

function indexPage(p: Platform): string {
  const link = (href: string, text: string) => `<a href="${href}">${text}</a>`;
  const api = (key: Api, extra = "") =>
    `<li><strong>${TITLES[key]}</strong>: ${link(`/docs/${key}`, "Swagger UI")} · ` +
    `${link(`/redoc/${key}`, "Redoc")} · ${link(`/openapi/${key}.json`, "OpenAPI 3.1 JSON")}${extra}</li>`;
  const backend = p.extraUrls["AI backend"];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API docs</title>` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;` +
    `line-height:1.6}</style></head><body><h1>API docs</h1><ul>` +
    api("functions") +
    api("api", backend ? ` (served by the backend too: ${link(`${backend}/docs`, `${backend}/docs`)})` : "") +
    `</ul><p>Authenticate with a user JWT from <code>/auth/v1/token</code> or the service-role key.</p>` +
    `</body></html>`;
}

/** The gateway services for /docs, /redoc and /openapi of platform `p`. */
export function docsServices(p: Platform) {
  const docs = new Map<Api, Promise<OpenApiDocument>>();
  const pages = new Map<string, string>();
  const noVerifyJwt = new Set([...p.project.functions].filter(([, f]) => !f.verifyJwt).map(([n]) => n));
  const documentOf = (api: Api): Promise<OpenApiDocument> => {
    let d = docs.get(api);
    if (!d) {
      d = api === "functions"
        ? functionsOpenApiDocument({ rootDir: p.config.rootDir, url: p.url, noVerifyJwt })
        : backendDocument(p);
      docs.set(api, d);
      // A failed build is tried again on the next request, not cached.
      d.catch(() => docs.delete(api));
    }
    return d;
  };
  const apiOf = (segment: string): Api | null =>
    segment === "functions" || segment === "api" ? segment : null;

  const page = async (viewer: "docs" | "redoc", path: string): Promise<Response> => {
    const api = apiOf(path.replace(/^\/|\/$/g, ""));
    if (!api) {
      return json(404, { message: `No API docs at ${path}: try /${viewer}/functions or /${viewer}/api` });
    }
    const key = `${viewer}:${api}`;
    let body = pages.get(key);
    if (!body) {
      const doc = await documentOf(api);
      body = viewer === "docs"
        ? swaggerPage(doc, `${TITLES[api]} - API docs`)
        : redocPage(doc, `${TITLES[api]} - API reference`);
      pages.set(key, body);
    }
    return html(body);
  };

  const onlyGet =
    (handler: (path: string) => Promise<Response> | Response) => async (req: Request, path: string) => {
      if (req.method !== "GET" && req.method !== "HEAD") return json(405, { message: "Method not allowed" });
      try {
        return await handler(path);
      } catch (err) {
        console.error("API docs:", err);
        return json(500, { message: `Could not build the API document: ${(err as Error).message}` });
      }
    };

  return {
    docs: onlyGet((path) => (path === "/" ? html(indexPage(p)) : page("docs", path))),
    redoc: onlyGet((path) => page("redoc", path)),
    openapi: onlyGet(async (path) => {
      const m = /^\/(functions|api)\.json$/.exec(path);
      if (!m) {
        return json(404, {
          message: `No document at ${path}: try /openapi/functions.json or /openapi/api.json`,
        });
      }
      return json(200, await documentOf(m[1] as Api));
    }),
  };
}

export const docsPart: PlatformPart = {
  name: "docs",
  start(p) {
    const s = docsServices(p);
    p.gateway.mount("/docs", s.docs);
    p.gateway.mount("/redoc", s.redoc);
    p.gateway.mount("/openapi", s.openapi);
    p.extraUrls["API docs"] = `${p.url}/docs`;
    p.extraUrls["Functions docs"] =
      `${p.url}/docs/functions (Redoc: /redoc/functions, JSON: /openapi/functions.json)`;
    p.extraUrls["AI backend API docs"] = `${p.url}/docs/api (Redoc: /redoc/api, JSON: /openapi/api.json)`;
    return Promise.resolve();
  },
};
