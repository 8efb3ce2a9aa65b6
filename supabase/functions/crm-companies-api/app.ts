/**
 * /functions/v1/crm-companies-api (spec "CRM companies"): admin, manager and factory platform
 * roles, every query as the caller so RLS applies the CRM visibility rule (factory users see
 * only their own companies and contacts); what the caller cannot see is a 404.
 */
import { z } from "zod";
import { createFunctionApp } from "@shared/http/app.ts";
import { parseJson, parseParams, parseQuery } from "@shared/http/validate.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import { dbFor, requirePlatformRole } from "@shared/auth/context.ts";
import { one, rows } from "@shared/supabase/postgrest.ts";
import {
  CompanyListQuery,
  companySearchFilter,
  CreateCompanyBody,
  IdParam,
  LinkCompanyContactBody,
  UpdateCompanyBody,
  Uuid,
} from "@shared/crm/mod.ts";

const CRM_ROLES = ["admin", "manager", "factory"];
const LINK = "id, company_id, contact_id, role, is_primary, notes, created_at";
const COMPANY_WITH_CONTACTS = `*, crm_company_contacts(${LINK}, crm_contacts(*))`;
const ListQuery = paginationSchema(50).extend(CompanyListQuery.shape);
const LinkParams = z.object({ companyId: Uuid, relationshipId: Uuid });

const app = createFunctionApp("crm-companies-api");

app.post("/", async (c) => {
  const who = await requirePlatformRole(c, CRM_ROLES);
  const body = await parseJson(c, CreateCompanyBody);
  const data = one(await dbFor(who).from("crm_companies").insert(body).select("*").single(), "Company");
  return c.json({ data }, 201);
});

app.get("/", async (c) => {
  const who = await requirePlatformRole(c, CRM_ROLES);
  const q = parseQuery(c, ListQuery);
  const [from, to] = pageRange(q);
  let query = dbFor(who).from("crm_companies").select("*", { count: "exact" });
  // The search term is escaped and quoted (see companySearchFilter): it cannot add filters.
  if (q.search) query = query.or(companySearchFilter(q.search));
  const r = await query.order("created_at", { ascending: false }).order("id", { ascending: false }).range(
    from,
    to,
  );
  return c.json({ data: rows(r), count: r.count ?? 0 });
});

app.get("/:id", async (c) => {
  const who = await requirePlatformRole(c, CRM_ROLES);
  const { id } = parseParams(c, IdParam);
  const data = one(
    await dbFor(who).from("crm_companies").select(COMPANY_WITH_CONTACTS).eq("id", id).maybeSingle(),
    "Company",
  );
  return c.json({ data });
});

app.patch("/:id", async (c) => {
  const who = await requirePlatformRole(c, CRM_ROLES);
  const { id } = parseParams(c, IdParam);
  const body = await parseJson(c, UpdateCompanyBody);
  const data = one(
    await dbFor(who).from("crm_companies").update(body).eq("id", id).select("*").maybeSingle(),
    "Company",
  );
  return c.json({ data });
});

// Contact links go with the company (on delete cascade); the contacts themselves stay.
app.delete("/:id", async (c) => {
  const who = await requirePlatformRole(c, CRM_ROLES);
  const { id } = parseParams(c, IdParam);
  one(await dbFor(who).from("crm_companies").delete().eq("id", id).select("id").maybeSingle(), "Company");
  return c.json({ success: true });
});

app.post("/:id/contacts", async (c) => {
  const who = await requirePlatformRole(c, CRM_ROLES);
  const { id } = parseParams(c, IdParam);
  const body = await parseJson(c, LinkCompanyContactBody);
  const db = dbFor(who);
  // Both ends must be visible: the insert policy says so too, but this names the missing one.
  one(await db.from("crm_companies").select("id").eq("id", id).maybeSingle(), "Company");
  one(await db.from("crm_contacts").select("id").eq("id", body.contact_id).maybeSingle(), "Contact");
  const data = one(
    await db.from("crm_company_contacts").insert({ ...body, company_id: id })
      .select(`${LINK}, crm_contacts(*)`).single(),
    "Company contact",
  );
  return c.json({ data }, 201);
});

app.delete("/:companyId/contacts/:relationshipId", async (c) => {
  const who = await requirePlatformRole(c, CRM_ROLES);
  const { companyId, relationshipId } = parseParams(c, LinkParams);
  one(
    await dbFor(who).from("crm_company_contacts").delete().eq("id", relationshipId).eq(
      "company_id",
      companyId,
    )
      .select("id").maybeSingle(),
    "Company contact",
  );
  return c.json({ success: true });
});

export default app;
