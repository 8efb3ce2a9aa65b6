/**
 * CRM row-level security through /rest/v1: platform roles gate the tables, factory users are
 * confined to their own rows, and nobody writes rows in someone else's name.
 */
import assert from "node:assert/strict";
import { anonClient, createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";

platformTest("CRM tables: staff roles only; factory users confined to their own rows", async (p) => {
  const manager = await createUser(p, "rc-mgr");
  const f1 = await createUser(p, "rc-f1");
  const f2 = await createUser(p, "rc-f2");
  const plain = await createUser(p, "rc-user");
  await setPlatformRole(p, manager.id, "manager");
  await setPlatformRole(p, f1.id, "factory");
  await setPlatformRole(p, f2.id, "factory");

  const c1 = (await f1.client.from("crm_contacts").insert({ name: "F1 lead" }).select().single()).data!;
  const co1 = (await f1.client.from("crm_companies").insert({ name: "F1 Co" }).select().single()).data!;
  const c2 = (await f2.client.from("crm_contacts").insert({ name: "F2 lead" }).select().single()).data!;

  assert.deepEqual((await plain.client.from("crm_contacts").select("id")).data, [], "plain users see no CRM");
  assert.equal((await plain.client.from("crm_contacts").insert({ name: "x" })).status, 403);
  assert.equal((await anonClient(p).from("crm_contacts").select("id")).status, 401);
  const f2sees = (await f2.client.from("crm_contacts").select("id")).data!.map((r) => r.id);
  assert.ok(f2sees.includes(c2.id) && !f2sees.includes(c1.id));
  const mgrSees = (await manager.client.from("crm_contacts").select("id").in("id", [c1.id, c2.id])).data!;
  assert.equal(mgrSees.length, 2);

  const forged = await f2.client.from("crm_contacts").insert({ name: "x", created_by: f1.id });
  assert.ok(forged.error, "created_by is not a client column");
  const steal = await f2.client.from("crm_contacts").update({ name: "mine" }).eq("id", c1.id).select();
  assert.deepEqual(steal.data, [], "another factory's contact cannot be changed");
  // A factory user cannot attach another factory's contact to their company, or relate to it.
  const link = await f2.client.from("crm_company_contacts").insert({ company_id: co1.id, contact_id: c2.id });
  assert.equal(link.status, 403);
  const rel = await f2.client.from("crm_contact_relationships")
    .insert({ contact_id: c2.id, related_contact_id: c1.id, relationship_type: "knows" });
  assert.equal(rel.status, 403);

  // Suspension takes effect at once: RLS reads the role and status on every statement.
  await p.db.query(`update public.user_profiles set status = 'suspended' where user_id = $1`, [f1.id]);
  assert.deepEqual((await f1.client.from("crm_contacts").select("id")).data, []);
});
