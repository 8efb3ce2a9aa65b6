/**
 * The PDF processing pipeline's routes (RAG group): the orchestrator POST
 * /api/rag/documents/upload (stores the PDF as the caller, then runs every stage and answers the
 * finished job), resume and restart of a job (an upload-async job is picked up by resume), its
 * checkpoints, and each stage on its own at /api/internal/<stage>/{job_id} (platform admins and
 * the service role: they act on any job). The caller's right to a job is its RLS read; the run
 * itself uses the service role.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { HttpError } from "@shared/http/errors.ts";
import { db, platformRoles, requireUser, requireWorkspaceRole, serviceDb } from "@shared/auth/context.ts";
import { readPages, rows } from "@shared/supabase/postgrest.ts";
import { errorResponse, errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { router } from "../env.ts";
import type { Ctx } from "../env.ts";
import { decodeBase64 } from "../kb/pdf.ts";
import { aiConfigInput, INTERNAL_STAGES, pipelineOptionsSchema, STAGES } from "../pipeline/config.ts";
import { readJob, runJob } from "../pipeline/run.ts";
import { createUploadJob, jobView, pipelineDeps } from "../pipeline/jobs.ts";
import type { JobRow } from "../pipeline/context.ts";

const tags = ["RAG pipeline"];

interface ModelCallRow {
  stage: string;
  model: string;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number;
  ok: boolean;
}

function summarise(calls: ModelCallRow[]) {
  const sum = (list: ModelCallRow[]) => ({
    calls: list.length,
    failed: list.filter((x) => !x.ok).length,
    input_tokens: list.reduce((a, x) => a + (x.input_tokens ?? 0), 0),
    output_tokens: list.reduce((a, x) => a + (x.output_tokens ?? 0), 0),
    latency_ms: list.reduce((a, x) => a + x.latency_ms, 0),
  });
  const group = (key: "stage" | "model") =>
    Object.fromEntries(
      [...new Set(calls.map((x) => x[key]))].map((k) => [k, sum(calls.filter((x) => x[key] === k))]),
    );
  return { totals: sum(calls), by_stage: group("stage"), by_model: group("model") };
}

const uploadBody = pipelineOptionsSchema.partial().extend({
  pdf_base64: z.string().min(1),
  filename: z.string().trim().min(1).max(255).default("document.pdf"),
  workspace_id: z.uuid().optional(),
}).strict();

/** The job as the caller may see it (RLS), or 404. */
async function visibleJob(c: Ctx, jobId: string): Promise<JobRow> {
  const job = rows(await db(c).from("ai_jobs").select("*").eq("id", jobId).maybeSingle(), "Job") as
    | JobRow
    | null;
  if (!job) throw HttpError.notFound("Job not found");
  return job;
}

/** A finished run: 200 when completed, otherwise 422 with the job (so a billed upload is refunded). */
function answer(c: Ctx, job: JobRow) {
  if (job.status === "completed" || job.status === "pending") return c.json(jobView(job), 200);
  return c.json({
    error: `The pipeline did not finish: ${(job as { error?: string }).error ?? job.status}`,
    code: "pipeline_failed",
    details: jobView(job),
  }, 422);
}

