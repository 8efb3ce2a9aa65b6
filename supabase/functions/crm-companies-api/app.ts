/**
 * /functions/v1/crm-companies-api (spec "CRM companies"): admin, manager and factory platform
 * roles, every query as the caller so RLS applies the CRM visibility rule (factory users see
 * only their own companies and contacts); what the caller cannot see is a 404.
 *
 * A route table: each route declares its request and response schemas (they validate the
 * request and describe the function in the platform's /functions/v1 OpenAPI document).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import { db, platformRoles } from "@shared/auth/context.ts";
import { one, page } from "@shared/supabase/postgrest.ts";
import {
  CompanyListQuery,
  companySearchFilter,
  CreateCompanyBody,
  LinkCompanyContactBody,
  UpdateCompanyBody,
  Uuid,
} from "@shared/crm/mod.ts";
import {
  CompanyContactLink,
  CompanyRow,
  CompanyWithContacts,
  dataOf,
  pageOf,
  Success,
} from "@shared/crm/responses.ts";

const CRM_ROLES = ["admin", "manager", "factory"];
const LINK = "id, company_id, contact_id, role, is_primary, notes, created_at";
const COMPANY_WITH_CONTACTS = `*, crm_company_contacts(${LINK}, crm_contacts(*))`;
const tags = ["CRM companies"];

const app = createFunctionApp("crm-companies-api");
app.use("*", platformRoles(CRM_ROLES));

const route = createRoute;
const Id = z.object({ id: Uuid });

app.openapi(
  route({
    method: "post",
    path: "/",
    tags,
    summary: "Create a company",
    request: jsonBody(CreateCompanyBody),
    responses: { ...okJson("The company", 201, dataOf(CompanyRow)), ...errorResponses },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const data = one(await db(c).from("crm_companies").insert(body).select("*").single(), "Company");
    return c.json({ data }, 201);
  },
);

app.openapi(
  route({
    method: "get",
    path: "/",
    tags,
    summary: "Companies, newest first (limit 50, offset 0); search matches name, industry, city, country",
    request: { query: paginationSchema(50).extend(CompanyListQuery.shape) },
    responses: { ...okJson("One page and the total", 200, pageOf(CompanyRow)), ...errorResponses },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const [from, to] = pageRange(q);
    let query = db(c).from("crm_companies").select("*", { count: "exact" });
    // The search term is escaped and quoted (see companySearchFilter): it cannot add filters.
    if (q.search) query = query.or(companySearchFilter(q.search));
    const r = await query.order("created_at", { ascending: false }).order("id", { ascending: false })
      .range(from, to);
    return c.json(page(r), 200);
  },
);

app.openapi(
  route({
    method: "get",
    path: "/{id}",
    tags,
    summary: "A company with its contacts",
    request: { params: Id },
    responses: { ...okJson("The company", 200, dataOf(CompanyWithContacts)), ...errorResponses },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const data = one(
      await db(c).from("crm_companies").select(COMPANY_WITH_CONTACTS).eq("id", id).maybeSingle(),
      "Company",
    );
    return c.json({ data }, 200);
  },
);

app.openapi(
  route({
    method: "patch",
    path: "/{id}",
    tags,
    summary: "Update a company",
    request: { params: Id, ...jsonBody(UpdateCompanyBody) },
    responses: { ...okJson("The company", 200, dataOf(CompanyRow)), ...errorResponses },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const data = one(
      await db(c).from("crm_companies").update(body).eq("id", id).select("*").maybeSingle(),
      "Company",
    );
    return c.json({ data }, 200);
  },
);

app.openapi(
  route({
    method: "delete",
    path: "/{id}",
    tags,
    // Contact links go with the company (on delete cascade); the contacts themselves stay.
    summary: "Delete a company and its contact links (the contacts stay)",
    request: { params: Id },
    responses: { ...okJson("Deleted", 200, Success), ...errorResponses },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    one(await db(c).from("crm_companies").delete().eq("id", id).select("id").maybeSingle(), "Company");
    return c.json({ success: true as const }, 200);
  },
);

app.openapi(
  route({
    method: "post",
    path: "/{id}/contacts",
    tags,
    summary: "Link a contact to the company",
    request: { params: Id, ...jsonBody(LinkCompanyContactBody) },
    responses: { ...okJson("The link", 201, dataOf(CompanyContactLink)), ...errorResponses },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const client = db(c);
    // Both ends must be visible: the insert policy says so too, but this names the missing one.
    one(await client.from("crm_companies").select("id").eq("id", id).maybeSingle(), "Company");
    one(await client.from("crm_contacts").select("id").eq("id", body.contact_id).maybeSingle(), "Contact");
    const data = one(
      await client.from("crm_company_contacts").insert({ ...body, company_id: id })
        .select(`${LINK}, crm_contacts(*)`).single(),
      "Company contact",
    );
    return c.json({ data }, 201);
  },
);

app.openapi(
  route({
    method: "delete",
    path: "/{companyId}/contacts/{relationshipId}",
    tags,
    summary: "Unlink a contact from the company",
    request: { params: z.object({ companyId: Uuid, relationshipId: Uuid }) },
    responses: { ...okJson("Unlinked", 200, Success), ...errorResponses },
  }),
  async (c) => {
    const { companyId, relationshipId } = c.req.valid("param");
    one(
      await db(c).from("crm_company_contacts").delete().eq("id", relationshipId).eq("company_id", companyId)
        .select("id").maybeSingle(),
      "Company contact",
    );
    return c.json({ success: true as const }, 200);
  },
);

export default app;
