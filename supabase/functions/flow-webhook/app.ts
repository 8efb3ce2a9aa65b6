/**
 * POST /functions/v1/flow-webhook?flow_id=<uuid> (spec "Flow engine"): public. The JSON body
 * becomes trigger.data; the short form {event_type, data} gives `data` (with event_type added).
 * A flow whose webhook trigger sets require_signature needs X-Webhook-Signature, the
 * HMAC-SHA256 of the raw body with the flow's webhook secret (`sha256=<hex>`), checked in
 * constant time before the body is parsed; it never falls back to unsigned. An unknown,
 * disabled or non-webhook flow is a 404; bodies over 256 KiB a 413.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { executeFlow, flowClock, webhookRequest } from "@shared/flows/mod.ts";

const MAX_BODY_BYTES = 256 * 1024;
const app = createFunctionApp("flow-webhook");

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Flow engine"],
    summary: "Run a webhook-triggered flow with the request body as trigger.data",
    request: { query: z.object({ flow_id: z.uuid() }) },
    responses: { ...okJson("{success, run_id, status}"), ...errorResponses },
  }),
  async (c) => {
    const { flow_id } = c.req.valid("query");
    const declared = Number(c.req.header("content-length") ?? 0);
    if (declared > MAX_BODY_BYTES) {
      throw new HttpError(413, "payload_too_large", `The body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    const raw = new Uint8Array(await c.req.arrayBuffer());
    if (raw.byteLength > MAX_BODY_BYTES) {
      throw new HttpError(413, "payload_too_large", `The body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    const service = serviceDb(c);
    const { flow, triggerData } = await webhookRequest(
      service,
      flow_id,
      raw,
      c.req.header("x-webhook-signature") ?? null,
    );
    const run = await executeFlow(service, {
      flow,
      triggerType: "webhook",
      triggerData,
      dryRun: false,
      initiatedBy: null,
      clock: flowClock(),
    });
    return c.json(
      { success: true, run_id: run.run_id, status: run.status, error_message: run.error_message },
      200,
    );
  },
);

export default app;
