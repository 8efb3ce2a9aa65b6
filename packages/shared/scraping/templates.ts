/**
 * Field templates (field-templates) and batch session updates (batch-update-sessions): shapes the
 * spec leaves open, chosen here.
 *
 * field-templates
 *   GET  ?workspace_id=uuid (optional: without it, every workspace the caller belongs to)
 *        -> 200 {success, templates: Template[]}, newest first
 *   POST {workspace_id, name, description?, fields: [{name, type, description?, required?}] (1-50),
 *        prompt?, systemPrompt?} -> 201 {success, template}; owner/admin/member; a name already used
 *        in the workspace is 409. The body is strict (an undeclared key is a 400 naming it);
 *        `workspaceId`, this function's first spelling, is still accepted for workspace_id.
 *   Template = {id, workspace_id, name, description, fields, prompt, system_prompt, schema,
 *        created_by, created_at, updated_at}; `schema` is the JSON Schema the fields make, ready for
 *        scrape-single-page options.schema.
 *
 * batch-update-sessions
 *   POST {sessionIds: uuid[] (1-50, distinct), action?: start|pause|resume|stop,
 *         updates?: {name?, category?, options?}} - exactly one of action / updates
 *   -> 200 {success (every session succeeded), results: [{sessionId, success, status?, error?}],
 *           succeeded, failed}; each session is authorised on its own (not visible: "not found"),
 *           so one bad id does not stop the others.
 */
import { z } from "@hono/zod-openapi";
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { dbError } from "../supabase/postgrest.ts";
import { withAliases } from "../http/validate.ts";
import { ExtractOptionsSchema, SessionAction } from "./sessions.ts";

export const TemplateField = z.strictObject({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "letters, digits and _, starting with a letter"),
  type: z.enum(["string", "number", "boolean", "array"]),
  description: z.string().max(500).optional(),
  required: z.boolean().default(false),
});

export const CreateTemplate = withAliases(
  z.strictObject({
    workspace_id: z.uuid(),
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
    fields: z.array(TemplateField).min(1).max(50).refine(
      (fs) => new Set(fs.map((f) => f.name)).size === fs.length,
      "field names must be distinct",
    ),
    prompt: z.string().max(10_000).optional(),
    systemPrompt: z.string().max(10_000).optional(),
  }),
  { workspaceId: "workspace_id" },
);

/** A query stays a plain object (OpenAPI parameters), so the alias is a second optional key. */
export const TemplateQuery = z.object({ workspace_id: z.uuid().optional(), workspaceId: z.uuid().optional() })
  .refine((q) => !(q.workspace_id && q.workspaceId), "give workspace_id or workspaceId, not both");

/** The JSON Schema of one material that a template's fields describe (name always required). */
export function templateSchema(fields: z.infer<typeof TemplateField>[]): Record<string, unknown> {
  const properties: Record<string, unknown> = { name: { type: "string" } };
  for (const f of fields) {
    properties[f.name] = f.type === "array"
      ? { type: "array", ...(f.description ? { description: f.description } : {}) }
      : { type: f.type, ...(f.description ? { description: f.description } : {}) };
  }
  const required = ["name", ...fields.filter((f) => f.required && f.name !== "name").map((f) => f.name)];
  return { type: "object", properties, required };
}

// deno-lint-ignore no-explicit-any
const withSchema = (t: any) => ({ ...t, schema: templateSchema(t.fields ?? []) });

export async function listTemplates(userDb: SupabaseClient, workspaceId?: string) {
  let q = userDb.from("scraping_field_templates").select("*").order("created_at", { ascending: false });
  if (workspaceId) q = q.eq("workspace_id", workspaceId);
  const { data, error } = await q;
  if (error) throw dbError(error, "Template");
  return (data ?? []).map(withSchema);
}

export async function createTemplate(userDb: SupabaseClient, body: z.infer<typeof CreateTemplate>) {
  const { data, error } = await userDb.from("scraping_field_templates").insert({
    workspace_id: body.workspace_id,
    name: body.name,
    description: body.description ?? null,
    fields: body.fields,
    prompt: body.prompt ?? null,
    system_prompt: body.systemPrompt ?? null,
  }).select("*").single();
  if (error) throw dbError(error, "Template");
  return withSchema(data);
}

export const BatchUpdate = z.object({
  sessionIds: z.array(z.uuid()).min(1).max(50).refine(
    (a) => new Set(a).size === a.length,
    "ids must be distinct",
  ),
  action: SessionAction.optional(),
  updates: z.object({
    name: z.string().trim().min(1).max(200).optional(),
    category: z.string().max(200).nullable().optional(),
    options: ExtractOptionsSchema.optional(),
  }).strict().refine((u) => Object.keys(u).length > 0, "updates: at least one field").optional(),
}).strict().refine((b) => (b.action === undefined) !== (b.updates === undefined), {
  message: "give exactly one of action or updates",
});
export type BatchUpdate = z.infer<typeof BatchUpdate>;

export interface BatchResult {
  sessionId: string;
  success: boolean;
  status?: string;
  error?: string;
}

/** The message a per-session failure reports. */
export function resultError(err: unknown): string {
  if (err instanceof DomainError) return err.message;
  if (err instanceof Error && "status" in err) return err.message;
  throw err;
}