export function pipelineRoutes() {
  const app = router();
  app.use("/api/internal/*", platformRoles(["admin"]));

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/documents/upload",
      tags,
      summary: "Process a PDF through all six stages and answer the finished job",
      request: jsonBody(uploadBody),
      responses: {
        ...okJson("The completed job {job_id, status, progress, document_id, ...}"),
        ...errorResponses,
        413: errorResponse("The PDF is too large"),
        422: errorResponse("A stage failed: {error, code: pipeline_failed, details: job}"),
      },
    }),
    async (c) => {
      const who = requireUser(c);
      const { pdf_base64, filename, workspace_id, ...options } = c.req.valid("json");
      if (workspace_id) await requireWorkspaceRole(c, workspace_id, null);
      const bytes = decodeBase64(pdf_base64, c.get("cfg").maxUploadBytes ?? 50 * 1024 * 1024);
      const jobId = await createUploadJob(db(c), who.userId, {
        bytes,
        filename,
        workspaceId: workspace_id ?? null,
        options,
      });
      return answer(c, await runJob(pipelineDeps(c.get("cfg"), serviceDb(c)), jobId));
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/jobs/{job_id}/resume",
      tags,
      summary: "Continue a job from its last checkpoint (also runs a pending upload-async job)",
      request: { params: idParam("job_id") },
      responses: {
        ...okJson("The job after the run"),
        ...errorResponses,
        409: errorResponse("Another run holds the job"),
      },
    }),
    async (c) => {
      const job = await visibleJob(c, c.req.valid("param").job_id);
      return answer(c, await runJob(pipelineDeps(c.get("cfg"), serviceDb(c)), job.id));
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/jobs/{job_id}/restart",
      tags,
      summary: "Run a job again from the first stage (its checkpoints and document rows are dropped)",
      request: { params: idParam("job_id") },
      responses: {
        ...okJson("The job after the run"),
        ...errorResponses,
        409: errorResponse("The job is running"),
      },
    }),
    async (c) => {
      const job = await visibleJob(c, c.req.valid("param").job_id);
      if (job.status === "processing") {
        throw new HttpError(409, "job_busy", "The job is running; resume it instead");
      }
      const service = serviceDb(c);
      rows(await service.from("pipeline_documents").delete().eq("job_id", job.id), "Document");
      rows(await service.rpc("pipeline_reset_job", { p_job: job.id }), "Job");
      return answer(c, await runJob(pipelineDeps(c.get("cfg"), service), job.id));
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/jobs/{job_id}/checkpoints",
      tags,
      summary: "A job's checkpoints: each finished stage with its output, in stage order",
      request: { params: idParam("job_id") },
      responses: {
        ...okJson("{job_id, checkpoints: [{stage, progress, output, created_at}]}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const job = await visibleJob(c, c.req.valid("param").job_id);
      const list = rows(
        await db(c).from("ai_job_checkpoints").select("stage, progress, output, created_at").eq(
          "job_id",
          job.id,
        )
          .order("progress"),
        "Checkpoint",
      );
      return c.json({ job_id: job.id, checkpoints: list }, 200);
    },
  );

  // AI tracking: the job's model calls, summarised, or of one stage or one model.
  const tracking = (
    path: string,
    summary: string,
    params: z.ZodObject,
    filter: (p: Record<string, string>) => [string, string] | null,
  ) =>
    app.openapi(
      createRoute({
        method: "get",
        path,
        tags,
        summary,
        request: { params },
        responses: { ...okJson("{job_id, totals, by_stage, by_model, calls}"), ...errorResponses },
      }),
      async (c) => {
        const p = c.req.param() as Record<string, string>;
        const job = await visibleJob(c, p.job_id);
        const f = filter(p);
        // Every call, paged by (created_at, id): a single read stops at max_rows (1,000), and an
        // image-heavy document makes more calls than that.
        const calls = rows(
          await readPages<ModelCallRow>(() => {
            const q = db(c).from("ai_job_model_calls")
              .select("stage, model, purpose, input_tokens, output_tokens, latency_ms, ok, error, created_at")
              .eq("job_id", job.id);
            return (f ? q.eq(f[0], f[1]) : q).order("created_at").order("id");
          }),
          "Model call",
        );
        return c.json({ job_id: job.id, ...(f ? { [f[0]]: f[1] } : {}), ...summarise(calls), calls }, 200);
      },
    );
  const jobIdParam = z.object({ job_id: z.uuid() });
  tracking(
    "/api/rag/jobs/{job_id}/ai-tracking",
    "The job's model calls: totals, per stage, per model",
    jobIdParam,
    () => null,
  );
  tracking(
    "/api/rag/jobs/{job_id}/ai-tracking/stage/{stage}",
    "The job's model calls in one stage",
    jobIdParam.extend({ stage: z.enum(STAGES) }),
    (p) => ["stage", p.stage],
  );
  tracking(
    "/api/rag/jobs/{job_id}/ai-tracking/model/{model_name}",
    "The job's calls to one model",
    jobIdParam.extend({ model_name: z.string().min(1).max(200) }),
    (p) => ["model", p.model_name],
  );

  for (const stage of INTERNAL_STAGES) {
    app.openapi(
      createRoute({
        method: "post",
        path: `/api/internal/${stage}/{job_id}`,
        tags: ["Pipeline stages (internal)"],
        summary: `Run ${stage} alone on a job, from the previous stages' checkpoints`,
        request: {
          params: idParam("job_id"),
          body: {
            content: { "application/json": { schema: z.object({ ai_config: aiConfigInput.optional() }) } },
            required: false,
          },
        },
        responses: {
          ...okJson("{job, output}: the job after the stage and the stage's checkpointed output"),
          ...errorResponses,
          409: errorResponse("An earlier stage has not run, or another run holds the job"),
        },
      }),
      async (c) => {
        const { job_id } = c.req.valid("param");
        const body = await c.req.json().catch(() => ({}));
        const parsed = z.object({ ai_config: aiConfigInput.optional() }).safeParse(body ?? {});
        if (!parsed.success) throw HttpError.badRequest(`ai_config: ${parsed.error.issues[0]?.message}`);
        const service = serviceDb(c);
        if (!(await readJob(service, job_id))) throw HttpError.notFound("Job not found");
        if (parsed.data.ai_config) {
          rows(
            await service.from("ai_jobs").update({ ai_config: parsed.data.ai_config }).eq("id", job_id),
            "Job",
          );
        }
        const job = await runJob(pipelineDeps(c.get("cfg"), service), job_id, { only: stage });
        const cp = rows(
          await service.from("ai_job_checkpoints").select("output").eq("job_id", job_id).eq("stage", stage)
            .maybeSingle(),
          "Checkpoint",
        ) as { output: unknown } | null;
        if (job.status === "failed") return answer(c, job);
        return c.json({ job: jobView(job), output: cp?.output ?? null }, 200);
      },
    );
  }

  return app;
}
