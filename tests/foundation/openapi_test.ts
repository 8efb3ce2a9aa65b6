/**
 * The platform's API docs: one OpenAPI 3.1 document for /functions/v1 merged from every
 * function's route table, the AI backend's document, and the Swagger UI / Redoc pages on the
 * gateway (/docs, /redoc, /openapi), rendered from npm bundles inlined into the page.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { functionNames, functionsOpenApiDocument, leadingDocComment } from "../../stack/functions/openapi.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const METHODS = ["get", "put", "post", "delete", "patch"];
/** Functions whose every route must declare request and response schemas (not a bare record). */
const ROUTE_TABLES = [
  "crm-companies-api",
  "crm-contacts-api",
  "crm-users-api",
  "quotes-api",
  "generate-quote-pdf",
  "health-check",
];

async function getJson(url: string): Promise<Json> {
  const r = await fetch(url);
  assert.equal(r.status, 200, url);
  assert.match(r.headers.get("content-type") ?? "", /application\/json/);
  return await r.json();
}

/** Follows a $ref into components (one level, as the generator writes them). */
function deref(doc: Json, schema: Json): Json {
  if (!schema?.$ref) return schema;
  const name = schema.$ref.replace("#/components/schemas/", "");
  assert.ok(doc.components.schemas[name], `component ${name} exists`);
  return doc.components.schemas[name];
}

function operations(doc: Json, fn: string): [string, string, Json][] {
  const out: [string, string, Json][] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    if (path !== `/${fn}` && !path.startsWith(`/${fn}/`)) continue;
    for (const m of METHODS) if (item[m]) out.push([m, path, item[m]]);
  }
  return out;
}

platformTest("/openapi/functions.json: every function's routes, schemas and one tag each", async (p) => {
  const doc = await getJson(`${p.url}/openapi/functions.json`);
  assert.equal(doc.openapi, "3.1.0");
  assert.deepEqual(doc.servers.map((s: Json) => s.url), [`${p.url}/functions/v1`]);
  assert.equal(doc.components.securitySchemes.bearer.scheme, "bearer");
  assert.deepEqual(doc.security, [{ bearer: [] }]);

  // Every function folder is either a tag (with its routes) or named as undescribed.
  const tags = new Set(doc.tags.map((t: Json) => t.name));
  for (const name of await functionNames(p.config.rootDir)) {
    assert.ok(tags.has(name) || doc.info.description.includes(name), `${name} is accounted for`);
  }
  for (const fn of ROUTE_TABLES) {
    assert.ok(tags.has(fn), `${fn} has a tag`);
    const ops = operations(doc, fn);
    assert.ok(ops.length > 0, `${fn} has routes`);
    for (const [m, path, op] of ops) {
      const where = `${m.toUpperCase()} ${path}`;
      assert.deepEqual(op.tags, [fn], `${where}: tagged with its function`);
      assert.ok(op.summary, `${where}: has a summary`);
      const ok = Object.entries<Json>(op.responses).find(([status]) => status.startsWith("2"));
      assert.ok(ok, `${where}: a success response`);
      const schema = deref(doc, ok[1].content["application/json"].schema);
      assert.equal(schema.type, "object", `${where}: an object answer`);
      assert.ok(Object.keys(schema.properties ?? {}).length > 0, `${where}: its fields are declared`);
      if (m === "post" || m === "patch") {
        const body = op.requestBody?.content?.["application/json"]?.schema;
        assert.ok(body, `${where}: a request body schema`);
        assert.ok(
          Object.keys(deref(doc, body).properties ?? {}).length > 0,
          `${where}: body fields declared`,
        );
      }
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        const param = op.parameters?.find((x: Json) => `{${x.name}}` === name && x.in === "path");
        assert.ok(param, `${where}: ${name} is declared`);
        assert.equal(param.schema.type, "string");
      }
    }
  }

  const companies = doc.paths["/crm-companies-api"].post;
  assert.deepEqual(
    companies.responses["201"].content["application/json"].schema.properties.data,
    { $ref: "#/components/schemas/CrmCompany" },
  );
  assert.ok(doc.components.schemas.CrmCompany.properties.annual_revenue);
  assert.ok(companies.responses["400"] && companies.responses["403"], "error responses documented");
  const contacts = doc.paths["/crm-contacts-api/{id}"].get.responses["200"].content["application/json"];
  assert.deepEqual(contacts.schema.properties.data, {
    $ref: "#/components/schemas/CrmContactWithRelationships",
  });
  for (
    const path of [
      "/quotes-api/quote-requests",
      "/quotes-api/quote-requests/{id}",
      "/quotes-api/proposals",
      "/quotes-api/proposals/{id}",
      "/quotes-api/quotes/{id}",
      "/quotes-api/quote-items/{id}",
    ]
  ) assert.ok(doc.paths[path], `${path} is documented`);
  const status =
    doc.paths["/quotes-api/quote-requests/{id}"].patch.requestBody.content["application/json"].schema;
  assert.deepEqual(status.properties.status.enum, ["pending", "updated", "approved", "rejected"]);
  const pdf = doc.paths["/generate-quote-pdf"].post.responses["200"].content["application/json"].schema;
  assert.deepEqual(deref(doc, pdf).required.sort(), [
    "pdf_storage_path",
    "pdf_url",
    "quote_number",
    "success",
  ]);
  assert.equal(doc.paths["/health-check"].get.operationId, undefined, "no invented operation ids");

  // A function's tag is described by its app.ts's leading comment.
  const quotesTag = doc.tags.find((t: Json) => t.name === "quotes-api");
  const source = await Deno.readTextFile(`${p.config.rootDir}/supabase/functions/quotes-api/app.ts`);
  assert.equal(quotesTag.description, leadingDocComment(source));
  assert.match(quotesTag.description, /quote requests and proposals/);
});

