/**
 * The gateway's Admin prompts group (platform admins and the service role): the PDF pipeline's
 * prompts, one per (stage, category), their version history, and a test bench that sends a
 * prompt to the language model. The pipeline reads these rows at the start of each run
 * (pipeline/prompts.ts), so an update changes what the next run sends.
 *
 * Shapes (the spec shows none; these are ours):
 *   GET  /api/admin/prompts[?stage=]                 -> {prompts: [Prompt], total}
 *   GET  /api/admin/prompts/{stage}/{category}       -> {prompt: Prompt}
 *   PUT  /api/admin/prompts/{stage}/{category}
 *        {prompt_text, change_reason, description?} -> {prompt, changed, previous_version}
 *        Every change keeps the replaced version in the history (who made it, when, why) and
 *        raises version by one; a PUT that changes nothing makes no version (changed: false).
 *        Prompts are the ones the pipeline sends: an unknown (stage, category) is 404.
 *   GET  /api/admin/prompt-history/{prompt_id}       -> {prompt_id, stage, category,
 *        current_version, history: [{version, prompt_text, description, created_by, created_at,
 *        change_reason, replaced_by, replaced_at}] newest first}
 *   POST /api/admin/prompt-tests
 *        {input, prompt_id? | stage+category? | prompt_text?, model?, max_tokens?}
 *        -> {test_id, output, model, stop_reason, input_tokens, output_tokens, latency_ms,
 *            prompt: {source: stored|given, prompt_id, stage, category, version}}
 *        A given prompt_text wins over a stored one (to try a draft); the model defaults to the
 *        one the pipeline sends that prompt to (DEFAULT_AI_CONFIG), recorded as the provider model
 *        it is sent as. A text call through the model layer (@shared/llm). Nothing but the test
 *        record (ai_prompt_tests) is written. A model failure is 502 `model_unavailable` and is
 *        recorded too; no provider configured is 503 `model_unavailable` (nothing recorded).
 * Prompt objects: {id, stage, category, name, description, prompt_text, version, updated_by,
 * updated_at, change_reason, created_at, is_default (the text equals the code default)}.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { platformRoles, requireAuthenticated, serviceDb } from "@shared/auth/context.ts";
import { type CallRecord, isModelError } from "@shared/llm/mod.ts";
import { HttpError } from "@shared/http/errors.ts";
import { rows } from "@shared/supabase/postgrest.ts";
import type { TablesInsert } from "@shared/supabase/types.ts";
import { errorResponse, errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { type Ctx, router } from "../env.ts";
import { DEFAULT_AI_CONFIG } from "../pipeline/config.ts";
import { backendLlm } from "../ai/models.ts";
import { promptDefault, testPrompt } from "../pipeline/prompts.ts";

const tags = ["Admin prompts"];
const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "lowercase letters, digits, - and _");
const keyParams = z.object({ stage: slug, category: slug });

interface PromptRow {
  id: string;
  stage: string;
  category: string;
  prompt_text: string;
  version: number;
  [k: string]: unknown;
}

const view = (p: PromptRow) => ({
  ...p,
  is_default: promptDefault(p.stage, p.category)?.prompt_text === p.prompt_text,
});

async function promptByKey(c: Ctx, stage: string, category: string): Promise<PromptRow> {
  const row = rows(
    await serviceDb(c).from("ai_prompts").select("*").eq("stage", stage).eq("category", category)
      .maybeSingle(),
    "Prompt",
  ) as PromptRow | null;
  if (!row) throw HttpError.notFound(`No prompt for stage ${stage}, category ${category}`);
  return row;
}

async function promptById(c: Ctx, id: string): Promise<PromptRow> {
  const row = rows(
    await serviceDb(c).from("ai_prompts").select("*").eq("id", id).maybeSingle(),
    "Prompt",
  ) as PromptRow | null;
  if (!row) throw HttpError.notFound("Prompt not found");
  return row;
}

const updateBody = z.object({
  prompt_text: z.string().trim().min(1).max(20_000),
  change_reason: z.string().trim().min(1, "say why the prompt changes").max(1000),
  description: z.string().trim().max(2000).optional(),
}).strict();

const testBody = z.object({
  input: z.string().min(1).max(100_000),
  prompt_id: z.uuid().optional(),
  stage: slug.optional(),
  category: slug.optional(),
  prompt_text: z.string().trim().min(1).max(20_000).optional(),
  model: z.string().trim().min(1).max(200).optional(),
  max_tokens: z.number().int().min(1).max(8192).optional(),
}).strict().refine((b) => b.prompt_text || b.prompt_id || (b.stage && b.category), {
  message: "give prompt_text, prompt_id, or stage and category",
}).refine((b) => !b.stage === !b.category, { message: "stage and category go together" });

export function adminPromptRoutes() {
  const app = router();
  app.use("/api/admin/prompts", platformRoles(["admin"]));
  app.use("/api/admin/prompts/*", platformRoles(["admin"]));
  app.use("/api/admin/prompt-history/*", platformRoles(["admin"]));
  app.use("/api/admin/prompt-tests", platformRoles(["admin"]));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/prompts",
      tags,
      summary: "The pipeline's prompts, optionally of one stage",
      request: { query: z.object({ stage: slug.optional() }) },
      responses: { ...okJson("{prompts: [Prompt], total}"), ...errorResponses },
    }),
    async (c) => {
      const { stage } = c.req.valid("query");
      let q = serviceDb(c).from("ai_prompts").select("*").order("stage").order("category");
      if (stage) q = q.eq("stage", stage);
      const list = (rows(await q, "Prompt") as PromptRow[]).map(view);
      return c.json({ prompts: list, total: list.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/prompts/{stage}/{category}",
      tags,
      summary: "One prompt by stage and category",
      request: { params: keyParams },
      responses: { ...okJson("{prompt: Prompt}"), ...errorResponses },
    }),
    async (c) => {
      const { stage, category } = c.req.valid("param");
      return c.json({ prompt: view(await promptByKey(c, stage, category)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/admin/prompts/{stage}/{category}",
      tags,
      summary: "Replace a prompt's text: a new version, the old one kept in the history",
      request: { params: keyParams, ...jsonBody(updateBody) },
      responses: { ...okJson("{prompt, changed, previous_version}"), ...errorResponses },
    }),
    async (c) => {
      const { stage, category } = c.req.valid("param");
      const body = c.req.valid("json");
      const who = requireAuthenticated(c);
      const out = rows(
        await serviceDb(c).rpc("admin_update_prompt", {
          p_stage: stage,
          p_category: category,
          p_prompt_text: body.prompt_text,
          // postgres-meta types function arguments as non-null; this function takes null for "no
          // description" and for the service role (no user), so both are widened here.
          p_description: (body.description ?? null) as string,
          p_change_reason: body.change_reason,
          p_user: who.userId as string,
        }),
        "Prompt",
      ) as { prompt: PromptRow; changed: boolean; previous_version: number | null } | null;
      if (!out) throw HttpError.notFound(`No prompt for stage ${stage}, category ${category}`);
      return c.json({ ...out, prompt: view(out.prompt) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/prompt-history/{prompt_id}",
      tags,
      summary: "A prompt's replaced versions, newest first",
      request: { params: idParam("prompt_id") },
      responses: { ...okJson("{prompt_id, stage, category, current_version, history}"), ...errorResponses },
    }),
    async (c) => {
      const prompt = await promptById(c, c.req.valid("param").prompt_id);
      const history = rows(
        await serviceDb(c).from("ai_prompt_history")
          .select(
            "id, version, prompt_text, description, created_by, created_at, change_reason, replaced_by, replaced_at",
          )
          .eq("prompt_id", prompt.id).order("version", { ascending: false }),
        "Prompt history",
      );
      return c.json({
        prompt_id: prompt.id,
        stage: prompt.stage,
        category: prompt.category,
        current_version: prompt.version,
        history,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/prompt-tests",
      tags,
      summary: "Run a prompt (stored or given) on sample input with the language model",
      request: jsonBody(testBody),
      responses: {
        ...okJson("{test_id, output, model, input_tokens, output_tokens, latency_ms, prompt}"),
        ...errorResponses,
        502: errorResponse("The language model failed: {error, code: model_unavailable}"),
        503: errorResponse("No language model is configured: {error, code: model_unavailable}"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const who = requireAuthenticated(c);
      const stored = body.prompt_id
        ? await promptById(c, body.prompt_id)
        : body.stage && body.category
        ? await promptByKey(c, body.stage, body.category)
        : null;
      const defaults = stored ? promptDefault(stored.stage, stored.category) : undefined;
      const system = body.prompt_text ?? stored!.prompt_text;
      const model = body.model ??
        (defaults ? DEFAULT_AI_CONFIG[defaults.model_field] : DEFAULT_AI_CONFIG.discovery_model);
      const maxTokens = body.max_tokens ?? (defaults ? DEFAULT_AI_CONFIG[defaults.max_tokens_field] : 1024);
      const prompt = {
        source: body.prompt_text ? "given" : "stored",
        prompt_id: stored?.id ?? null,
        stage: stored?.stage ?? null,
        category: stored?.category ?? null,
        version: body.prompt_text ? null : stored?.version ?? null,
      };
      const llm = backendLlm(c);
      llm.assertConfigured("Prompt test");
      const record = async (
        r: Pick<
          TablesInsert<"ai_prompt_tests">,
          "latency_ms" | "ok" | "error" | "output" | "input_tokens" | "output_tokens"
        >,
      ) =>
        (rows(
          await serviceDb(c).from("ai_prompt_tests").insert({
            prompt_id: prompt.prompt_id,
            prompt_version: prompt.version,
            stage: prompt.stage,
            category: prompt.category,
            prompt_text: system,
            input: body.input,
            model: llm.modelId(model),
            tested_by: who.userId,
            ...r,
          }).select("id").single(),
          "Prompt test",
        ) as { id: string }).id;
      let last: CallRecord | null = null;
      try {
        const out = await testPrompt(llm, { system, input: body.input, model, maxTokens }, (r) => {
          last = r;
        });
        const test_id = await record({
          output: out.output,
          input_tokens: out.input_tokens,
          output_tokens: out.output_tokens,
          latency_ms: out.latency_ms,
          ok: true,
        });
        return c.json({ test_id, ...out, prompt }, 200);
      } catch (err) {
        const failed = last as CallRecord | null;
        if (isModelError(err) && failed) {
          await record({ latency_ms: failed.latency_ms, ok: false, error: err.message.slice(0, 2000) });
        }
        throw err;
      }
    },
  );

  return app;
}
