/**
 * The one billing point of every billable AI action (issue 14, "Money"): a middleware in front of
 * each built billable backend route, so a user pays once whichever way the route is reached
 * (directly with a user JWT, or through ai-gateway, which forwards the caller's JWT and request
 * id and no longer bills). The service role is never billed.
 *
 * Per request, for a user caller:
 * - the action's price comes from the gateway action map (packages/shared/gateway: one source of
 *   truth; rag_search's cost key depends on the payload, batches bill per image);
 * - it is debited before the route runs (credits/ledger.ts); a short balance is a 402 and the
 *   route never runs;
 * - a route that answers non-2xx or throws is refunded in full; the error body gets
 *   `billing: {refunded}` (or `{refunded: 0, refund_error}`);
 * - the answer carries x-credits-charged, x-credits-balance and, after a refund,
 *   x-credits-refunded; the usage log's reference_id is the request id (x-request-id);
 * - an accepted upload-async job is linked to its debit (ai_jobs.credit_transaction_id), so the
 *   pipeline can refund a job that fails later.
 */
import type { Hono, MiddlewareHandler } from "hono";
import type { Context } from "hono";
import { caller, type CoreEnv, serviceDb } from "@shared/auth/context.ts";
import {
  type ActionSpec,
  costKeyOf,
  GATEWAY_ACTIONS,
  isBillable,
  quantityOf,
  UPLOAD_ASYNC,
} from "@shared/gateway/mod.ts";
import { type Charge, debit, refund, type RefundOutcome } from "@shared/credits/ledger.ts";
import { KB_BATCH_MAX_DOCUMENTS } from "@shared/kb/schemas.ts";
import { refundFailed } from "./pipeline/run.ts";
import type { JobRow } from "./pipeline/context.ts";

type Payload = Record<string, unknown>;

/** The billing headers of a charged answer. */
export function billingHeaders(charge: Charge, outcome: RefundOutcome | null): Record<string, string> {
  const h: Record<string, string> = { "x-credits-charged": String(charge.credits) };
  if (outcome?.refunded) h["x-credits-refunded"] = String(charge.credits);
  h["x-credits-balance"] = String(outcome?.refunded ? outcome.balance : charge.balance);
  return h;
}

/** The `billing` member of a refunded error body. */
export function billingBody(charge: Charge, outcome: RefundOutcome): Record<string, unknown> {
  return outcome.refunded ? { refunded: charge.credits } : { refunded: 0, refund_error: outcome };
}

/** The billable spec of an action name (including upload-async); throws for free actions. */
function billableSpec(action: string): Pick<ActionSpec, "cost" | "quantity"> {
  if (action === UPLOAD_ASYNC.action) return { cost: UPLOAD_ASYNC.cost };
  const spec = GATEWAY_ACTIONS[action];
  if (!spec || !isBillable(spec)) throw new Error(`billing: ${action} is not a billable action`);
  return spec;
}

/** What the price depends on: the JSON body (POST/PATCH/PUT) or the query (GET/DELETE). */
async function payloadOf(c: Context): Promise<Payload> {
  if (c.req.method === "GET" || c.req.method === "DELETE") return c.req.query();
  if (!(c.req.header("content-type") ?? "").toLowerCase().includes("json")) return {};
  try {
    // Hono caches the parsed body, so the route's own validator reads the same value.
    const body = await c.req.json();
    return body && typeof body === "object" && !Array.isArray(body) ? body as Payload : {};
  } catch (err) {
    // Not JSON: the route's validator answers 400 (and the debit is refunded); priced as given.
    console.debug(`billing: unparsable JSON body (${(err as Error).message})`);
    return {};
  }
}

async function linkJob(c: Context<CoreEnv>, charge: Charge, userId: string): Promise<void> {
  let job: { job_id?: unknown } | null = null;
  try {
    job = await c.res.clone().json();
  } catch (err) {
    console.error(`billing: upload-async answered 2xx without a JSON job (${(err as Error).message})`);
  }
  if (typeof job?.job_id !== "string") return;
  // Recorded by the system, not the user, so the pipeline can refund a job that fails.
  const { data, error } = await serviceDb(c).from("ai_jobs").update({
    credit_transaction_id: charge.transactionId,
  })
    .eq("id", job.job_id).eq("user_id", userId).select("*").maybeSingle();
  if (error) console.error(`billing: could not link job ${job.job_id} to its debit`, error);
  // A job another replica's runner took and failed before this link (milliseconds) was not
  // refunded by the pipeline, which saw no debit: refund it now (once: refund.ts).
  if (data?.status === "failed") await refundFailed(serviceDb(c), data as JobRow, data.error ?? "failed");
}

