/** supabase/seed.sql: the demo accounts it documents can sign in and have what it says. */
import assert from "node:assert/strict";
import { anonClient, platformTest } from "../helpers/platform.ts";

platformTest(
  "the seeded demo admin signs in (pgcrypto bcrypt hashes verify) and owns the demo workspace",
  async (p) => {
    const { data, error } = await anonClient(p).auth.signInWithPassword({
      email: "admin@example.com",
      password: "demo-password",
    });
    assert.equal(error, null);
    const access = await p.db.query<{ role: string; ws: string }>(
      `select r.name as role, m.role as ws from public.user_profiles u join public.roles r on r.id = u.role_id
       join public.workspace_members m on m.user_id = u.user_id where u.user_id = $1`,
      [data.user!.id],
    );
    assert.deepEqual(access.rows, [{ role: "admin", ws: "owner" }]);
    const member = await anonClient(p).auth.signInWithPassword({
      email: "member@example.com",
      password: "demo-password",
    });
    assert.equal(member.error, null);
    const wrong = await anonClient(p).auth.signInWithPassword({
      email: "member@example.com",
      password: "nope-nope",
    });
    assert.equal(wrong.error?.code, "invalid_credentials");
  },
);
