/**
 * The functions router enforces the Edge Runtime's limits (stack/functions/limits.ts), in both
 * of its modes: in-process (test platforms) and one Worker per function (`deno task start`).
 * The limits are configured short here; the functions are test-only ones in edge_fixtures/.
 *
 * - past the response deadline the client gets the runtime's 504 and the log names the
 *   function and the request id;
 * - EdgeRuntime.waitUntil: the response goes out at once, work within the wall clock finishes,
 *   work past it is ended (the Worker terminated; in-process no longer awaited) and logged;
 * - an isolate comes and goes: after recycle() a function's module is loaded afresh and a real
 *   function answers the same, its state being in Postgres.
 */
import assert from "node:assert/strict";
import { createFunctionsRouter, type FunctionsRouter } from "../../stack/functions/router.ts";
import type { EdgeLimits } from "../../stack/functions/limits.ts";
import { createUser, setPlatformRole } from "../helpers/platform.ts";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import { pathExists } from "../../stack/platform.ts";

const FIXTURES = new URL("./edge_fixtures", import.meta.url).pathname;
const MODES = [{ mode: "in-process", hotReload: false }, { mode: "Worker", hotReload: true }] as const;
const TIMEOUT_BODY = `{\n  "message":"The upstream server is timing out"\n}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function fixtureRouter(hotReload: boolean, limits: Partial<EdgeLimits>) {
  const logs: string[] = [];
  const router = await createFunctionsRouter({
    rootDir: FIXTURES,
    jwtSecret: "s".repeat(40),
    hotReload,
    limits,
    log: (l) => logs.push(l),
  });
  /** Calls `/functions/v1<path>` as the gateway would, with a fresh request id. */
  const call = async (path: string) => {
    const id = crypto.randomUUID();
    const req = new Request(`http://x/functions/v1${path}`, { headers: { "x-request-id": id } });
    const t0 = performance.now();
    const res = await router(req, new URL(`http://x${path}`).pathname);
    return { id, res, ms: performance.now() - t0 };
  };
  return { router, logs, call };
}

