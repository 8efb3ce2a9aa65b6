/**
 * The pipeline's prompts as platform admins manage them (routes/admin_prompts.ts): one row of
 * public.ai_prompts per (stage, category), its version history (ai_prompt_history, written by
 * `admin_update_prompt`), and a test bench that sends a prompt to the language model and records
 * the attempt in ai_prompt_tests.
 *
 * Which prompts exist and which model each is sent to is the pipeline's knowledge
 * (services/ai-backend/pipeline/prompts.ts); it reaches this module as a `PromptCatalog`.
 */
import { DomainError } from "../errors.ts";
import { type CallRecord, isModelError, type Llm } from "../llm/mod.ts";
import { rows } from "../supabase/postgrest.ts";
import type { TablesInsert } from "../supabase/types.ts";
import type { Db } from "./support.ts";

/** What this module needs to know of the pipeline's prompts. */
export interface PromptCatalog {
  /** The code default's text of (stage, category); undefined when the pipeline sends no such prompt. */
  defaultText(stage: string, category: string): string | undefined;
  /**
   * The model and max_tokens a test sends a prompt with: those the pipeline sends the stored
   * prompt (stage, category) with, or the defaults for a given prompt text (null).
   */
  testModel(stored: { stage: string; category: string } | null): { model: string; maxTokens: number };
}

export interface PromptRow {
  id: string;
  stage: string;
  category: string;
  prompt_text: string;
  version: number;
  [k: string]: unknown;
}

/** A prompt as the API answers it: the row and whether its text is the code default. */
function view(catalog: PromptCatalog, p: PromptRow) {
  return { ...p, is_default: catalog.defaultText(p.stage, p.category) === p.prompt_text };
}

async function promptByKey(db: Db, stage: string, category: string): Promise<PromptRow> {
  const row = rows(
    await db.from("ai_prompts").select("*").eq("stage", stage).eq("category", category).maybeSingle(),
    "Prompt",
  ) as PromptRow | null;
  if (!row) throw DomainError.notFound(`No prompt for stage ${stage}, category ${category}`);
  return row;
}

async function promptById(db: Db, id: string): Promise<PromptRow> {
  const row = rows(await db.from("ai_prompts").select("*").eq("id", id).maybeSingle(), "Prompt") as
    | PromptRow
    | null;
  if (!row) throw DomainError.notFound("Prompt not found");
  return row;
}

/** Every prompt (or one stage's), by stage and category. */
export async function listPrompts(db: Db, catalog: PromptCatalog, stage?: string) {
  let q = db.from("ai_prompts").select("*").order("stage").order("category");
  if (stage) q = q.eq("stage", stage);
  const list = (rows(await q, "Prompt") as PromptRow[]).map((p) => view(catalog, p));
  return { prompts: list, total: list.length };
}

/** One prompt by (stage, category), or 404. */
export async function getPrompt(db: Db, catalog: PromptCatalog, stage: string, category: string) {
  return { prompt: view(catalog, await promptByKey(db, stage, category)) };
}

export interface PromptUpdate {
  prompt_text: string;
  change_reason: string;
  description?: string;
}

/**
 * Replaces a prompt's text (`admin_update_prompt`): the replaced version goes to the history
 * with who, when and why, and version rises by one; a change that changes nothing makes no
 * version (changed: false). An unknown (stage, category) is 404.
 */
export async function updatePrompt(
  db: Db,
  catalog: PromptCatalog,
  key: { stage: string; category: string },
  body: PromptUpdate,
  userId: string | null,
) {
  const out = rows(
    await db.rpc("admin_update_prompt", {
      p_stage: key.stage,
      p_category: key.category,
      p_prompt_text: body.prompt_text,
      // postgres-meta types function arguments as non-null; this function takes null for "no
      // description" and for the service role (no user), so both are widened here.
      p_description: (body.description ?? null) as string,
      p_change_reason: body.change_reason,
      p_user: userId as string,
    }),
    "Prompt",
  ) as { prompt: PromptRow; changed: boolean; previous_version: number | null } | null;
  if (!out) throw DomainError.notFound(`No prompt for stage ${key.stage}, category ${key.category}`);
  return { ...out, prompt: view(catalog, out.prompt) };
}

