/**
 * /functions/v1/field-templates (spec "Scraping"; shapes chosen in packages/shared/scraping/templates.ts):
 * - GET ?workspace_id= -> 200 {success, templates}: the caller's workspaces' templates (RLS), newest first;
 * - POST {workspace_id, name, description?, fields[], prompt?, systemPrompt?} -> 201 {success, template};
 *   owner, admin or member of the workspace; a duplicate name is 409.
 * `workspaceId` (the first spelling) is accepted for workspace_id; any other unknown body key is a 400.
 * Each template carries `schema`, the JSON Schema its fields make (for scrape-single-page options.schema).
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { db, requireWorkspaceRole, userOnly, WRITER_ROLES } from "@shared/auth/context.ts";
import { CreateTemplate, createTemplate, listTemplates, TemplateQuery } from "@shared/scraping/templates.ts";

const tags = ["Scraping"];
const app = createFunctionApp("field-templates");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "get",
    path: "/",
    tags,
    summary: "Field templates of the caller's workspaces",
    request: { query: TemplateQuery },
    responses: { ...okJson("{success, templates}"), ...errorResponses },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const workspaceId = q.workspace_id ?? q.workspaceId;
    if (workspaceId) await requireWorkspaceRole(c, workspaceId, null);
    return c.json({ success: true, templates: await listTemplates(db(c), workspaceId) }, 200);
  },
);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "Create a field template",
    request: jsonBody(CreateTemplate),
    responses: {
      ...okJson("{success, template}", 201),
      ...errorResponses,
      409: errorResponse("Name already used"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    await requireWorkspaceRole(c, body.workspace_id, WRITER_ROLES, "Creating a field template");
    return c.json({ success: true, template: await createTemplate(db(c), body) }, 201);
  },
);

export default app;
