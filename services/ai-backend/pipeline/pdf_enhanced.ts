/**
 * ai_process_pdf_enhanced (routes/ai_services.ts): a PDF through the pipeline's classification
 * path or through the whole pipeline.
 *
 * - `classify` (default): reads the PDF and runs the classification path without storing
 *   anything: document type, product boundaries, and the two-stage classification of every
 *   embedded image (at most MAX_PDF_IMAGES; more is a 400 `too_many_images`).
 * - `full`: the real pipeline, exactly as POST /api/rag/documents/upload (stored as the caller,
 *   all six stages); a run that does not complete is a 422 `pipeline_failed` whose details are
 *   the job.
 */
import { DomainError } from "@shared/errors.ts";
import { aiConfigOf } from "@shared/ai_services/config.ts";
import { type AiDeps, modelRun } from "@shared/ai_services/deps.ts";
import { classifyDocument, detectBoundaries, pagesOf } from "@shared/ai_services/tasks.ts";
import { classifyTwoStage } from "@shared/images/analysis.ts";
import type { PipelineOptions } from "./config.ts";
import { parsePdf } from "./document.ts";
import { encodePng } from "@shared/images/png.ts";
import { createUploadJob, jobView } from "./jobs.ts";
import { type PipelineDeps, runJob } from "./run.ts";
import { promptReader } from "./prompts.ts";

/** The most embedded images the classification path classifies. */
export const MAX_PDF_IMAGES = 50;

export interface EnhancedRequest {
  bytes: Uint8Array;
  filename: string;
  mode: "classify" | "full";
  workspaceId: string | null;
  options: Partial<PipelineOptions>;
}

/** Either mode (see the module doc); `userId` uploads the document in mode full. */
export async function processPdfEnhanced(
  deps: AiDeps,
  pipeline: PipelineDeps,
  userId: string,
  req: EnhancedRequest,
) {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (req.mode === "full") {
    return { ...await runFull(deps, pipeline, userId, req), processing_time_ms: elapsed() };
  }
  return { ...await classifyPdf(deps, req), processing_time_ms: elapsed() };
}

async function runFull(deps: AiDeps, pipeline: PipelineDeps, userId: string, req: EnhancedRequest) {
  const jobId = await createUploadJob(deps.db, userId, {
    bytes: req.bytes,
    filename: req.filename,
    workspaceId: req.workspaceId,
    options: req.options,
  });
  const job = await runJob(pipeline, jobId);
  if (job.status !== "completed") {
    throw new DomainError(
      "unprocessable",
      "pipeline_failed",
      `The pipeline did not finish: ${(job as { error?: string }).error ?? job.status}`,
      jobView(job),
    );
  }
  return { mode: req.mode, job: jobView(job) };
}

async function classifyPdf(deps: AiDeps, req: EnhancedRequest) {
  const ai = aiConfigOf(req.options.ai_config);
  const pdf = await parsePdf(req.bytes);
  if (pdf.images.length > MAX_PDF_IMAGES) {
    throw DomainError.invalid(
      `The PDF has ${pdf.images.length} images; the classification path takes at most ${MAX_PDF_IMAGES} (use mode full)`,
      undefined,
      "too_many_images",
    );
  }
  const run = modelRun(deps, "ai_process_pdf_enhanced", req.workspaceId);
  const text = pdf.pages.join("\n\n");
  const document = text.trim() ? await classifyDocument(run, ai, text) : null;
  const boundaries = text.trim() ? await detectBoundaries(run, ai, pagesOf(pdf.pages)) : null;
  const prompts = promptReader(deps.service);
  const images = [];
  for (const im of pdf.images) {
    const png = await encodePng(im);
    const r = await classifyTwoStage(run, prompts, ai, {
      bytes: png,
      mediaType: "image/png",
      source: im.filename,
    }, `${im.filename} from page ${im.page_number}`);
    images.push({
      filename: im.filename,
      page_number: im.page_number,
      width: im.width,
      height: im.height,
      ...r,
    });
  }
  return {
    mode: req.mode,
    filename: req.filename,
    page_count: pdf.pages.length,
    document,
    products: boundaries?.products ?? [],
    index_pages: boundaries?.index_pages ?? [],
    images,
    material_images: images.filter((i) => i.is_material).length,
    model_calls: run.calls.length,
    escalations: run.calls.filter((x) => x.escalated).length,
  };
}
