/**
 * The CRM factory role cannot turn potential-matches into an account directory: a contact with
 * someone's e-mail reveals nothing about that person's account (id, platform role, tier, status)
 * to a factory user; admins, managers and the service role still see the matches.
 */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { call } from "../quotes/helpers.ts";

const FN = "crm-contacts-api";

platformTest("factory: potential-matches reveals no account behind an e-mail it typed in", async (p) => {
  const [factory, manager, victim] = await Promise.all(
    ["factory", "manager", "victim"].map((x) => createUser(p, `lookup-${x}`)),
  );
  await setPlatformRole(p, factory.id, "factory");
  await setPlatformRole(p, manager.id, "manager");
  await setPlatformRole(p, victim.id, "admin");
  // The probe: a contact carrying the e-mail of the account the factory user wants to learn about.
  const probe = await call(p, FN, "", {
    method: "POST",
    token: factory.accessToken,
    body: { name: "Probe", email: victim.email },
  });
  assert.equal(probe.status, 201);

  const f = await call(p, FN, "/potential-matches", { token: factory.accessToken });
  assert.equal(f.status, 200);
  assert.deepEqual(f.body, { data: [], count: 0 });
  const text = JSON.stringify(f.body);
  for (const secret of [victim.id, "admin", "suspended", "active"]) assert.ok(!text.includes(secret), secret);

  // Those who manage every contact still get the match, with the profile.
  for (const token of [manager.accessToken, p.config.serviceRoleKey]) {
    const m = await call(p, FN, "/potential-matches", { token });
    assert.equal(m.status, 200);
    const match =
      (m.body.data as { contact: { id: string }; user: { id: string; profile: { status: string } } }[])
        .find((x) => x.contact.id === (probe.body.data as { id: string }).id);
    assert.equal(match?.user.id, victim.id);
    assert.equal(match?.user.profile.status, "active");
  }
});
