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
import {
  applyStatusCallback,
  CREDENTIALS_MISSING,
  handleIncoming,
  messagingClock,
  verifyTwilioSignature,
  webhookUrl,
} from "@shared/messaging/mod.ts";

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
    const { type } = c.req.valid("query");
    const authToken = env("TWILIO_AUTH_TOKEN");
    if (!authToken) return c.json({ success: false, error: CREDENTIALS_MISSING }, 503);
    const contentType = c.req.header("content-type") ?? "";
    if (!contentType.startsWith("application/x-www-form-urlencoded")) {
      return c.json({ success: false, error: "Expected an application/x-www-form-urlencoded body" }, 400);
    }
    const params = new URLSearchParams(await c.req.text());
    // The URL Twilio signed: our configured public URL plus the query exactly as received.
    const signedUrl = webhookUrl() + new URL(c.req.url).search;
    if (!await verifyTwilioSignature(authToken, signedUrl, params, c.req.header("x-twilio-signature"))) {
      return c.json({ success: false, error: "Invalid or missing X-Twilio-Signature" }, 403);
    }
    const now = messagingClock().now();
    if (type === "incoming") {
      await handleIncoming(serviceDb(c), params, now);
      return c.body(EMPTY_TWIML, 200, { "content-type": "text/xml" });
    }
    if (!params.get("MessageSid") && !params.get("SmsSid")) {
      return c.json({ success: false, error: "MessageSid is required" }, 400);
    }
    return c.json({ success: true, status: await applyStatusCallback(serviceDb(c), params, now) }, 200);
  },
);

export default app;
