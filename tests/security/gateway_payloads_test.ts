/**
 * Every ai-gateway action's payload is closed (issue 31): for each action of the action map, a
 * payload with the action's required keys reaches the AI backend, and the same payload with
 * `bogus` is a 400 naming it, with no backend call and no credit moved. A spy backend (the real
 * billing middleware, then a canned answer) stands in for the AI backend so that every action
 * can be reached without its data. And the backend refuses an unknown body key on every route an
 * action with a JSON body reaches, for callers that skip the gateway.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { GATEWAY_ACTIONS } from "../../packages/shared/gateway/actions.ts";
import { GATEWAY_PAYLOADS } from "../../packages/shared/gateway/payloads.ts";
import { buildBackendRequest } from "../../packages/shared/gateway/request.ts";
import { LocalHashEmbeddings } from "../../packages/shared/embeddings/local.ts";
import { createUser, createWorkspace, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { balance, billingBackendSpy, gateway, grant, inProcessBackend } from "../ai/helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const UUID = "0b9c6f3e-1d2a-4c5b-8e7f-9a0b1c2d3e4f";

/** A value of a property schema (the gateway checks keys; the spy takes any value). */
function sample(schema: Json, workspace: string, name: string): unknown {
  if (name === "workspace_id") return workspace;
  if (schema?.enum) return schema.enum[0];
  if (schema?.format === "uuid") return UUID;
  if (schema?.type === "integer" || schema?.type === "number") return schema.minimum ?? 1;
  if (schema?.type === "boolean") return false;
  if (schema?.type === "array") return [sample(schema.items, workspace, "")];
  if (schema?.type === "object") return {};
  return "x";
}

/** The required keys of an action's payload, each with a sample value. */
function validPayload(action: string, workspace: string): Record<string, unknown> {
  const schema = GATEWAY_PAYLOADS[action] as Json;
  const out: Record<string, unknown> = {};
  for (const key of schema.required ?? []) out[key] = sample(schema.properties[key], workspace, key);
  return out;
}

/** A stand-in backend that bills like the real one, then answers 200 (tests/ai/helpers.ts). */
function spyBackend(p: Platform) {
  // The members the map unwraps, so every action's answer is well formed.
  const object = { id: UUID };
  return billingBackendSpy(
    p,
    (c) => c.json({ document: object, category: object, attachment: object, prompt: object, image: object }),
  );
}

platformTest(
  "every gateway action: its payload passes, the same with bogus is a 400 charging nothing",
  async (p) => {
    const admin = await createUser(p, "gw-payload-admin");
    await setPlatformRole(p, admin.id, "admin");
    const ws = await createWorkspace(p, admin.id);
    await grant(p, admin.id, 1000);
    const spy = spyBackend(p);
    try {
      for (const action of Object.keys(GATEWAY_ACTIONS)) {
        const payload = validPayload(action, ws);
        const passed = await gateway(p, admin.accessToken, action, payload);
        assert.equal(passed.status, 200, `${action}: ${JSON.stringify(passed.body)}`);
        const expected = buildBackendRequest(GATEWAY_ACTIONS[action], payload).path.split("?")[0];
        assert.equal(spy.calls.pop(), `${GATEWAY_ACTIONS[action].method} ${expected}`, action);

        const before = await balance(p, admin.id);
        const refused = await gateway(p, admin.accessToken, action, { ...payload, bogus: 1 });
        assert.equal(refused.status, 400, `${action}: ${JSON.stringify(refused.body)}`);
        assert.deepEqual(
          [refused.body.success, refused.body.code, refused.body.error],
          [false, "validation_failed", `Invalid payload of ${action}: unknown field "bogus"`],
          action,
        );
        assert.deepEqual(spy.calls, [], `${action}: the backend was not called`);
        assert.equal(await balance(p, admin.id), before, `${action}: nothing charged`);
      }
    } finally {
      await spy.stop();
    }
    const ledger = await p.db.query(
      `select 1 from public.credit_transactions where user_id = $1 and kind = 'refund'`,
      [admin.id],
    );
    assert.equal(ledger.rows.length, 0, "no debit was taken back: none was made");
  },
);

platformTest(
  "the AI backend refuses an unknown body key on every route a gateway action posts to",
  async (p) => {
    const backend = inProcessBackend(p, new LocalHashEmbeddings());
    let checked = 0;
    for (const [action, spec] of Object.entries(GATEWAY_ACTIONS)) {
      const schema = GATEWAY_PAYLOADS[action] as Json;
      const params: string[] = spec.path.match(/\{[a-z_]+\}/g) ?? [];
      const bodyKeys = Object.keys(schema.properties).filter((k) => !params.includes(`{${k}}`));
      if (spec.method === "GET" || bodyKeys.length === 0) continue;
      const path = spec.path.replaceAll(
        /\{[a-z_]+\}/g,
        spec.path.includes("prompts/{stage}") ? "pricing" : UUID,
      );
      const res = await backend.request(path, {
        method: spec.method,
        headers: { authorization: `Bearer ${p.config.serviceRoleKey}`, "content-type": "application/json" },
        body: JSON.stringify({ bogus: 1 }),
      });
      const body = await res.json();
      assert.equal(res.status, 400, `${action}: ${JSON.stringify(body)}`);
      assert.equal(body.code, "validation_failed", action);
      assert.match(body.error, /unknown field "bogus"/, action);
      checked++;
    }
    assert.ok(checked >= 40, `${checked} routes checked`);
  },
);
