/**
 * ai-gateway: POST /functions/v1/ai-gateway {action, payload} -> the AI backend.
 *
 * - Every action needs a user JWT or the service-role key (anon: 401); platform-admin actions
 *   also need the platform admin role (403). The caller's own token goes to the backend, which
 *   acts as the caller (RLS), so the gateway never lends its privileges to anyone.
 * - The action map (packages/shared/gateway/actions.ts) gives method and path; path parameters
 *   come from the payload by name, URL-encoded; for GET the rest is the query, else the body.
 * - Billable actions called with a user JWT are debited before the call (402 and no call when
 *   the balance is short) and refunded when the backend answers non-2xx or cannot be reached.
 *   The service-role key is never billed.
 * - multipart/form-data goes to /api/rag/documents/upload-async (202 {job_id, status, message});
 *   GET /job-status/{job_id} reads a job.
 */
import { z } from "zod";
import type { Context } from "hono";
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { parseJson } from "@shared/http/validate.ts";
import {
  type Caller,
  type CoreEnv,
  requireAuthenticated,
  requirePlatformRole,
} from "@shared/auth/context.ts";
import { serviceClient } from "@shared/supabase/clients.ts";
import { env } from "@shared/env.ts";
import {
  buildBackendRequest,
  costKeyOf,
  GATEWAY_ACTIONS,
  JOB_STATUS_PATH,
  PayloadError,
  quantityOf,
  UPLOAD_ASYNC,
} from "@shared/gateway/mod.ts";
import { type Charge, type CostKeyDebit, type RefundOutcome, runBilled } from "@shared/credits/ledger.ts";
import { type BackendAnswer, callBackend } from "./backend.ts";

const app = createFunctionApp("ai-gateway");

const bodySchema = z.object({
  action: z.string().min(1),
  payload: z.record(z.string(), z.unknown()).default({}),
});

function backendUrl(): string {
  const url = env("AI_BACKEND_URL");
  if (!url) {
    throw new HttpError(503, "backend_not_configured", "The AI backend is not configured (AI_BACKEND_URL)");
  }
  return url.replace(/\/+$/, "");
}

/** Billing headers on every billed answer, so a client sees what the call cost. */
function billingHeaders(charge: Charge | null, refund: RefundOutcome | null): Record<string, string> {
  if (!charge) return {};
  const h: Record<string, string> = { "x-credits-charged": String(charge.credits) };
  if (refund?.refunded) h["x-credits-refunded"] = String(charge.credits);
  h["x-credits-balance"] = String(refund?.refunded ? refund.balance : charge.balance);
  return h;
}

/** The gateway's answer: {success: true, data} on 2xx, the backend's status and message otherwise. */
function respond(
  r: BackendAnswer,
  charge: Charge | null,
  refund: RefundOutcome | null,
): Response {
  const headers = { ...billingHeaders(charge, refund), "content-type": "application/json" };
  if (r.status >= 200 && r.status < 300) {
    if (r.contentType.startsWith("text/html")) {
      return new Response(r.text, {
        status: r.status,
        headers: { ...headers, "content-type": r.contentType },
      });
    }
    return new Response(JSON.stringify({ success: true, data: r.json ?? r.text }), {
      status: r.status,
      headers,
    });
  }
  const err = (r.json && typeof r.json === "object" ? r.json : {}) as {
    error?: unknown;
    code?: unknown;
    details?: unknown;
  };
  const body: Record<string, unknown> = {
    success: false,
    error: typeof err.error === "string"
      ? err.error
      : r.text.slice(0, 500) || `AI backend answered ${r.status}`,
    code: typeof err.code === "string" ? err.code : "backend_error",
  };
  if (err.details !== undefined) body.details = err.details;
  if (charge) {
    body.billing = refund?.refunded ? { refunded: charge.credits } : { refunded: 0, refund_error: refund };
  }
  return new Response(JSON.stringify(body), { status: r.status, headers });
}

function billFor(
  who: Caller,
  action: string,
  params: Omit<CostKeyDebit, "userId" | "action">,
): CostKeyDebit | null {
  // The service-role key is the platform acting for itself: never billed.
  return who.kind === "user" && who.userId ? { userId: who.userId, action, ...params } : null;
}

async function multipartUpload(c: Context<CoreEnv>, who: Caller): Promise<Response> {
  const base = backendUrl();
  const bytes = await c.req.arrayBuffer();
  const bill = billFor(who, UPLOAD_ASYNC.action, {
    costKey: UPLOAD_ASYNC.cost,
    referenceId: c.var.requestId,
  });
  const { result, charge, refund } = await runBilled(serviceClient, bill, () =>
    callBackend(base, who, {
      method: "POST",
      path: UPLOAD_ASYNC.path,
      body: bytes,
      contentType: c.req.header("content-type")!,
    }));
  const job = result.json as { job_id?: string; status?: string; message?: string } | null;
  if (result.status === 202 && job?.job_id && charge) {
    // Recorded by the system, not the user, so the pipeline can refund a job that fails.
    const { error } = await serviceClient().from("ai_jobs").update({
      credit_transaction_id: charge.transactionId,
    })
      .eq("id", job.job_id).eq("user_id", who.userId!);
    if (error) console.error(`ai-gateway: could not link job ${job.job_id} to its debit`, error);
  }
  if (result.status === 202 && job?.job_id) {
    return c.json(
      { success: true, data: { job_id: job.job_id, status: job.status, message: job.message } },
      202,
      {
        ...billingHeaders(charge, refund),
      },
    );
  }
  return respond(result, charge, refund);
}

app.post("/", async (c) => {
  const who = requireAuthenticated(c);
  if ((c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")) {
    return await multipartUpload(c, who);
  }
  const { action, payload } = await parseJson(c, bodySchema);
  const spec = GATEWAY_ACTIONS[action];
  if (!spec) {
    throw new HttpError(400, "unknown_action", `Unknown action: ${action}`, {
      available_actions: Object.keys(GATEWAY_ACTIONS),
    });
  }
  if (spec.access === "platform_admin") await requirePlatformRole(c, ["admin"]);
  let request;
  try {
    request = buildBackendRequest(spec, payload);
  } catch (err) {
    if (err instanceof PayloadError) {
      throw new HttpError(400, "validation_failed", `Invalid payload for ${action}: ${err.message}`, [
        { path: ["payload", err.field], message: err.message },
      ]);
    }
    throw err;
  }
  const base = backendUrl();
  const costKey = costKeyOf(spec, payload);
  const bill = costKey
    ? billFor(who, action, {
      costKey,
      quantity: quantityOf(spec, payload),
      workspaceId: typeof payload.workspace_id === "string" ? payload.workspace_id : null,
      referenceId: c.var.requestId,
    })
    : null;
  const { result, charge, refund } = await runBilled(serviceClient, bill, () =>
    callBackend(base, who, {
      method: request.method,
      path: request.path,
      body: request.body === null ? null : JSON.stringify(request.body),
      contentType: "application/json",
    }));
  return respond(result, charge, refund);
});

app.get("/job-status/:job_id", async (c) => {
  const who = requireAuthenticated(c);
  const jobId = c.req.param("job_id");
  const result = await callBackend(backendUrl(), who, {
    method: "GET",
    path: JOB_STATUS_PATH.replace("{job_id}", encodeURIComponent(jobId)),
    body: null,
    contentType: "application/json",
  });
  return respond(result, null, null);
});

export default app;
