/**
 * The background workers and the sandbox stop with the platform: with Deno's op and resource
 * sanitizers on, a platform with a busy cron job and a request in flight must stop leaving no
 * timer, listener or server behind.
 */
import assert from "node:assert/strict";
import { startPlatform } from "../../stack/platform.ts";
import { startTarget, waitFor } from "./helpers.ts";

Deno.test("platform.stop() stops the cron and net workers and the sandbox cleanly", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const target = startTarget((r) =>
    r.path === "/hang" ? released.then(() => new Response("late")) : new Response("ok")
  );
  const p = await startPlatform({ ephemeral: true, apiPort: 0, bcryptCost: 4 });
  let stopped = false;
  try {
    assert.ok(p.sandbox);
    await p.db.query(
      `select cron.schedule('lifecycle', '1 second', $$ select net.http_get('${target.url}/beat') $$)`,
    );
    await p.db.query(`select net.http_get($1, timeout_milliseconds := 60000)`, [`${target.url}/hang`]);
    await waitFor(
      "a beat and the hanging request",
      () => target.to("/beat").length > 0 && target.to("/hang").length > 0,
    );
    const t0 = performance.now();
    await p.stop();
    stopped = true;
    assert.ok(performance.now() - t0 < 5000, "stop does not wait for the hanging request's timeout");
    const beats = target.to("/beat").length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(target.to("/beat").length, beats, "no run after stop");
  } finally {
    if (!stopped) await p.stop();
    release();
    await target.close();
  }
});
