/** A JWT signed with the project secret can only name a role `authenticator` may switch to. */
import assert from "node:assert/strict";
import { signJwt } from "@shared/auth/jwt.ts";
import { platformTest } from "../helpers/platform.ts";

platformTest("a JWT claiming a superuser role is refused with 403 42501", async (p) => {
  for (const role of ["postgres", "supabase_admin", "authenticator"]) {
    const token = await signJwt({ role, exp: Math.floor(Date.now() / 1000) + 60 }, p.config.jwtSecret);
    const r = await fetch(`${p.url}/rest/v1/workspaces?select=id`, {
      headers: { apikey: p.config.anonKey, Authorization: `Bearer ${token}` },
    });
    assert.equal(r.status, 403, role);
    const body = await r.json();
    assert.equal(body.code, "42501");
    assert.match(body.message, new RegExp(`permission denied to set role "${role}"`));
  }
});
