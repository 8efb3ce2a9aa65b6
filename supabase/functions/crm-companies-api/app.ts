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
import {
  createCompany,
  deleteCompany,
  getCompany,
  linkContact,
  listCompanies,
  unlinkContact,
  updateCompany,
} from "@shared/crm/companies.ts";
import { db, platformRoles } from "@shared/auth/context.ts";
import {
  CompanyListQuery,
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
const tags = ["CRM companies"];

const app = createFunctionApp("crm-companies-api");
app.use("*", platformRoles(CRM_ROLES));

const Id = z.object({ id: Uuid });

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "Create a company",
    request: jsonBody(CreateCompanyBody),
    responses: { ...okJson("The company", 201, dataOf(CompanyRow)), ...errorResponses },
  }),
  async (c) => {
    return c.json({ data: await createCompany(db(c), c.req.valid("json")) }, 201);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/",
    tags,
    summary: "Companies, newest first (limit 50, offset 0); search matches name, industry, city, country",
    request: { query: paginationSchema(50).extend(CompanyListQuery.shape) },
    responses: { ...okJson("One page and the total", 200, pageOf(CompanyRow)), ...errorResponses },
  }),
  async (c) => {
    const q = c.req.valid("query");
    return c.json(await listCompanies(db(c), pageRange(q), q.search), 200);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/{id}",
    tags,
    summary: "A company with its contacts",
    request: { params: Id },
    responses: { ...okJson("The company", 200, dataOf(CompanyWithContacts)), ...errorResponses },
  }),
  async (c) => {
    return c.json({ data: await getCompany(db(c), c.req.valid("param").id) }, 200);
  },
);

app.openapi(
  createRoute({
    method: "patch",
    path: "/{id}",
    tags,
    summary: "Update a company",
    request: { params: Id, ...jsonBody(UpdateCompanyBody) },
    responses: { ...okJson("The company", 200, dataOf(CompanyRow)), ...errorResponses },
  }),
  async (c) => {
    return c.json({ data: await updateCompany(db(c), c.req.valid("param").id, c.req.valid("json")) }, 200);
  },
);

app.openapi(
  createRoute({
    method: "delete",
    path: "/{id}",
    tags,
    // Contact links go with the company (on delete cascade); the contacts themselves stay.
    summary: "Delete a company and its contact links (the contacts stay)",
    request: { params: Id },
    responses: { ...okJson("Deleted", 200, Success), ...errorResponses },
  }),
  async (c) => {
    await deleteCompany(db(c), c.req.valid("param").id);
    return c.json({ success: true as const }, 200);
  },
);

app.openapi(
  createRoute({
    method: "post",
    path: "/{id}/contacts",
    tags,
    summary: "Link a contact to the company",
    request: { params: Id, ...jsonBody(LinkCompanyContactBody) },
    responses: { ...okJson("The link", 201, dataOf(CompanyContactLink)), ...errorResponses },
  }),
  async (c) => {
    const data = await linkContact(db(c), c.req.valid("param").id, c.req.valid("json"));
    return c.json({ data }, 201);
  },
);

app.openapi(
  createRoute({
    method: "delete",
    path: "/{companyId}/contacts/{relationshipId}",
    tags,
    summary: "Unlink a contact from the company",
    request: { params: z.object({ companyId: Uuid, relationshipId: Uuid }) },
    responses: { ...okJson("Unlinked", 200, Success), ...errorResponses },
  }),
  async (c) => {
    const { companyId, relationshipId } = c.req.valid("param");
    await unlinkContact(db(c), companyId, relationshipId);
    return c.json({ success: true as const }, 200);
  },
);

export default app;
