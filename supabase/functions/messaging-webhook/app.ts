/**
 * /functions/v1/messaging-webhook (spec "Messaging provider webhook"): Twilio's form-encoded
 * callbacks, `?type=status` (default: delivery reports) or `?type=incoming` (messages sent to our
 * numbers). Public (verify_jwt = false): the X-Twilio-Signature over the configured URL and
 * every posted field is the only credential, checked before anything is read or written; a
 * missing or wrong one is a 403 that changes nothing.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createFunctionApp } from "@shared/http/app.ts";
import { toHttpError } from "@shared/http/errors.ts";
import { errorResponse, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { env } from "@shared/env.ts";
import { CREDENTIALS_MISSING, messagingClock, receiveTwilioCallback } from "@shared/messaging/mod.ts";

const app = createFunctionApp("messaging-webhook");
app.onError((err: Error, c: Context) => {
  const http = toHttpError(err);
  if (http) return c.json({ success: false, error: http.message }, http.status);
  console.error(`[messaging-webhook ${c.get("requestId" as never) ?? "-"}]`, err);
  return c.json({ success: false, error: "Internal server error" }, 500);
});

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Messaging"],
    summary: "Twilio status callback (?type=status) or incoming message (?type=incoming), signed",
    request: { query: z.object({ type: z.enum(["status", "incoming"]).default("status") }) },
    responses: {
      ...okJson("Status applied: {success, status}; incoming: empty TwiML"),
      400: errorResponse("Not a form-encoded body, or no MessageSid"),
      403: errorResponse("Missing or invalid X-Twilio-Signature"),
      503: errorResponse(CREDENTIALS_MISSING),
    },
  }),
  async (c) => {
    const out = await receiveTwilioCallback(serviceDb(c), messagingClock(), {
      type: c.req.valid("query").type,
      authToken: env("TWILIO_AUTH_TOKEN"),
      contentType: c.req.header("content-type") ?? "",
      body: () => c.req.text(),
      search: new URL(c.req.url).search,
      signature: c.req.header("x-twilio-signature"),
    });
    if (out.incoming) return c.body(EMPTY_TWIML, 200, { "content-type": "text/xml" });
    return c.json({ success: true, status: out.status }, 200);
  },
);

export default app;
