/**
 * /functions/v1/crm-contacts-api (spec "CRM contacts"): admin, manager and factory platform
 * roles. Contacts are read and written as the caller, so RLS applies the CRM visibility rule
 * (factory users see only the contacts they created); what the caller cannot see is a 404. The
 * auth admin API (emails of platform users) and the set of already-linked users are read with
 * the service role, after platformRoles. Domain: packages/shared/crm/contacts.ts.
 */
import { createRoute as route } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import { db, platformRoles, serviceDb } from "@shared/auth/context.ts";
import { BulkLinkBody, CreateContactBody, IdParam, LinkUserBody } from "@shared/crm/mod.ts";
import { UpdateContactBody, UserIdParam } from "@shared/crm/mod.ts";
import * as contacts from "@shared/crm/contacts.ts";
import { dataOf, pageOf, Success } from "@shared/crm/responses.ts";
import * as R from "@shared/crm/responses.ts";

const tags = ["CRM contacts"];
const errors = errorResponses;
const contact = (desc: string, status = 200) => okJson(desc, status, dataOf(R.ContactRow));
const detail = okJson("The contact with its relationships", 200, dataOf(R.ContactWithRelationships));

const app = createFunctionApp("crm-contacts-api");
app.use("*", platformRoles(["admin", "manager", "factory"]));

app.openapi(
  route({
    method: "post",
    path: "/",
    tags,
    summary: "Create a contact",
    request: jsonBody(CreateContactBody),
    responses: { ...contact("The contact", 201), ...errors },
  }),
  async (c) => c.json({ data: await contacts.createContact(db(c), c.req.valid("json")) }, 201),
);

app.openapi(
  route({
    method: "get",
    path: "/",
    tags,
    summary: "Contacts, newest first (limit 50, offset 0)",
    request: { query: paginationSchema(50) },
    responses: { ...okJson("One page and the total", 200, pageOf(R.ContactRow)), ...errors },
  }),
  async (c) => c.json(await contacts.listContacts(db(c), pageRange(c.req.valid("query"))), 200),
);

app.openapi(
  route({
    method: "get",
    path: "/potential-matches",
    tags,
    summary: "Unlinked contacts whose email is an unlinked platform user's email",
    responses: { ...okJson("The matches", 200, pageOf(R.PotentialMatch)), ...errors },
  }),
  async (c) => {
    const data = await contacts.potentialMatches(db(c), serviceDb(c));
    return c.json({ data, count: data.length }, 200);
  },
);

app.openapi(
  route({
    method: "post",
    path: "/bulk-link",
    tags,
    summary: "Link contacts to users (1-500 items, each succeeds or reports its error)",
    request: jsonBody(BulkLinkBody),
    responses: { ...okJson("Linked contacts and per-item errors", 200, R.BulkLinkResult), ...errors },
  }),
  async (c) => c.json(await contacts.bulkLink(db(c), serviceDb(c), c.req.valid("json").links), 200),
);

app.openapi(
  route({
    method: "get",
    path: "/by-user/{userId}",
    tags,
    summary: "The contact linked to a user",
    request: { params: UserIdParam },
    responses: { ...detail, ...errors },
  }),
  async (c) =>
    c.json({ data: await contacts.contactDetail(db(c), { user_id: c.req.valid("param").userId }) }, 200),
);

app.openapi(
  route({
    method: "get",
    path: "/{id}",
    tags,
    summary: "A contact with its relationships",
    request: { params: IdParam },
    responses: { ...detail, ...errors },
  }),
  async (c) => c.json({ data: await contacts.contactDetail(db(c), c.req.valid("param")) }, 200),
);

app.openapi(
  route({
    method: "patch",
    path: "/{id}",
    tags,
    summary: "Update a contact",
    request: { params: IdParam, ...jsonBody(UpdateContactBody) },
    responses: { ...contact("The contact"), ...errors },
  }),
  async (c) =>
    c.json({ data: await contacts.updateContact(db(c), c.req.valid("param").id, c.req.valid("json")) }, 200),
);

app.openapi(
  route({
    method: "delete",
    path: "/{id}",
    tags,
    // Relationships (both directions) and company links go with the contact (on delete cascade).
    summary: "Delete a contact with its relationships and company links",
    request: { params: IdParam },
    responses: { ...okJson("Deleted", 200, Success), ...errors },
  }),
  async (c) => {
    await contacts.deleteContact(db(c), c.req.valid("param").id);
    return c.json({ success: true as const }, 200);
  },
);

app.openapi(
  route({
    method: "post",
    path: "/{id}/link-user",
    tags,
    summary: "Link the contact to a platform user",
    request: { params: IdParam, ...jsonBody(LinkUserBody) },
    responses: {
      ...contact("The contact"),
      ...errors,
      409: errorResponse("The user is linked to another contact"),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const { userId } = c.req.valid("json");
    return c.json({ data: await contacts.linkContactUser(db(c), serviceDb(c), id, userId) }, 200);
  },
);

app.openapi(
  route({
    method: "delete",
    path: "/{id}/unlink-user",
    tags,
    summary: "Unlink the contact from its user",
    request: { params: IdParam },
    responses: { ...contact("The contact"), ...errors },
  }),
  async (c) =>
    c.json({ data: await contacts.updateContact(db(c), c.req.valid("param").id, { user_id: null }) }, 200),
);

export default app;
