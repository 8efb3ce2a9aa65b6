/**
 * POST /functions/v1/messaging-bulk-worker: drains the `messaging_bulk` queue (send-bulk's
 * bulks) for at most ~50 s, paced per channel (packages/shared/messaging/bulk.ts). Called by
 * pg_cron every minute and kicked by send-bulk, both through pg_net with the service-role key
 * from Vault (migration 20260221011200_messaging_bulk_queue.sql); anyone else is refused (anon
 * 401, users 403). Overlapping runs are safe: each bulk is leased to one run at a time and each
 * recipient is claimed in Postgres before its send. Answer {success, slices: [{bulkId, sent,
 * failed, adopted, requeued, completed}]}.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { serviceDb, serviceRoleOnly } from "@shared/auth/context.ts";
import {
  messagingClock,
  type MessagingProvider,
  runBulkWorker,
  twilioProvider,
  webhookUrl,
} from "@shared/messaging/mod.ts";

const app = createFunctionApp("messaging-bulk-worker");
app.use("*", serviceRoleOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Messaging"],
    summary: "Send the queued bulks' next messages, paced per channel",
    responses: { ...okJson("{success, slices}"), ...errorResponses },
  }),
  async (c) => {
    let provider: MessagingProvider | null = null;
    const report = await runBulkWorker({
      service: serviceDb(c),
      provider: () => provider ??= twilioProvider(),
      clock: messagingClock(),
      statusCallbackUrl: `${webhookUrl()}?type=status`,
    });
    return c.json({ success: true, ...report }, 200);
  },
);

export default app;