/** Adds `billing` to a JSON error body (direct callers see what happened to their credits). */
async function withBillingBody(res: Response, billing: Record<string, unknown>): Promise<Response> {
  if (!(res.headers.get("content-type") ?? "").includes("json")) return res;
  let body: unknown;
  try {
    body = await res.clone().json();
  } catch (err) {
    console.error(`billing: an error answer was not JSON (${(err as Error).message})`);
    return res;
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return res;
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...body, billing }), { status: res.status, headers });
}

/**
 * The billing middleware of one action (see the module doc); `quantity` overrides the action's
 * units (a backend-only route billed as an action, see EXTRA_BILLED_ROUTES).
 */
export function billed(action: string, quantity?: (payload: Payload) => number): MiddlewareHandler<CoreEnv> {
  const spec = billableSpec(action);
  return async (c, next) => {
    const who = caller(c);
    if (who.kind !== "user" || !who.userId) return await next(); // the service role is free
    const payload = await payloadOf(c);
    const charge = await debit(serviceDb(c), {
      userId: who.userId,
      action,
      costKey: costKeyOf(spec as ActionSpec, payload)!,
      quantity: quantity ? quantity(payload) : quantityOf(spec as ActionSpec, payload),
      workspaceId: typeof payload.workspace_id === "string" ? payload.workspace_id : null,
      referenceId: c.var.requestId.slice(0, 200), // the client's x-request-id, bounded
    });
    let failure: string | null = null;
    try {
      await next();
    } catch (err) {
      // Hono renders handler errors itself (c.error); this catches a failure outside of it.
      await refund(serviceDb(c), charge, `route failed: ${(err as Error).message}`);
      throw err;
    }
    const status = c.res.status;
    if (c.error) failure = `route failed: ${c.error.message}`;
    else if (status < 200 || status > 299) failure = `route answered ${status}`;
    let outcome: RefundOutcome | null = null;
    if (failure !== null) {
      outcome = await refund(serviceDb(c), charge, failure);
      c.res = await withBillingBody(c.res, billingBody(charge, outcome));
      c.res.headers.delete("content-length"); // Hono's c.res setter copies the old response's headers
    } else if (action === UPLOAD_ASYNC.action) {
      await linkJob(c, charge, who.userId);
    }
    for (const [k, v] of Object.entries(billingHeaders(charge, outcome))) c.res.headers.set(k, v);
  };
}

/** Hono's path form of a map template: `/api/kb/documents/{doc_id}` -> `/api/kb/documents/:doc_id`. */
const honoPath = (template: string) => template.replaceAll(/\{([a-z_]+)\}/g, ":$1");

/**
 * Backend routes outside the spec's gateway table, billed as one of its actions per unit:
 * POST /api/kb/documents/batch costs what kb_create_document costs, per document.
 */
export const EXTRA_BILLED_ROUTES: readonly {
  action: string;
  method: string;
  path: string;
  quantity: (payload: Payload) => number;
}[] = [
  {
    action: "kb_create_document",
    method: "POST",
    path: "/api/kb/documents/batch",
    // At most the batch's limit: a longer batch is refused (400) after the debit, then refunded.
    quantity: (p) =>
      Array.isArray(p.documents) && p.documents.length > 0
        ? Math.min(p.documents.length, KB_BATCH_MAX_DOCUMENTS)
        : 1,
  },
];

/** Every billable action among `built`, plus upload-async: [action, method, Hono path]. */
export function billableRoutes(): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const [action, spec] of Object.entries(GATEWAY_ACTIONS)) {
    if (isBillable(spec)) out.push([action, spec.method, honoPath(spec.path)]);
  }
  out.push([UPLOAD_ASYNC.action, UPLOAD_ASYNC.method, UPLOAD_ASYNC.path]);
  return out;
}

/**
 * Puts `billed(action)` in front of each built billable route. Call it before the routes are
 * mounted (middleware runs in registration order).
 */
export function applyBilling<E extends CoreEnv>(app: Hono<E>): void {
  for (const [action, method, path] of billableRoutes()) {
    app.on(method, path, billed(action) as unknown as MiddlewareHandler<E>);
  }
  for (const r of EXTRA_BILLED_ROUTES) {
    app.on(r.method, r.path, billed(r.action, r.quantity) as unknown as MiddlewareHandler<E>);
  }
}
