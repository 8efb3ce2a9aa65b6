/**
 * Structured model output for the SEO stages (plan, write, analyze, fix): the model is given one
 * tool whose input_schema is the stage's zod schema (as JSON Schema) and is made to call it
 * (tool_choice); the tool input is validated with the same zod schema. A malformed answer (no
 * tool call, or input that fails validation) is sent back once as an error tool_result naming
 * the problems; a second malformed answer fails the stage (`llm_malformed_output`, 502). API
 * failures become `llm_error` / `llm_unreachable` (502) without provider internals.
 *
 *   ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   see packages/shared/agent/llm.ts (anthropicFromEnv)
 *   SEO_LLM_MODEL                           optional, default claude-sonnet-4-6 (the spec's
 *                                           vendor-sonnet-4-5 tier, as agent-chat sends it)
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { anthropicFromEnv, describeLlmError } from "../agent/llm.ts";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";

export const DEFAULT_SEO_MODEL = "claude-sonnet-4-6";

export interface SeoLlm {
  client: Anthropic;
  model: string;
}

export function seoLlmFromEnv(): SeoLlm {
  return { client: anthropicFromEnv(), model: env("SEO_LLM_MODEL") ?? DEFAULT_SEO_MODEL };
}

export interface StructuredCall<S extends z.ZodType> {
  system: string;
  prompt: string;
  tool: string;
  description: string;
  schema: S;
  maxTokens: number;
}

export interface StructuredResult<T> {
  value: T;
  /** Model calls made (1, or 2 after a malformed first answer). */
  calls: number;
  usage: { input_tokens: number; output_tokens: number };
}

const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

function inputSchema(schema: z.ZodType): Record<string, unknown> {
  let s = schemaCache.get(schema);
  if (!s) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
    s = rest;
    schemaCache.set(schema, s);
  }
  return s;
}

function problems(error: z.ZodError): string {
  return error.issues.slice(0, 8).map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ");
}

/** Asks for one structured answer; see the module doc for retries and errors. */
export async function structured<S extends z.ZodType>(
  llm: SeoLlm,
  call: StructuredCall<S>,
): Promise<StructuredResult<z.infer<S>>> {
  const tools: Anthropic.Tool[] = [{
    name: call.tool,
    description: call.description,
    input_schema: inputSchema(call.schema) as Anthropic.Tool.InputSchema,
  }];
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: call.prompt }];
  const usage = { input_tokens: 0, output_tokens: 0 };
  let lastProblem = "";
  for (let attempt = 1; attempt <= 2; attempt++) {
    let msg: Anthropic.Message;
    try {
      msg = await llm.client.messages.create({
        model: llm.model,
        max_tokens: call.maxTokens,
        system: call.system,
        messages,
        tools,
        tool_choice: { type: "tool", name: call.tool },
      });
    } catch (err) {
      const d = describeLlmError(err);
      throw new DomainError("upstream", d.code, `${call.tool}: ${d.message}`);
    }
    usage.input_tokens += msg.usage?.input_tokens ?? 0;
    usage.output_tokens += msg.usage?.output_tokens ?? 0;
    const use = msg.content.find((b): b is Anthropic.ToolUseBlock =>
      b.type === "tool_use" && b.name === call.tool
    );
    if (use) {
      const parsed = call.schema.safeParse(use.input);
      if (parsed.success) return { value: parsed.data, calls: attempt, usage };
      lastProblem = problems(parsed.error);
      messages.push(
        { role: "assistant", content: msg.content as Anthropic.ContentBlockParam[] },
        {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: use.id,
            is_error: true,
            content:
              `The input does not match the schema: ${lastProblem}. Call ${call.tool} again with valid input.`,
          }],
        },
      );
    } else {
      lastProblem = `the model did not call ${call.tool} (stop_reason ${msg.stop_reason})`;
      const text = msg.content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlock).text)
        .join("\n");
      if (text) messages.push({ role: "assistant", content: text });
      messages.push({
        role: "user",
        content: `Answer only by calling the ${call.tool} tool with input matching its schema.`,
      });
    }
  }
  throw new DomainError(
    "upstream",
    "llm_malformed_output",
    `${call.tool}: the language model's answer was malformed twice (${lastProblem.slice(0, 500)})`,
  );
}
