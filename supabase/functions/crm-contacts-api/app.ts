/**
 * /functions/v1/crm-contacts-api (spec "CRM contacts"): admin, manager and factory platform
 * roles. Contacts are read and written as the caller, so RLS applies the CRM visibility rule
 * (factory users see only the contacts they created); what the caller cannot see is a 404.
 *
 * The auth admin API (emails of platform users) and the set of already-linked users are read
 * with the service role, after platformRoles.
 */
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { parseJson, parseParams, parseQuery } from "@shared/http/validate.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import { db, platformRoles } from "@shared/auth/context.ts";
import { serviceClient } from "@shared/supabase/clients.ts";
import { findAuthUser, listAllAuthUsers } from "@shared/supabase/auth_admin.ts";
import { one, rows } from "@shared/supabase/postgrest.ts";
import {
  BulkLinkBody,
  type BulkLinkError,
  CreateContactBody,
  findPotentialMatches,
  IdParam,
  LinkUserBody,
  planBulkLinks,
  UpdateContactBody,
  UserIdParam,
} from "@shared/crm/mod.ts";
import { linkedUserIds, profilesOf, readAllContacts } from "./reads.ts";

const CRM_ROLES = ["admin", "manager", "factory"];
const CONTACT = "id, name, email, phone, company, notes, user_id, created_by, created_at, updated_at";
// Two foreign keys lead from relationships to contacts; the hint picks "relationships of this contact".
const CONTACT_WITH_RELATIONSHIPS = `${CONTACT}, crm_contact_relationships!contact_id(*)`;

const app = createFunctionApp("crm-contacts-api");
app.use("*", platformRoles(CRM_ROLES));

app.post("/", async (c) => {
  const body = await parseJson(c, CreateContactBody);
  const data = one(await db(c).from("crm_contacts").insert(body).select(CONTACT).single(), "Contact");
  return c.json({ data }, 201);
});

app.get("/", async (c) => {
  const [from, to] = pageRange(parseQuery(c, paginationSchema(50)));
  const r = await db(c).from("crm_contacts").select(CONTACT, { count: "exact" })
    .order("created_at", { ascending: false }).order("id", { ascending: false }).range(from, to);
  return c.json({ data: rows(r), count: r.count ?? 0 });
});

app.get("/potential-matches", async (c) => {
  const contacts = await readAllContacts(db(c));
  const service = serviceClient();
  const [users, linked] = await Promise.all([listAllAuthUsers(service), linkedUserIds(service)]);
  const matches = findPotentialMatches(contacts, users, linked);
  const profiles = await profilesOf(service, [...new Set(matches.map((m) => m.user.id))]);
  const data = matches.map((m) => ({ ...m, user: { ...m.user, profile: profiles.get(m.user.id) ?? null } }));
  return c.json({ data, count: data.length });
});

app.post("/bulk-link", async (c) => {
  const { links: items } = await parseJson(c, BulkLinkBody);
  const { links, errors } = planBulkLinks(items);
  const client = db(c);
  const users = new Set((await listAllAuthUsers(serviceClient())).map((u) => u.id));
  const data: unknown[] = [];
  const fail = (e: Omit<BulkLinkError, "error">, error: string) => errors.push({ ...e, error });
  for (const link of links) {
    const ref = { index: link.index, contactId: link.contactId, userId: link.userId };
    if (!users.has(link.userId)) {
      fail(ref, "User not found");
      continue;
    }
    const current = await client.from("crm_contacts").select("id, user_id").eq("id", link.contactId)
      .maybeSingle();
    if (current.error || !current.data) {
      fail(ref, current.error ? current.error.message : "Contact not found");
      continue;
    }
    if (current.data.user_id && current.data.user_id !== link.userId) {
      fail(ref, "Contact is already linked to another user");
      continue;
    }
    const r = await client.from("crm_contacts").update({ user_id: link.userId }).eq("id", link.contactId)
      .select(CONTACT).maybeSingle();
    if (r.error) {
      fail(ref, r.error.code === "23505" ? "User is already linked to another contact" : r.error.message);
    } else if (!r.data) fail(ref, "Contact not found");
    else data.push(r.data);
  }
  errors.sort((a, b) => a.index - b.index);
  return c.json({ data, errors, successCount: data.length, errorCount: errors.length });
});

app.get("/by-user/:userId", async (c) => {
  const { userId } = parseParams(c, UserIdParam);
  const data = one(
    await db(c).from("crm_contacts").select(CONTACT_WITH_RELATIONSHIPS).eq("user_id", userId)
      .maybeSingle(),
    "Contact",
  );
  return c.json({ data });
});

app.get("/:id", async (c) => {
  const { id } = parseParams(c, IdParam);
  const data = one(
    await db(c).from("crm_contacts").select(CONTACT_WITH_RELATIONSHIPS).eq("id", id).maybeSingle(),
    "Contact",
  );
  return c.json({ data });
});

app.patch("/:id", async (c) => {
  const { id } = parseParams(c, IdParam);
  const body = await parseJson(c, UpdateContactBody);
  const data = one(
    await db(c).from("crm_contacts").update(body).eq("id", id).select(CONTACT).maybeSingle(),
    "Contact",
  );
  return c.json({ data });
});

// Relationships (both directions) and company links go with the contact (on delete cascade).
app.delete("/:id", async (c) => {
  const { id } = parseParams(c, IdParam);
  one(await db(c).from("crm_contacts").delete().eq("id", id).select("id").maybeSingle(), "Contact");
  return c.json({ success: true });
});

app.post("/:id/link-user", async (c) => {
  const { id } = parseParams(c, IdParam);
  const { userId } = await parseJson(c, LinkUserBody);
  if (!(await findAuthUser(serviceClient(), userId))) throw HttpError.notFound("User not found");
  const data = one(
    await db(c).from("crm_contacts").update({ user_id: userId }).eq("id", id).select(CONTACT)
      .maybeSingle(),
    "Contact",
  );
  return c.json({ data });
});

app.delete("/:id/unlink-user", async (c) => {
  const { id } = parseParams(c, IdParam);
  const data = one(
    await db(c).from("crm_contacts").update({ user_id: null }).eq("id", id).select(CONTACT)
      .maybeSingle(),
    "Contact",
  );
  return c.json({ data });
});

export default app;
