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
 * Domain: @shared/admin/prompts.ts (the pipeline's catalogue: pipeline/prompts.ts PROMPT_CATALOG).
 * Prompt objects: {id, stage, category, name, description, prompt_text, version, updated_by,
 * updated_at, change_reason, created_at, is_default (the text equals the code default)}.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { platformRoles, requireAuthenticated, serviceDb } from "@shared/auth/context.ts";
import { errorResponse, errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { getPrompt, listPrompts, promptHistory, runPromptTest, updatePrompt } from "@shared/admin/prompts.ts";
import { router } from "../env.ts";
import { backendLlm } from "../deps.ts";
import { PROMPT_CATALOG } from "../pipeline/prompts.ts";

const tags = ["Admin prompts"];
const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "lowercase letters, digits, - and _");
const keyParams = z.object({ stage: slug, category: slug });

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
    async (c) => c.json(await listPrompts(serviceDb(c), PROMPT_CATALOG, c.req.valid("query").stage), 200),
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
      return c.json(await getPrompt(serviceDb(c), PROMPT_CATALOG, stage, category), 200);
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
      const key = c.req.valid("param");
      const who = requireAuthenticated(c);
      return c.json(
        await updatePrompt(serviceDb(c), PROMPT_CATALOG, key, c.req.valid("json"), who.userId),
        200,
      );
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
    async (c) => c.json(await promptHistory(serviceDb(c), c.req.valid("param").prompt_id), 200),
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
      const who = requireAuthenticated(c);
      const out = await runPromptTest(
        serviceDb(c),
        backendLlm(c),
        PROMPT_CATALOG,
        c.req.valid("json"),
        who.userId,
      );
      return c.json(out, 200);
    },
  );

  return app;
}
