/**
 * messaging-api send-bulk at scale: `deno run -A bench/messaging.ts [--recipients 10000] [--rate 600]`.
 *
 * Starts an ephemeral local platform whose Twilio is the sandbox stand-in, a workspace with a
 * default SMS channel (max_send_rate --rate per minute, daily_quota above the run) and an opt-out
 * list holding 5 % of the recipients, then sends one send-bulk over HTTP with a user JWT (it
 * queues the bulk and answers) and runs messaging-bulk-worker over HTTP, as pg_cron would, until
 * the bulk is completed. The worker runs on a virtual clock (its waits advance the clock instead
 * of the wall), so the run takes our own time only and the pacing it achieved can be read from
 * the logs' timestamps:
 *   - the request's answer time, the worker runs it took, and the overhead per message: wall
 *     time of the runs / messages attempted, and the part of it the stand-in spent answering;
 *   - pacing: the virtual span, the achieved rate against max_send_rate, and the most attempts
 *     found in any 60-second window (must not exceed max_send_rate).
 */
import { parseArgs } from "node:util";
import { createClient } from "@supabase/supabase-js";
import { useMessagingClock, VirtualClock } from "@shared/messaging/clock.ts";
import { startEphemeralPlatform } from "../fixtures/platform.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { recipients: { type: "string", default: "10000" }, rate: { type: "string", default: "600" } },
});
const total = Number(values.recipients);
const rate = Number(values.rate);

const platform = await startEphemeralPlatform();
try {
  const tw = platform.sandbox!.get("twilio");
  tw.reset();
  tw.autoCallbacks = false;
  const { data, error } = await createClient(platform.url, platform.config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
  }).auth.signUp({ email: "bench-messaging@example.com", password: "password-123" });
  if (error || !data.session) throw new Error(`signUp failed: ${error?.message}`);
  const ws = (await platform.db.query<{ id: string }>(
    `insert into public.workspaces (name, owner_id) values ('Bench', $1) returning id`,
    [data.user!.id],
  )).rows[0].id;
  await platform.db.query(
    `insert into public.messaging_channels (workspace_id, channel_type, sender_id, is_default, daily_quota, max_send_rate)
     values ($1, 'sms', '+14155550000', true, $2, $3)`,
    [ws, total * 2, rate],
  );
  const numbers = Array.from({ length: total }, (_, i) => `+1555${String(i).padStart(7, "0")}`);
  const optedOut = numbers.filter((_, i) => i % 20 === 7); // 5 %
  await platform.db.query(
    `insert into public.messaging_optouts (workspace_id, phone_number, channel_type, source)
     select $1, unnest($2::text[]), 'sms', 'manual'`,
    [ws, optedOut],
  );

  const start = Date.parse("2026-06-01T08:00:00Z");
  useMessagingClock(new VirtualClock(start));
  const t0 = performance.now();
  const res = await fetch(`${platform.url}/functions/v1/messaging-api`, {
    method: "POST",
    headers: {
      apikey: platform.config.anonKey,
      authorization: `Bearer ${data.session.access_token}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      action: "send-bulk",
      workspaceId: ws,
      channel: "sms",
      content: "Hi {{name}}, spring sale: 10% off all tiles",
      recipients: numbers.map((to, i) => ({ to, variables: { name: `Customer ${i}` } })),
    }),
  });
  const body = await res.json();
  const answerMs = performance.now() - t0;
  if (res.status !== 200) throw new Error(`send-bulk answered ${res.status}: ${JSON.stringify(body)}`);
  const t1 = performance.now();
  let runs = 0;
  for (;;) {
    const st = await platform.db.query<{ status: string }>(
      `select status from public.messaging_bulks where id = $1`,
      [body.bulkId],
    );
    if (st.rows[0].status === "completed") break;
    const worker = await fetch(`${platform.url}/functions/v1/messaging-bulk-worker`, {
      method: "POST",
      headers: {
        apikey: platform.config.serviceRoleKey,
        authorization: `Bearer ${platform.config.serviceRoleKey}`,
      },
    });
    if (worker.status !== 200) {
      throw new Error(`the worker answered ${worker.status}: ${await worker.text()}`);
    }
    await worker.body?.cancel();
    runs++;
  }
  const wall = performance.now() - t1;
  useMessagingClock(null);
  const outcome = (await platform.db.query<{ sent: number; failed: number }>(
    `select count(*) filter (where status = 'sent')::int as sent, count(*) filter (where status = 'failed')::int as failed
       from public.messaging_bulk_recipients where bulk_id = $1`,
    [body.bulkId],
  )).rows[0];

  const times = (await platform.db.query<{ t: Date }>(
    `select created_at as t from public.messaging_logs where workspace_id = $1 order by created_at`,
    [ws],
  )).rows.map((r) => r.t.getTime());
  let worst = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 60_000) j++;
    worst = Math.max(worst, i - j + 1);
  }
  const attempts = outcome.sent + outcome.failed;
  const spanMin = (times[times.length - 1] - times[0]) / 60_000;
  const provider = tw.captures.all().filter((c) => c.direction === "in");
  const providerMs = provider.reduce((sum, c) => sum + (c.durationMs ?? 0), 0);
  console.log(
    `recipients ${body.total}: sent ${outcome.sent}, failed ${outcome.failed}, opted out ${body.optedOut}; ` +
      `send-bulk answered in ${
        answerMs.toFixed(0)
      } ms; ${runs} worker calls (the kicked run holds the bulk while it sends: calls meanwhile find nothing)`,
  );
  console.log(
    `overhead: ${wall.toFixed(0)} ms wall for the worker runs, ${
      (wall / attempts).toFixed(3)
    } ms per message ` +
      `(the stand-in's own answers: ${(providerMs / provider.length).toFixed(3)} ms each, 8 in flight)`,
  );
  // Sends are spaced 60/rate seconds apart: the ideal span of n attempts is (n - 1) / rate minutes.
  const ideal = ((attempts - 1) / rate).toFixed(2);
  console.log(
    `pacing: max_send_rate ${rate}/min; ${attempts} attempts spread over ${
      spanMin.toFixed(2)
    } virtual minutes ` +
      `(ideal ${ideal}); most in any 60 s window: ${worst}; achieved ${(attempts / spanMin).toFixed(1)}/min`,
  );
} finally {
  await platform.stop();
}
