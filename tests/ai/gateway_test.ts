/**
 * ai-gateway routing over HTTP: every action of the map reaches a real backend route (none
 * answers 501), unknown actions
 * and bad payloads are 400s naming the field, anonymous callers 401, admin actions 403 for
 * non-admins.
 */
import assert from "node:assert/strict";
import { GATEWAY_ACTIONS, pathParams } from "../../packages/shared/gateway/mod.ts";
import { createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { gateway } from "./helpers.ts";

const ID = "00000000-0000-4000-8000-000000000000";
const SAMPLE: Record<string, string> = {
  doc_id: ID,
  product_id: ID,
  job_id: ID,
  document_id: ID,
  image_id: ID,
  session_id: ID,
  prompt_id: ID,
  stage: "chunking",
  category: "tiles",
  model_name: "m",
  task_type: "pricing",
};

platformTest("every action reaches its backend route, and none answers 501", async (p) => {
  const service = p.config.serviceRoleKey;
  const seen: string[] = [];
  for (const [action, spec] of Object.entries(GATEWAY_ACTIONS)) {
    const payload = Object.fromEntries(pathParams(spec.path).map((n) => [n, SAMPLE[n]]));
    const r = await gateway(p, service, action, payload);
    assert.doesNotMatch(
      String(r.body?.error ?? ""),
      /^No route for /,
      `${action}: ${JSON.stringify(r.body)}`,
    );
    assert.ok(
      r.status !== 405 && r.status < 500 || r.status === 503,
      `${action}: ${r.status}`,
    );
    assert.notEqual(r.status, 501, `${action} answers 501`);
    seen.push(action);
  }
  assert.equal(seen.length, Object.keys(GATEWAY_ACTIONS).length);
});

platformTest("docs pages are HTML, openapi_json is the document, wrapped as {success, data}", async (p) => {
  const docs = await gateway(p, p.config.serviceRoleKey, "docs");
  assert.equal(docs.status, 200);
  assert.match(docs.headers.get("content-type") ?? "", /text\/html/);
  assert.match(docs.body, /\/api\/kb\/documents/);
  const redoc = await gateway(p, p.config.serviceRoleKey, "redoc");
  assert.match(redoc.body, /KbDocumentCreate/);
  const spec = await gateway(p, p.config.serviceRoleKey, "openapi_json");
  assert.equal(spec.body.success, true);
  assert.equal(spec.body.data.openapi, "3.1.0");
});

platformTest(
  "unknown actions, missing path parameters and bad payloads are 400s naming the field",
  async (p) => {
    const token = p.config.serviceRoleKey;
    const unknown = await gateway(p, token, "kb_frobnicate");
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, "unknown_action");
    assert.ok(unknown.body.details.available_actions.includes("kb_search"));

    const missing = await gateway(p, token, "kb_get_document", {});
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /payload\.doc_id is required/);

    const bad = await gateway(p, token, "kb_create_document", { workspace_id: ID, content: "x" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
    assert.match(bad.body.error, /title/);
    assert.equal(bad.body.code, "validation_failed");

    const notUuid = await gateway(p, token, "kb_get_document", { doc_id: "not-a-uuid" });
    assert.equal(notUuid.status, 400);
    assert.match(notUuid.body.error, /doc_id/);

    const res = await fetch(`${p.url}/functions/v1/ai-gateway`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "invalid_json");
  },
);

platformTest("anonymous callers are refused; admin actions need the platform admin role", async (p) => {
  assert.equal((await gateway(p, null, "kb_health")).status, 401);
  const anon = await gateway(p, p.config.anonKey, "kb_health");
  assert.equal(anon.status, 401);
  const user = await createUser(p, "gw-user");
  const denied = await gateway(p, user.accessToken, "admin_list_jobs");
  assert.equal(denied.status, 403);
  const storage = await gateway(p, user.accessToken, "monitoring_storage_estimate");
  assert.equal(storage.status, 403);
  const admin = await createUser(p, "gw-admin");
  await setPlatformRole(p, admin.id, "admin");
  const allowed = await gateway(p, admin.accessToken, "admin_list_jobs");
  assert.equal(allowed.status, 200);
  const est = await gateway(p, admin.accessToken, "monitoring_storage_estimate");
  assert.equal(est.status, 200);
  assert.equal(typeof est.body.data.total_bytes, "number");
});

platformTest("a hostile path parameter stays one encoded segment", async (p) => {
  const r = await gateway(p, p.config.serviceRoleKey, "kb_get_document", { doc_id: "../../openapi.json" });
  assert.equal(r.status, 400, "the backend sees one doc_id segment, not a new path");
  assert.match(r.body.error, /doc_id/);
});
