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
    // Like every account, each demo account also owns its personal workspace.
    const access = (userId: string) =>
      p.db.query<{ role: string; workspace: string; is_personal: boolean; ws: string }>(
        `select r.name as role, w.name as workspace, w.is_personal, m.role as ws
           from public.user_profiles u join public.roles r on r.id = u.role_id
           join public.workspace_members m on m.user_id = u.user_id
           join public.workspaces w on w.id = m.workspace_id
          where u.user_id = $1 order by w.is_personal, w.name`,
        [userId],
      );
    assert.deepEqual((await access(data.user!.id)).rows, [
      { role: "admin", workspace: "Demo Catalog", is_personal: false, ws: "owner" },
      { role: "admin", workspace: "Personal", is_personal: true, ws: "owner" },
    ]);
    const member = await anonClient(p).auth.signInWithPassword({
      email: "member@example.com",
      password: "demo-password",
    });
    assert.equal(member.error, null);
    assert.deepEqual((await access(member.data.user!.id)).rows, [
      { role: "user", workspace: "Demo Catalog", is_personal: false, ws: "member" },
      { role: "user", workspace: "Personal", is_personal: true, ws: "owner" },
    ]);
    const wrong = await anonClient(p).auth.signInWithPassword({
      email: "member@example.com",
      password: "nope-nope",
    });
    assert.equal(wrong.error?.code, "invalid_credentials");
  },
);
