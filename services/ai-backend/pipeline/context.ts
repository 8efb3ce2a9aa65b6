/**
 * What every stage is given besides its input: the job, the service-role client (stages run
 * after the route authorised the caller), the resolved options and ai_config, the providers,
 * the PDF (read once per run, lazily: a resumed run that only needs chunks never decodes
 * images it does not use) and the run's abort signal. The model client is the model layer's
 * (@shared/llm): stages make structured calls with their zod schema, and every call attempt is
 * recorded in the job's AI tracking (ai_job_model_calls) with the stage it ran in.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import type { Llm } from "@shared/llm/mod.ts";
import type { EmbeddingProvider } from "@shared/embeddings/provider.ts";
import type { ImageEmbeddingProvider } from "@shared/embeddings/image.ts";
import type { PipelineOptions } from "./config.ts";
import type { AiConfig } from "@shared/ai_services/config.ts";
import type { ParsedPdf } from "./document.ts";
import type { PromptKey } from "./prompts.ts";

export interface JobRow {
  id: string;
  user_id: string;
  workspace_id: string | null;
  status: string;
  progress: number;
  current_stage: string | null;
  message: string | null;
  error: string | null;
  attempts: number;
  storage_bucket: string | null;
  storage_path: string | null;
  filename: string | null;
  document_id: string | null;
  metadata: Record<string, unknown>;
  ai_config: Record<string, unknown> | null;
}

export interface StageContext {
  db: SupabaseClient;
  job: JobRow;
  documentId: string;
  options: PipelineOptions;
  ai: AiConfig;
  /** The model layer's client; its calls are recorded in ai_job_model_calls (run.ts). */
  llm: Llm;
  textEmbeddings: EmbeddingProvider;
  imageEmbeddings: ImageEmbeddingProvider;
  pdf: () => Promise<ParsedPdf>;
  signal: AbortSignal;
  /** The system prompt of a model call: ai_prompts' current version, or the code default. */
  prompt: (key: PromptKey) => Promise<string>;
}

/** Throws a PostgREST error as a stage failure with what was being written. */
export function check<T>(res: { data: T; error: { message: string } | null }, what: string): T {
  if (res.error) throw new Error(`${what}: ${res.error.message}`);
  return res.data;
}
