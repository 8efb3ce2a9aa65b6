/**
 * The PDF processing pipeline's routes (RAG group): the orchestrator POST
 * /api/rag/documents/upload (stores the PDF as the caller, then runs every stage and answers the
 * finished job), resume and restart of a job (an upload-async job is picked up by resume), its
 * checkpoints, and each stage on its own at /api/internal/<stage>/{job_id} (platform admins and
 * the service role: they act on any job). The caller's right to a job is its RLS read; the run
 * itself uses the service role. Domain: pipeline/job_control.ts, pipeline/jobs.ts, pipeline/run.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { HttpError } from "@shared/http/errors.ts";
import { db, platformRoles, requireUser, requireWorkspaceRole, serviceDb } from "@shared/auth/context.ts";
import { errorResponse, errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { router } from "../env.ts";
import type { Ctx } from "../env.ts";
import { decodeBase64 } from "@shared/kb/pdf.ts";
import { INTERNAL_STAGES, pipelineOptionsSchema, STAGES } from "../pipeline/config.ts";
import { aiConfigInput } from "@shared/ai_services/config.ts";
import { runJob } from "../pipeline/run.ts";
import { createUploadJob, jobView, pipelineDeps } from "../pipeline/jobs.ts";
import type { JobRow } from "../pipeline/context.ts";
import {
  type CallFilter,
  jobCheckpoints,
  jobModelCalls,
  restartJob,
  resumeJob,
  runOneStage,
} from "../pipeline/job_control.ts";

const tags = ["RAG pipeline"];

const uploadBody = pipelineOptionsSchema.partial().extend({
  pdf_base64: z.string().min(1),
  filename: z.string().trim().min(1).max(255).default("document.pdf"),
  workspace_id: z.uuid().optional(),
}).strict();

/** The pipeline's dependencies from the backend's config, running as the service role. */
const deps = (c: Ctx) => pipelineDeps(c.get("cfg"), serviceDb(c));

/** A finished run: 200 when completed, otherwise 422 with the job (so a billed upload is refunded). */
function answer(c: Ctx, job: JobRow) {
  if (job.status === "completed" || job.status === "pending") return c.json(jobView(job), 200);
  return c.json({
    error: `The pipeline did not finish: ${(job as { error?: string }).error ?? job.status}`,
    code: "pipeline_failed",
    details: jobView(job),
  }, 422);
}

const stageBody = z.object({ ai_config: aiConfigInput.optional() });

/** A stage route's optional body {ai_config?}; a body that is not JSON counts as none. */
async function stageAiConfig(c: Ctx) {
  const body = await c.req.json().catch(() => ({}));
  const parsed = stageBody.safeParse(body ?? {});
  if (!parsed.success) throw HttpError.badRequest(`ai_config: ${parsed.error.issues[0]?.message}`);
  return parsed.data.ai_config;
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
      return answer(c, await runJob(deps(c), jobId));
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
    async (c) => answer(c, await resumeJob(db(c), deps(c), c.req.valid("param").job_id)),
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
    async (c) => answer(c, await restartJob(db(c), deps(c), c.req.valid("param").job_id)),
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
    async (c) => c.json(await jobCheckpoints(db(c), c.req.valid("param").job_id), 200),
  );

  // AI tracking: the job's model calls, summarised, or of one stage or one model.
  const tracking = (
    path: string,
    summary: string,
    params: z.ZodObject,
    filter: (p: Record<string, string>) => CallFilter,
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
        return c.json(await jobModelCalls(db(c), p.job_id, filter(p)), 200);
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
            content: { "application/json": { schema: stageBody } },
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
        const { job, output } = await runOneStage(deps(c), job_id, stage, await stageAiConfig(c));
        if (job.status === "failed") return answer(c, job);
        return c.json({ job: jobView(job), output }, 200);
      },
    );
  }

  return app;
}