platformTest("/openapi/api.json: the AI backend's document, with the backend as its server", async (p) => {
  const doc = await getJson(`${p.url}/openapi/api.json`);
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.title, "AI backend");
  assert.ok(doc.paths["/api/rag/search/knowledge-base"].post);
  assert.equal(doc.servers.length, 1);
  assert.match(doc.servers[0].url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const health = await fetch(`${doc.servers[0].url}/health`);
  assert.equal(health.status, 200, "the server named is the running backend");
  await health.body?.cancel();
});

platformTest(
  "/docs, /docs/{api}, /redoc/{api}: the viewers from npm, inline, nothing from elsewhere",
  async (p) => {
    const index = await fetch(`${p.url}/docs`);
    assert.equal(index.status, 200);
    assert.match(index.headers.get("content-type") ?? "", /text\/html/);
    const links = await index.text();
    for (
      const href of [
        "/docs/functions",
        "/redoc/functions",
        "/openapi/functions.json",
        "/docs/api",
        "/redoc/api",
      ]
    ) {
      assert.ok(links.includes(`href="${href}"`), `the index links ${href}`);
    }

    for (const api of ["functions", "api"]) {
      const doc = await getJson(`${p.url}/openapi/${api}.json`);
      const somePath = api === "functions" ? "/crm-companies-api/{id}" : "/api/rag/search/knowledge-base";
      for (const viewer of ["docs", "redoc"]) {
        const res = await fetch(`${p.url}/${viewer}/${api}`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /text\/html/);
        const html = await res.text();
        assert.match(html, /^<!doctype html>/);
        assert.match(html, viewer === "docs" ? /SwaggerUIBundle\(/ : /Redoc\.init\(/);
        assert.doesNotMatch(
          html,
          /<script[^>]+src=|<link[^>]+href=/i,
          `${viewer}/${api} loads no script or style`,
        );
        const inline = /<script type="application\/json" id="openapi">(.*?)<\/script>/s.exec(html);
        assert.ok(inline, `${viewer}/${api} carries the document`);
        assert.deepEqual(JSON.parse(inline[1]).paths[somePath], doc.paths[somePath]);
      }
    }

    const unknown = await fetch(`${p.url}/docs/nope`);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    const post = await fetch(`${p.url}/openapi/functions.json`, { method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
    assert.equal(p.extraUrls["API docs"], `${p.url}/docs`);
  },
);

Deno.test("the merged document names what it leaves out: broken, plain, route-less and clashing functions", async () => {
  const root = await Deno.makeTempDir();
  const health = new URL("../../supabase/functions/health-check/app.ts", import.meta.url).href;
  const fake = (doc: unknown) =>
    `export default { fetch: () => new Response(""), getOpenAPI31Document: () => (${JSON.stringify(doc)}) };`;
  const apps: Record<string, string> = {
    good: `/** The good one. */\nexport { default } from ${JSON.stringify(health)};`,
    broken: `throw new Error("boom at import");`,
    plain: `export default { fetch: () => new Response("") };`,
    empty: fake({ openapi: "3.1.0", info: { title: "x", version: "1" }, paths: {} }),
    "x-clash": fake({
      openapi: "3.1.0",
      info: { title: "x", version: "1" },
      paths: { "/x-clash": { get: { responses: { 200: { description: "ok" } } } } },
      components: { schemas: { Health: { type: "string" } } },
    }),
  };
  try {
    for (const [name, source] of Object.entries(apps)) {
      await Deno.mkdir(`${root}/supabase/functions/${name}`, { recursive: true });
      await Deno.writeTextFile(`${root}/supabase/functions/${name}/app.ts`, source);
    }
    await Deno.mkdir(`${root}/supabase/functions/_shared`);
    const doc: Json = await functionsOpenApiDocument({
      rootDir: root,
      url: "http://h",
      noVerifyJwt: new Set(["good"]),
    });
    assert.deepEqual(doc.servers, [{
      url: "http://h/functions/v1",
      description: "This platform's functions",
    }]);
    assert.deepEqual(doc.tags, [{ name: "good", description: "The good one." }]);
    assert.deepEqual(Object.keys(doc.paths), ["/health-check"], "the app's own paths, under its base path");
    assert.deepEqual(
      doc.paths["/health-check"].get.security,
      [{ bearer: [] }, {}],
      "verify_jwt off: optional",
    );
    assert.equal(doc.components.schemas.Health.type, "object", "the clashing description is not merged");
    const told = doc.info.description;
    assert.match(told, /broken \(fails to load: boom at import\)/);
    assert.match(told, /plain \(not an OpenAPIHono app\)/);
    assert.match(told, /empty \(declares no routes with createRoute\)/);
    assert.match(told, /x-clash \(components\.schemas\.Health clash/);
    assert.doesNotMatch(told, /_shared/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
