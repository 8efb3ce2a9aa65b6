// Platform user records in the spec's shape.
import assert from "node:assert/strict";
import { toUserRecord } from "@shared/crm/mod.ts";

const row = {
  id: "p1",
  user_id: "u1",
  role_id: "r1",
  subscription_tier: "pro",
  status: "active",
  credits: 12.5,
  created_at: "2026-01-01T00:00:00+00:00",
  role_name: "manager",
  role_level: 70,
};

Deno.test("toUserRecord: spec fields, roles nested, credits a number", () => {
  assert.deepEqual(toUserRecord(row, "u1@example.com"), {
    id: "p1",
    user_id: "u1",
    email: "u1@example.com",
    role_id: "r1",
    subscription_tier: "pro",
    status: "active",
    credits: 12.5,
    created_at: "2026-01-01T00:00:00+00:00",
    roles: { id: "r1", name: "manager", level: 70 },
  });
});

Deno.test("toUserRecord: no role, no email", () => {
  const r = toUserRecord(
    { ...row, role_id: null, role_name: null, role_level: null, credits: "0" as never },
    null,
  );
  assert.equal(r.roles, null);
  assert.equal(r.email, null);
  assert.equal(r.credits, 0);
});