/** A prompt's replaced versions, newest first. */
export async function promptHistory(db: Db, promptId: string) {
  const prompt = await promptById(db, promptId);
  const history = rows(
    await db.from("ai_prompt_history")
      .select(
        "id, version, prompt_text, description, created_by, created_at, change_reason, replaced_by, replaced_at",
      )
      .eq("prompt_id", prompt.id).order("version", { ascending: false }),
    "Prompt history",
  );
  return {
    prompt_id: prompt.id,
    stage: prompt.stage,
    category: prompt.category,
    current_version: prompt.version,
    history,
  };
}

export interface PromptTestRequest {
  system: string;
  input: string;
  model: string;
  maxTokens: number;
}

export interface PromptTestResult {
  output: string;
  model: string;
  stop_reason: string | null;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
}

/**
 * Sends a prompt with sample input to the language model as a text call (the prompt as the system
 * prompt, the input as the one user message) and answers the model's text with its usage and the
 * time it took. `onCall` gets the call's record (also when it fails); a failure is the model
 * layer's `model_unavailable`.
 */
export async function testPrompt(
  llm: Llm,
  req: PromptTestRequest,
  onCall: (r: CallRecord) => void,
): Promise<PromptTestResult> {
  const started = performance.now();
  const out = await llm.text({
    model: req.model,
    system: req.system,
    prompt: [{ type: "text", text: req.input }],
    maxTokens: req.maxTokens,
    purpose: "Prompt test",
    onCall,
  });
  return {
    output: out.text,
    model: out.model,
    stop_reason: out.stopReason,
    input_tokens: out.usage.input_tokens,
    output_tokens: out.usage.output_tokens,
    latency_ms: Math.round(performance.now() - started),
  };
}

export interface PromptTestInput {
  input: string;
  prompt_id?: string;
  stage?: string;
  category?: string;
  prompt_text?: string;
  model?: string;
  max_tokens?: number;
}

type TestRecord = Pick<
  TablesInsert<"ai_prompt_tests">,
  "latency_ms" | "ok" | "error" | "output" | "input_tokens" | "output_tokens"
>;

/**
 * Runs a prompt (stored, by id or by stage and category, or a given draft text, which wins) on
 * sample input and records the test in ai_prompt_tests. The model defaults to the one the
 * pipeline sends that prompt to, recorded as the provider model it is sent as. A model failure
 * (502 `model_unavailable`) is recorded too; no provider configured (503) records nothing.
 */
export async function runPromptTest(
  db: Db,
  llm: Llm,
  catalog: PromptCatalog,
  body: PromptTestInput,
  userId: string | null,
) {
  const stored = body.prompt_id
    ? await promptById(db, body.prompt_id)
    : body.stage && body.category
    ? await promptByKey(db, body.stage, body.category)
    : null;
  const system = body.prompt_text ?? stored!.prompt_text;
  const defaults = catalog.testModel(stored);
  const model = body.model ?? defaults.model;
  const maxTokens = body.max_tokens ?? defaults.maxTokens;
  const prompt = {
    source: body.prompt_text ? "given" : "stored",
    prompt_id: stored?.id ?? null,
    stage: stored?.stage ?? null,
    category: stored?.category ?? null,
    version: body.prompt_text ? null : stored?.version ?? null,
  };
  llm.assertConfigured("Prompt test");
  const record = async (r: TestRecord) =>
    (rows(
      await db.from("ai_prompt_tests").insert({
        prompt_id: prompt.prompt_id,
        prompt_version: prompt.version,
        stage: prompt.stage,
        category: prompt.category,
        prompt_text: system,
        input: body.input,
        model: llm.modelId(model),
        tested_by: userId,
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
    return { test_id, ...out, prompt };
  } catch (err) {
    const failed = last as CallRecord | null;
    if (isModelError(err) && failed) {
      await record({ latency_ms: failed.latency_ms, ok: false, error: err.message.slice(0, 2000) });
    }
    throw err;
  }
}
