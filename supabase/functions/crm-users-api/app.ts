/**
 * /functions/v1/crm-users-api (spec "CRM users"): platform admins only.
 *
 * Profiles, roles, credits and AI usage are read and written as the admin (RLS grants admins
 * every profile); only the emails come from the auth admin API with the service role. Deleting
 * a user's records is one SQL function (profile and credits in one transaction); the auth
 * account stays. Domain: packages/shared/crm/user_records.ts.
 */
import { createRoute as route } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import { caller, db, platformRoles, serviceDb } from "@shared/auth/context.ts";
import { UpdateUserBody, UserIdParam } from "@shared/crm/mod.ts";
import * as users from "@shared/crm/user_records.ts";
import { AiUsageReport, dataOf, DeletedUserRecords, pageOf, UserRecord } from "@shared/crm/responses.ts";

const tags = ["CRM users"];
const params = UserIdParam;

const app = createFunctionApp("crm-users-api");
app.use("*", platformRoles(["admin"]));

app.openapi(
  route({
    method: "get",
    path: "/",
    tags,
    summary: "User records with emails, newest first (limit 1000, offset 0)",
    request: { query: paginationSchema(1000) },
    responses: { ...okJson("One page and the total", 200, pageOf(UserRecord)), ...errorResponses },
  }),
  async (c) => c.json(await users.listUserRecords(db(c), serviceDb(c), pageRange(c.req.valid("query"))), 200),
);

app.openapi(
  route({
    method: "get",
    path: "/{userId}",
    tags,
    summary: "A user's record",
    request: { params },
    responses: { ...okJson("The user record", 200, dataOf(UserRecord)), ...errorResponses },
  }),
  async (c) =>
    c.json({ data: await users.userRecord(db(c), serviceDb(c), c.req.valid("param").userId) }, 200),
);

app.openapi(
  route({
    method: "get",
    path: "/{userId}/ai-usage",
    tags,
    summary: "A user's latest AI calls (limit 50), totals and per-model breakdown",
    request: { params, query: paginationSchema(50) },
    responses: { ...okJson("The usage report", 200, dataOf(AiUsageReport)), ...errorResponses },
  }),
  async (c) => {
    const { userId } = c.req.valid("param");
    const { limit } = c.req.valid("query");
    return c.json({ data: await users.aiUsageReport(db(c), serviceDb(c), userId, limit) }, 200);
  },
);

app.openapi(
  route({
    method: "patch",
    path: "/{userId}",
    tags,
    summary: "Change a user's role, status or subscription tier",
    request: { params, ...jsonBody(UpdateUserBody) },
    responses: {
      ...okJson("The user record", 200, dataOf(UserRecord)),
      ...errorResponses,
      409: errorResponse("An admin demoting or suspending themselves: {error, code: conflict}"),
    },
  }),
  async (c) => {
    const { userId } = c.req.valid("param");
    const body = c.req.valid("json");
    const data = await users.updateUserRecord(db(c), serviceDb(c), caller(c).userId, userId, body);
    return c.json({ data }, 200);
  },
);

app.openapi(
  route({
    method: "delete",
    path: "/{userId}",
    tags,
    summary: "Delete a user's profile and credits (the auth account stays)",
    request: { params },
    responses: {
      ...okJson("What was deleted", 200, DeletedUserRecords),
      ...errorResponses,
      409: errorResponse("Admins cannot delete their own records: {error, code}"),
    },
  }),
  async (c) => {
    const data = await users.deleteUserRecords(db(c), c.req.valid("param").userId);
    return c.json({ success: true as const, data }, 200);
  },
);

export default app;
