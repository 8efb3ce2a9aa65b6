/**
 * One error shape for the ai-gateway surface, as a browser sees it: every failure, whether the
 * gateway's own (400 unknown action or bad payload, invalid JSON, 401 anon, 403 admin action,
 * 404 unknown path) or the AI backend's (402 insufficient credits, 404 unknown document or job),
 * is {success: false, error, code, details?, billing?}, with CORS, and with the backend's
 * x-credits-* headers when it billed.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { grant } from "./helpers.ts";

const ORIGIN = "https://app.example.test";
const ID = "00000000-0000-4000-8000-000000000000";
const MEMBERS = new Set(["success", "error", "code", "details", "billing"]);

interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** A browser's fetch to the gateway: Origin, apikey, and the body as given. */
async function browser(
  p: Platform,
  token: string,
  init: { method?: string; path?: string; body?: string } = {},
): Promise<Answer> {
  const res = await fetch(`${p.url}/functions/v1/ai-gateway${init.path ?? ""}`, {
    method: init.method ?? "POST",
    headers: {
      origin: ORIGIN,
      apikey: p.config.anonKey,
      authorization: `Bearer ${token}`,
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.body,
  });
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const action = (name: string, payload: Record<string, unknown> = {}) => ({
  body: JSON.stringify({ action: name, payload }),
});

/** The one failure shape, to the member. */
function assertFailure(r: Answer, status: number, code: string, what: string): void {
  assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.success, false, what);
  assert.equal(typeof r.body.error, "string", what);
  assert.ok(r.body.error.length > 0, what);
  assert.equal(r.body.code, code, what);
  for (const k of Object.keys(r.body)) assert.ok(MEMBERS.has(k), `${what}: unexpected member ${k}`);
  assert.equal(r.headers.get("access-control-allow-origin"), "*", what);
}

platformTest("the gateway's own failures answer {success: false, error, code, details?}", async (p) => {
  const user = await createUser(p, "gwerr-user");

  const unknown = await browser(p, user.accessToken, action("kb_frobnicate"));
  assertFailure(unknown, 400, "unknown_action", "unknown action");
  assert.ok(unknown.body.details.available_actions.includes("kb_search"));

  const missing = await browser(p, user.accessToken, action("kb_get_document"));
  assertFailure(missing, 400, "validation_failed", "missing path parameter");
  assert.deepEqual(missing.body.details[0].path, ["payload", "doc_id"]);

  const noAction = await browser(p, user.accessToken, { body: JSON.stringify({ payload: {} }) });
  assertFailure(noAction, 400, "validation_failed", "no action");
  assert.ok(Array.isArray(noAction.body.details));

  assertFailure(await browser(p, user.accessToken, { body: "{not json" }), 400, "invalid_json", "bad JSON");

  // The anon key is a valid JWT, so the platform lets it through and the gateway refuses it.
  assertFailure(await browser(p, p.config.anonKey, action("kb_health")), 401, "unauthorized", "anon");

  assertFailure(await browser(p, user.accessToken, action("admin_list_jobs")), 403, "forbidden", "admin");

  assertFailure(
    await browser(p, user.accessToken, { method: "GET", path: "/no-such-route" }),
    404,
    "not_found",
    "unknown path",
  );
});

platformTest("the backend's failures keep the same shape, billing headers and all", async (p) => {
  const poor = await createUser(p, "gwerr-poor");
  const ws = await createWorkspace(p, poor.id);
  await grant(p, poor.id, 1);

  const short = await browser(
    p,
    poor.accessToken,
    action("kb_create_document", { workspace_id: ws, title: "T", content: "text" }),
  );
  assertFailure(short, 402, "insufficient_credits", "insufficient credits");

  const gone = await browser(p, poor.accessToken, action("kb_get_document", { doc_id: ID }));
  assertFailure(gone, 404, gone.body.code, "unknown document");

  const job = await browser(p, poor.accessToken, { method: "GET", path: `/job-status/${ID}` });
  assertFailure(job, 404, job.body.code, "unknown job");

  // A success is still {success: true, data}.
  const health = await browser(p, poor.accessToken, action("kb_health"));
  assert.equal(health.status, 200);
  assert.equal(health.body.success, true);
  assert.ok("data" in health.body);
});
