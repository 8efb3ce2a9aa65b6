/**
 * The AI backend on its own: who it accepts (user JWTs and the service-role key; anonymous
 * callers 401 under /api; health and docs public), the OpenAPI document generated from the
 * validating schemas, self-contained docs pages, and re-embedding only on changed content.
 */
import assert from "node:assert/strict";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { CountingEmbeddings, grant, inProcessBackend } from "./helpers.ts";
import { signJwt } from "../../packages/shared/auth/jwt.ts";
import { GATEWAY_ACTIONS } from "../../packages/shared/gateway/actions.ts";

platformTest("anonymous callers get 401 under /api; health and docs are public", async (p) => {
  const { url } = aiBackendOf(p);
  assert.equal(await fetch(`${url}/api/kb/health`).then((r) => r.body?.cancel().then(() => r.status)), 401);
  const anon = await fetch(`${url}/api/kb/health`, {
    headers: { authorization: `Bearer ${p.config.anonKey}` },
  });
  assert.equal(anon.status, 401);
  await anon.body?.cancel();
  const forged = await signJwt(
    { sub: crypto.randomUUID(), role: "authenticated", exp: 2e9 },
    "not-the-secret-at-all-not-at-all-x",
  );
  const bad = await fetch(`${url}/api/kb/health`, { headers: { authorization: `Bearer ${forged}` } });
  assert.equal(bad.status, 401);
  await bad.body?.cancel();
  const health = await fetch(`${url}/health`).then((r) => r.json());
  assert.equal(health.status, "healthy");
  const svc = await fetch(`${url}/api/kb/health`, {
    headers: { authorization: `Bearer ${p.config.serviceRoleKey}` },
  });
  assert.equal(svc.status, 200);
  assert.equal((await svc.json()).scope, "all workspaces");
  const missing = await fetch(`${url}/api/nowhere`, {
    headers: { authorization: `Bearer ${p.config.serviceRoleKey}` },
  });
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).code, "not_found");
});

platformTest(
  "the OpenAPI document comes from the validating schemas; the docs pages (Swagger UI, Redoc) load nothing remote",
  async (p) => {
    const { url } = aiBackendOf(p);
    const doc = await fetch(`${url}/openapi.json`).then((r) => r.json());
    assert.equal(doc.openapi, "3.1.0");
    const create = doc.paths["/api/kb/documents"].post;
    assert.equal(
      create.requestBody.content["application/json"].schema.$ref,
      "#/components/schemas/KbDocumentCreate",
    );
    const schema = doc.components.schemas.KbDocumentCreate;
    assert.deepEqual(schema.required.sort(), ["content", "title", "workspace_id"]);
    // nullish: the four types, or null.
    assert.deepEqual(schema.properties.price_doc_type.enum.filter((v: unknown) => v !== null), [
      "price_list",
      "discount_rule",
      "contract_terms",
      "promotion",
    ]);
    assert.ok(doc.paths["/api/rag/search/knowledge-base"].post);
    assert.ok(doc.paths["/api/images/analyze"].post.responses["200"], "built routes are documented");
    // Every gateway action is a documented route with a success answer; none is a 501 placeholder.
    for (const [action, spec] of Object.entries(GATEWAY_ACTIONS)) {
      if (spec.group === "docs") continue;
      const op = doc.paths[spec.path.replace(/\{(\w+)\}/g, "{$1}")]?.[spec.method.toLowerCase()];
      assert.ok(op, `${action} is documented`);
      assert.ok(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)), `${action} documents its success`);
      assert.equal(op.responses["501"], undefined, `${action} is not a 501 placeholder`);
    }
    assert.equal(doc.components.securitySchemes.bearer.scheme, "bearer");
    for (const page of ["docs", "redoc"]) {
      const res = await fetch(`${url}/${page}`);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
      const html = await res.text();
      assert.match(html, /^<!doctype html>/);
      // The maintained viewer runs from an inline bundle; the document is inlined as JSON.
      assert.match(html, page === "docs" ? /SwaggerUIBundle\(/ : /Redoc\.init\(/);
      assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=/i, `${page} loads no script or style`);
      const inline = /<script type="application\/json" id="openapi">(.*?)<\/script>/s.exec(html);
      assert.ok(inline, `${page} carries the document`);
      assert.deepEqual(
        JSON.parse(inline[1]).paths["/api/rag/search/knowledge-base"],
        doc.paths["/api/rag/search/knowledge-base"],
      );
    }
  },
);

platformTest("an unchanged kb_update_document makes no embedding call; a changed one does", async (p) => {
  const embeddings = new CountingEmbeddings();
  const app = inProcessBackend(p, embeddings);
  const u = await createUser(p, "embed-calls");
  const ws = await createWorkspace(p, u.id);
  await grant(p, u.id, 20); // document writes are billed, also when the backend is called directly
  const call = async (method: string, path: string, body: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${u.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    assert.equal(res.status, 200, JSON.stringify(json));
    return json;
  };
  const content = "# Care\n\nClean porcelain tiles with a neutral detergent.";
  const created = await call("POST", "/api/kb/documents", { workspace_id: ws, title: "Care guide", content });
  assert.deepEqual(embeddings.calls, [{ count: 1, inputType: "document" }]);
  const id = created.document.id;

  const same = await call("PATCH", `/api/kb/documents/${id}`, { content });
  assert.equal(same.re_embedded, false);
  const retitled = await call("PATCH", `/api/kb/documents/${id}`, { title: "Care and cleaning", content });
  assert.equal(retitled.re_embedded, false);
  const upsertSame = await call("POST", "/api/kb/documents", {
    workspace_id: ws,
    title: "Care and cleaning",
    content,
  });
  assert.equal(upsertSame.re_embedded, false);
  assert.equal(embeddings.calls.length, 1, "no embedding call for unchanged content");

  const changed = await call("PATCH", `/api/kb/documents/${id}`, {
    content: `${content}\n\nNever use acid on marble.`,
  });
  assert.equal(changed.re_embedded, true);
  assert.deepEqual(embeddings.calls.at(-1), { count: 1, inputType: "document" });
  assert.equal(embeddings.calls.length, 2);

  await call("POST", "/api/kb/search", { workspace_id: ws, query: "acid marble" });
  assert.deepEqual(embeddings.calls.at(-1), { count: 1, inputType: "query" });
});