/** A first call boots the function (a Worker's boot is outside the limits' clocks anyway). */
async function warm(call: (path: string) => Promise<{ res: Response }>, path: string) {
  const { res } = await call(path);
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function eventually(what: string, check: () => boolean | Promise<boolean>, withinMs = 3000) {
  const end = performance.now() + withinMs;
  while (performance.now() < end) {
    if (await check()) return;
    await sleep(25);
  }
  assert.fail(`not within ${withinMs} ms: ${what}`);
}

const exists = pathExists;

for (const { mode, hotReload } of MODES) {
  Deno.test(`${mode}: no response by the deadline -> the runtime's 504, logged with function and request id`, async () => {
    const { router, logs, call } = await fixtureRouter(hotReload, {
      responseTimeoutMs: 400,
      wallClockMs: 5_000,
    });
    try {
      // Warm (a Worker boots on first use), so the deadline below measures the function alone.
      await warm(call, "/hold?ms=0");
      const late = await call("/hold?ms=1200");
      assert.equal(late.res.status, 504);
      assert.equal(late.res.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(await late.res.text(), TIMEOUT_BODY);
      assert.ok(late.ms >= 390 && late.ms < 1100, `answered after ${late.ms} ms`);
      assert.ok(
        logs.some((l) =>
          l.startsWith(`functions: hold sent no response within 400 ms (request ${late.id}); answered 504`)
        ),
        logs.join("\n"),
      );

      const inTime = await call("/hold?ms=50");
      assert.equal(inTime.res.status, 200);
      assert.deepEqual(await inTime.res.json(), { held: 50 });
      await sleep(900); // the held handler runs on (hosted too) until it answers into the void
    } finally {
      await router.close();
    }
  });

  Deno.test(`${mode}: EdgeRuntime.waitUntil answers at once, keeps work to the wall clock, ends and logs it after`, async () => {
    const dir = await Deno.makeTempDir();
    const { router, logs, call } = await fixtureRouter(hotReload, {
      responseTimeoutMs: 5_000,
      wallClockMs: 1_200,
    });
    try {
      const quick = await call(`/background?ms=500&mark=${dir}/quick`);
      assert.equal(quick.res.status, 202);
      assert.deepEqual(await quick.res.json(), { accepted: true });
      assert.equal(await exists(`${dir}/quick`), false, "the response came before the background work ended");
      await eventually("the quick background work finishes", () => exists(`${dir}/quick`));

      const long = await call(`/background?ms=3000&mark=${dir}/long`);
      assert.equal(long.res.status, 202);
      await long.res.body?.cancel();
      const line = `functions: background ran past its wall clock of 1200 ms (request ${long.id})`;
      await eventually("the wall clock line", () => logs.some((l) => l.startsWith(line)));
      assert.ok(!logs.some((l) => l.includes(`request ${quick.id}`)), logs.join("\n"));
      await sleep(2_000);
      if (hotReload) {
        assert.ok(
          logs.some((l) => l.startsWith(line) && l.endsWith("its Worker is terminated")),
          logs.join("\n"),
        );
        assert.equal(await exists(`${dir}/long`), false, "the terminated Worker never finished the work");
        // The function is served again by a fresh Worker.
        const after = await call(`/background?ms=0&mark=${dir}/after`);
        assert.equal(after.res.status, 202);
        await after.res.body?.cancel();
        await eventually("the fresh Worker's work finishes", () => exists(`${dir}/after`));
      } else {
        // One process cannot stop a promise: the router stops awaiting it and says so.
        assert.ok(logs.some((l) => l.startsWith(line) && l.includes("no longer awaited")), logs.join("\n"));
        await eventually("the in-process promise settles on its own", () => exists(`${dir}/long`));
      }
    } finally {
      await router.close();
      await Deno.remove(dir, { recursive: true });
    }
  });

  Deno.test(`${mode}: an isolate comes and goes: module memory starts afresh after recycle()`, async () => {
    const { router, call } = await fixtureRouter(hotReload, {});
    try {
      const served = async () => (await (await call("/counter")).res.json()).served;
      assert.equal(await served(), 1);
      assert.equal(await served(), 2);
      router.recycle("counter");
      assert.equal(await served(), 1, "the new isolate does not see the old one's module memory");
    } finally {
      await router.close();
    }
  });
}

Deno.test("Worker: a request its wall clock ends gets the runtime's 546 WORKER_LIMIT", async () => {
  const { router, logs, call } = await fixtureRouter(true, { responseTimeoutMs: 5_000, wallClockMs: 500 });
  try {
    await warm(call, "/hold?ms=0");
    const cut = await call("/hold?ms=2000");
    assert.equal(cut.res.status, 546);
    assert.deepEqual(await cut.res.json(), {
      code: "WORKER_LIMIT",
      message: "Worker failed to respond due to a resource limit (please check logs)",
    });
    assert.ok(cut.ms < 1500, `answered after ${cut.ms} ms`);
    assert.ok(
      logs.some((l) => l.startsWith(`functions: hold ran past its wall clock of 500 ms (request ${cut.id})`)),
      logs.join("\n"),
    );
  } finally {
    await router.close();
  }
});

Deno.test("Worker: a request that blocks the event loop past the CPU threshold is warned about", async () => {
  const { router, logs, call } = await fixtureRouter(true, { cpuWarnMs: 150 });
  try {
    const idle = await call("/busy?ms=0");
    assert.equal(idle.res.status, 200);
    await idle.res.body?.cancel();
    const hot = await call("/busy?ms=400");
    assert.equal(hot.res.status, 200);
    await hot.res.body?.cancel();
    const warning = new RegExp(
      `^functions: WARNING busy kept its worker busy (\\d+) ms \\(request ${hot.id}\\); ` +
        `the Edge Runtime allows 150 ms of CPU per request$`,
    );
    await eventually("the CPU warning", () => logs.some((l) => warning.test(l)));
    const ms = Number(warning.exec(logs.find((l) => warning.test(l))!)![1]);
    assert.ok(ms >= 350 && ms < 1500, `measured ${ms} ms`);
    assert.ok(!logs.some((l) => l.includes(idle.id)), logs.join("\n"));
  } finally {
    await router.close();
  }
});

Deno.test("a real function answers the same from a new isolate (its state is in Postgres), in both modes", async () => {
  const p = await startEphemeralPlatform();
  const routers: FunctionsRouter[] = [];
  try {
    const manager = await createUser(p, "isolate-mgr");
    await setPlatformRole(p, manager.id, "manager");
    for (const { mode, hotReload } of MODES) {
      const router = await createFunctionsRouter({
        rootDir: p.config.rootDir,
        jwtSecret: p.config.jwtSecret,
        env: p.env,
        functions: p.project.functions,
        hotReload,
        log: p.log,
      });
      routers.push(router);
      p.gateway.mount(`/isolates-${hotReload ? "w" : "p"}/v1`, router, { cors: false });
      const call = async (path: string, init: RequestInit = {}) => {
        const r = await fetch(`${p.url}/isolates-${hotReload ? "w" : "p"}/v1/crm-companies-api${path}`, {
          ...init,
          headers: {
            apikey: p.config.anonKey,
            authorization: `Bearer ${manager.accessToken}`,
            "content-type": "application/json",
          },
        });
        return { status: r.status, body: await r.json() };
      };
      const created = await call("", {
        method: "POST",
        body: JSON.stringify({ name: `Isolate ${mode}`, city: "Modena" }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const first = await call(`/${created.body.data.id}`);
      router.recycle("crm-companies-api");
      const second = await call(`/${created.body.data.id}`);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(second.status, 200, `${mode}: ${JSON.stringify(second.body)}`);
      assert.deepEqual(second.body, first.body, mode);
      assert.equal(second.body.data.name, `Isolate ${mode}`);
    }
  } finally {
    for (const r of routers) await r.close();
    await p.stop();
  }
});
