/**
 * GET /rest/v1/: the OpenAPI 2.0 description PostgREST serves at its root, reduced to what
 * tools read from it: one path per table, view and function of the requested schema, and a
 * definition per relation with its columns, their formats, required columns and primary keys.
 */
import type { SchemaCache } from "./schema-cache.ts";
import type { ApiRequest } from "./types.ts";

function jsonType(pgType: string): { type: string; format: string; items?: { type: string } } {
  const base = pgType.replace(/\(.*\)$/, "");
  if (base.endsWith("[]")) return { type: "array", format: pgType, items: { type: "string" } };
  if (["smallint", "integer", "bigint"].includes(base)) return { type: "integer", format: pgType };
  if (["numeric", "real", "double precision"].includes(base)) return { type: "number", format: pgType };
  if (base === "boolean") return { type: "boolean", format: pgType };
  if (base === "json" || base === "jsonb") return { type: "object", format: pgType };
  return { type: "string", format: pgType };
}

export function openApi(cache: SchemaCache, api: ApiRequest, schemas: string[]): Response {
  const paths: Record<string, unknown> = {
    "/": { get: { tags: ["Introspection"], summary: "OpenAPI description" } },
  };
  const definitions: Record<string, unknown> = {};
  for (const t of cache.tables.values()) {
    if (t.schema !== api.schema) continue;
    const ref = { $ref: `#/definitions/${t.name}` };
    paths[`/${t.name}`] = {
      get: {
        tags: [t.name],
        responses: { "200": { description: "OK", schema: { type: "array", items: ref } } },
      },
      ...(t.isView
        ? {}
        : { post: { tags: [t.name] }, patch: { tags: [t.name] }, delete: { tags: [t.name] } }),
    };
    definitions[t.name] = {
      type: "object",
      required: t.columns.filter((c) => !c.nullable && c.default === null).map((c) => c.name),
      properties: Object.fromEntries(t.columns.map((c) => [
        c.name,
        {
          ...jsonType(c.type),
          ...(t.pk.includes(c.name) ? { description: "Note:\nThis is a Primary Key.<pk/>" } : {}),
        },
      ])),
    };
  }
  for (const [key, routines] of cache.routines) {
    const r = routines[0];
    if (r.schema !== api.schema) continue;
    paths[`/rpc/${key.slice(r.schema.length + 1)}`] = {
      post: {
        tags: ["(rpc) " + r.name],
        parameters: [{
          in: "body",
          name: "args",
          required: true,
          schema: {
            type: "object",
            required: r.params.filter((p) => !p.hasDefault).map((p) => p.name),
            properties: Object.fromEntries(r.params.map((p) => [p.name, jsonType(p.type)])),
          },
        }],
      },
    };
  }
  const doc = {
    swagger: "2.0",
    info: {
      title: "PostgREST API (local platform)",
      description: `Schemas: ${schemas.join(", ")}`,
      version: "14",
    },
    basePath: "/",
    schemes: ["http"],
    consumes: ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
    produces: ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
    paths,
    definitions,
  };
  const headers = {
    "content-type": "application/openapi+json; charset=utf-8",
    "content-profile": api.schema,
  };
  return new Response(api.action.kind === "root" && api.action.head ? null : JSON.stringify(doc), {
    status: 200,
    headers,
  });
}
