/**
 * /functions/v1/seo-pipeline (spec "SEO"): the five-stage SEO article pipeline.
 *
 * - POST / (user JWT): {topic, target_keyword, language_code?, location_code?, content_brief?,
 *   additional_instructions?, auto_fix?, max_fix_iterations?, skip_research?, existing_research?,
 *   workspace_id?, async?}. The seo_articles row is created at once (poll it by id at
 *   /rest/v1/seo_articles?id=eq.<article_id> for status, progress_percentage, current_stage).
 *   By default the request waits for the run and answers the spec's 200 {success, data:
 *   {article_id, article {...}}}; with `async: true` or `Prefer: respond-async` it answers 202
 *   {success, data: {article_id, status, progress_percentage, current_stage, poll}} at once and
 *   the run goes on in the background. Either way the run does not depend on the connection.
 *   400 bad body (skip_research without existing_research ...), 401 no user JWT, 402 balance
 *   below the run's base cost (nothing created), 404 workspace_id not yours, 503 model
 *   (model_unavailable) or keyword data not configured; a run that fails answers its error (502
 *   model_unavailable / model_bad_output for a model failure, 502 for DataForSEO, 402 when
 *   credits ran out mid-run) with details.article_id, after the
 *   row was marked failed and the credits of the stages it did not deliver were refunded (a stage
 *   whose checkpoint is readable through /rest/v1 stays charged; packages/shared/seo/pipeline.ts).
 * - POST /sweep (service role; pg_cron every minute): resumes or fails runs whose worker died
 *   (stale heartbeat). `?wait=true` answers once the resumed runs have ended.
 *
 * Domain: packages/shared/seo (pipeline.ts has the stages, billing.ts the costs).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { runInBackground } from "@shared/http/background.ts";
import {
  db,
  requireUser,
  requireWorkspaceRole,
  serviceDb,
  serviceRoleOnly,
  userOnly,
} from "@shared/auth/context.ts";
import {
  acceptedArticle,
  articleOutcome,
  dataForSeoFromEnv,
  existingResearch,
  PipelineRequest,
  seoLlmFromEnv,
  startArticle,
  sweepStale,
} from "@shared/seo/mod.ts";

const tags = ["SEO"];
const app = createFunctionApp("seo-pipeline");
const MAX_BODY_BYTES = 1024 * 1024;

const limitRequestBody = limitBody(MAX_BODY_BYTES);

const deps = (c: Parameters<typeof serviceDb>[0]) => ({
  db: serviceDb(c),
  llm: seoLlmFromEnv,
  keywordData: dataForSeoFromEnv,
});

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "Run the SEO article pipeline (waits for the article, or 202 with async)",
    middleware: [limitRequestBody, userOnly] as const,
    request: jsonBody(PipelineRequest),
    responses: {
      ...okJson("{success, data: {article_id, article {id, title, contentMarkdown, ...}}}"),
      ...okJson(
        "async: {success, data: {article_id, status, progress_percentage, current_stage, poll}}",
        202,
      ),
      ...errorResponses,
      402: errorResponse(
        "Insufficient credits (before the run: nothing created; mid-run: undelivered stages refunded)",
      ),
      502: errorResponse(
        "A stage failed at the model or DataForSEO; the article is failed, undelivered stages refunded",
      ),
      503: errorResponse("The language model or keyword data is not configured"),
    },
  }),
  async (c) => {
    const who = requireUser(c);
    const req = c.req.valid("json");
    existingResearch(req); // a malformed existing_research is a 400 before anything else
    if (req.workspace_id) await requireWorkspaceRole(c, req.workspace_id, null, "Writing SEO articles");
    const caller = { db: db(c), userId: who.userId };
    const started = await startArticle(deps(c), caller, req, `request:${c.get("requestId")}`);
    if (req.async || /\brespond-async\b/i.test(c.req.header("prefer") ?? "")) {
      return c.json(acceptedArticle(started.row), 202);
    }
    const done = await articleOutcome(started);
    return done.status === 200 ? c.json(done.body, 200) : c.json(done.body, 202);
  },
);

app.openapi(
  createRoute({
    method: "post",
    path: "/sweep",
    tags,
    summary: "Resume or fail runs whose worker died (service role; pg_cron every minute)",
    middleware: [serviceRoleOnly] as const,
    request: { query: z.object({ wait: z.enum(["true", "false"]).default("false") }) },
    responses: { ...okJson("{success, resumed: [id], failed: [id]}"), ...errorResponses },
  }),
  async (c) => {
    const swept = await sweepStale(deps(c));
    const runs = swept.runs.map((r, i) => runInBackground(`seo-pipeline sweep ${swept.resumed[i]}`, r));
    let outcomes: Record<string, string> | undefined;
    if (c.req.valid("query").wait === "true") {
      const done = await Promise.all(runs);
      outcomes = Object.fromEntries(done.map((o, i) => [swept.resumed[i], o?.status ?? "failed"]));
    }
    return c.json({ success: true, resumed: swept.resumed, failed: swept.failed, outcomes }, 200);
  },
);

export default app;
