/**
 * The backend's API description: an OpenAPI 3.1 document generated from the same zod schemas
 * that validate the requests (@hono/zod-openapi), and two HTML views of it rendered on the
 * server - `/docs` (operations by tag) and `/redoc` (a reference of operations and schemas).
 * Both pages are self-contained: no scripts, styles or fonts from a CDN, nothing loaded at run
 * time, so they work offline and under a strict CSP.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { BackendEnv } from "./context.ts";

export const API_INFO = {
  title: "AI backend",
  version: "1.0.0",
  description:
    "Knowledge base (categories, documents, hybrid search, Pricing quick pick), async document uploads, " +
    "monitoring. Reached directly or through the ai-gateway edge function. Authenticate with a user JWT " +
    "(RLS applies) or the service-role key.",
};

type Doc = ReturnType<OpenAPIHono<BackendEnv>["getOpenAPI31Document"]>;
type Operation = {
  summary?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string }>;
};

export function openApiDocument(app: OpenAPIHono<BackendEnv>): Doc {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: API_INFO,
    security: [{ bearer: [] }],
  });
}

const esc = (s: unknown) =>
  String(s ?? "").replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header{background:#1d2330;color:#fff;padding:16px 32px}main{padding:16px 32px;max-width:1100px}
h2{border-bottom:1px solid #d8dde6;padding-bottom:4px;margin-top:32px}
details{background:#fff;border:1px solid #d8dde6;border-radius:6px;margin:6px 0;padding:6px 12px}
summary{cursor:pointer}code,pre{font:13px ui-monospace,monospace}pre{background:#f2f4f7;padding:8px;overflow:auto}
.m{display:inline-block;min-width:64px;font-weight:600;text-transform:uppercase}
.get{color:#1a7f37}.post{color:#0969da}.patch,.put{color:#9a6700}.delete{color:#cf222e}
nav a{display:block;color:#0969da;text-decoration:none}.cols{display:grid;grid-template-columns:240px 1fr;gap:24px}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>` +
    `<body><header><strong>${esc(API_INFO.title)}</strong> ${esc(API_INFO.version)} &middot; ${
      esc(title)
    } &middot; ` +
    `<a style="color:#9cc3ff" href="/openapi.json">openapi.json</a></header><main>${body}</main></body></html>`;
}

function operations(doc: Doc): { path: string; method: string; op: Operation }[] {
  const out: { path: string; method: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
      out.push({ path, method, op });
    }
  }
  return out;
}

function operationHtml({ path, method, op }: { path: string; method: string; op: Operation }): string {
  const params = (op.parameters ?? []).map((p) =>
    `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ", required" : ""}): <code>${
      esc(JSON.stringify(p.schema))
    }</code></li>`
  ).join("");
  const bodies = Object.entries(op.requestBody?.content ?? {}).map(([type, c]) =>
    `<p>Body <code>${esc(type)}</code></p><pre>${esc(JSON.stringify(c.schema, null, 2))}</pre>`
  ).join("");
  const responses = Object.entries(op.responses ?? {}).map(([code, r]) =>
    `<li><code>${esc(code)}</code> ${esc(r.description)}</li>`
  ).join("");
  return `<details><summary><span class="m ${esc(method)}">${esc(method)}</span> <code>${esc(path)}</code> ` +
    `&mdash; ${esc(op.summary)}</summary>${
      params ? `<ul>${params}</ul>` : ""
    }${bodies}<ul>${responses}</ul></details>`;
}

/** `/docs`: every operation grouped by tag, expandable to its parameters, body schema and responses. */
export function docsHtml(doc: Doc): string {
  const byTag = new Map<string, string[]>();
  for (const o of operations(doc)) {
    const tag = o.op.tags?.[0] ?? "Other";
    byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(o)]);
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2>${esc(tag)}</h2>${ops.join("")}`).join("");
  return page("API docs", `<p>${esc(API_INFO.description)}</p>${sections}`);
}

/** `/redoc`: a reference page - navigation, operations, then every named schema. */
export function redocHtml(doc: Doc): string {
  const ops = operations(doc);
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Record<string, unknown>);
  const nav =
    ops.map((o, i) => `<a href="#op${i}">${esc(o.method.toUpperCase())} ${esc(o.path)}</a>`).join("") +
    schemas.map(([name]) => `<a href="#schema-${esc(name)}">${esc(name)}</a>`).join("");
  const body =
    ops.map((o, i) =>
      `<section id="op${i}">${operationHtml(o).replace("<details>", "<details open>")}</section>`
    )
      .join("") +
    `<h2>Schemas</h2>` +
    schemas.map(([name, s]) =>
      `<h3 id="schema-${esc(name)}">${esc(name)}</h3><pre>${esc(JSON.stringify(s, null, 2))}</pre>`
    )
      .join("");
  return page("API reference", `<div class="cols"><nav>${nav}</nav><div>${body}</div></div>`);
}
