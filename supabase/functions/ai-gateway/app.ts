/**
 * ai-gateway: POST /functions/v1/ai-gateway {action, payload} -> the AI backend. A route table;
 * the backend call and the answer's shape are in backend.ts.
 *
 * - Every action needs a user JWT or the service-role key (anon: 401); platform-admin actions
 *   also need the platform admin role (403). The caller's own token goes to the backend, which
 *   acts as the caller (RLS), so the gateway never lends its privileges to anyone.
 * - The action map (packages/shared/gateway/actions.ts) gives method and path; path parameters
 *   come from the payload by name, URL-encoded; for GET the rest is the query, else the body.
 * - The body is strictly {action, payload}: another top-level key is a 400 naming it
 *   (`unknown field "workspace_id"`: the workspace goes in the payload). So is a payload key the
 *   action does not take (`Invalid payload of kb_search: unknown field "topK"`), before the
 *   backend is called, so nothing is charged: each action's payload schema is derived from its
 *   backend route (@shared/gateway/payloads.ts). Values are the backend route's to judge.
 * - The OpenAPI document shows the body as one schema per action (oneOf by `action`), each
 *   with its payload, backend route and price (@shared/gateway/openapi.ts).
 * - Billing is the AI backend's, the one billing point (services/ai-backend/billing.ts): the
 *   gateway forwards the caller's JWT and its request id and passes the backend's billing
 *   through (x-credits-* headers, 402 with no work done, `billing` in a refunded error body).
 *   It never debits itself, so an action is billed once whichever way it is reached.
 * - Success is {success: true, data: object}: the backend's answer, or - for actions whose
 *   backend answers the object one level down ({document: {...}}; `unwrap` in the action map) -
 *   the object itself, so clients read data.id, data.title (@shared/gateway/answer.ts).
 * - Every failure, the gateway's own (400, 401, 403, 404, 415, 503) as the backend's, answers
 *   {success: false, error, code, details?, billing?} (GatewayFailure): one shape per surface.
 * - multipart/form-data goes to /api/rag/documents/upload-async (202 {job_id, status, message});
 *   the backend's job runner processes the job by itself (unless defer_processing=true), and
 *   GET /job-status/{job_id} reads it: pending -> processing -> completed or failed.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { parseJson } from "@shared/http/validate.ts";
import { requireAuthenticated, requirePlatformRole } from "@shared/auth/context.ts";
import { GATEWAY_ACTIONS, JOB_STATUS_PATH } from "@shared/gateway/mod.ts";
import { backendCall, gatewayAction, uploadCall } from "@shared/gateway/call.ts";
import { actionBodySchema, actionComponent, gatewayBodySchema } from "@shared/gateway/openapi.ts";
import {
  gatewayAnswer as answers,
  GatewayBody,
  gatewayErrorResponses,
  UploadForm,
} from "@shared/gateway/schemas.ts";
import { callBackend, gatewayErrors, gatewayNotFound, respond } from "./backend.ts";

const app = createFunctionApp("ai-gateway");
app.onError(gatewayErrors);
app.notFound(gatewayNotFound);
const tags = ["AI gateway"];

const billingNote = "Billable actions carry x-credits-charged, x-credits-balance (and x-credits-refunded)";

for (const action of Object.keys(GATEWAY_ACTIONS)) {
  app.openAPIRegistry.registerComponent("schemas", actionComponent(action), actionBodySchema(action));
}

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags,
    summary: "Run a gateway action ({action, payload}), or upload a document (multipart/form-data)",
    request: {
      body: {
        required: false, // each content type is validated only when it is the one sent
        content: {
          "application/json": { schema: gatewayBodySchema() }, // validated by the handler (GatewayBody)
          "multipart/form-data": { schema: UploadForm },
        },
      },
    },
    responses: {
      ...answers(200, `{success: true, data}: the backend's answer. ${billingNote}`),
      ...answers(
        202,
        "The upload is stored and its job queued: data {job_id, status: pending, message}; the pipeline runs " +
          "it by itself (poll GET job-status/{job_id}) unless defer_processing is `true`",
      ),
      ...gatewayErrorResponses,
      ...answers(
        402,
        "Insufficient credits (code insufficient_credits, details {action, price, balance, cost_key}; the " +
          "message says how to get credits): nothing was done or charged",
      ),
      415: { description: "Neither application/json nor multipart/form-data: {success: false, error, code}" },
      ...answers(502, "The AI backend is unreachable (nothing charged) or broke its contract"),
    },
  }),
  async (c) => {
    const who = requireAuthenticated(c);
    const contentType = c.req.header("content-type") ?? "";
    if (contentType.toLowerCase().startsWith("multipart/form-data")) {
      return respond(
        await callBackend(who, c.var.requestId, uploadCall(await c.req.arrayBuffer(), contentType)),
      );
    }
    const { action, payload } = await parseJson(c, GatewayBody);
    const spec = gatewayAction(action);
    if (spec.access === "platform_admin") await requirePlatformRole(c, ["admin"]);
    return respond(await callBackend(who, c.var.requestId, backendCall(action, spec, payload)), spec.unwrap);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/job-status/{job_id}",
    tags,
    summary: "An upload job's status",
    request: { params: z.object({ job_id: z.string().min(1) }) },
    responses: {
      ...answers(200, "{success: true, data: {job_id, status, ...}}"),
      ...gatewayErrorResponses,
    },
  }),
  async (c) => {
    const who = requireAuthenticated(c);
    const { job_id } = c.req.valid("param");
    return respond(
      await callBackend(who, c.var.requestId, {
        method: "GET",
        path: JOB_STATUS_PATH.replace("{job_id}", encodeURIComponent(job_id)),
        body: null,
        contentType: "application/json",
      }),
    );
  },
);

export default app;
