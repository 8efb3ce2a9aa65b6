/**
 * `deno task start` / `sql` / `status` / `reset` as processes (stack/main.ts, stack/running.ts):
 * two platforms side by side each found by its data folder, reset refused while one runs (data
 * intact), and a busy port named with the flag that changes it. The data folders start empty: a
 * platform starts a new one as a copy of the migrated template, so no process spends its start
 * applying every migration (migrate_test.ts's subject, not this file's).
 */
import assert from "node:assert/strict";

const deno = Deno.execPath();
const root = new URL("../..", import.meta.url).pathname;

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(deno, {
    args: ["run", "-A", ...args],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

interface Started {
  child: Deno.ChildProcess;
  url: string;
  /** The status block as printed. */
  text: string;
  stopped: Promise<Deno.CommandStatus>;
}

/** Spawns `deno run -A stack/main.ts --data-dir <dir> --port 0` and waits for its status block. */
async function start(dir: string): Promise<Started> {
  const child = new Deno.Command(deno, {
    args: ["run", "-A", "stack/main.ts", "--data-dir", dir, "--port", "0"],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("Press Ctrl+C")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`platform for ${dir} exited before serving:\n${text}`);
    text += value;
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  const url = text.match(/API URL: (\S+)/)![1];
  return { child, url, text, stopped: child.status };
}

Deno.test("two platforms side by side: sql and status find their own; reset refuses while running", async () => {
  const base = await Deno.makeTempDir();
  const [a, b] = [`${base}/a`, `${base}/b`];
  const [pa, pb] = await Promise.all([start(a), start(b)]);
  try {
    assert.notEqual(pa.url, pb.url);
    for (const [dir, mark] of [[a, "A"], [b, "B"]]) {
      const r = await run([
        "stack/sql.ts",
        "--data-dir",
        dir,
        `create table public.h13_mark as select '${mark}' as v`,
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    for (const [dir, p, mark] of [[a, pa, "A"], [b, pb, "B"]] as const) {
      const q = await run(["stack/sql.ts", "--data-dir", dir, "select v from public.h13_mark"]);
      assert.equal(q.code, 0, q.stderr);
      assert.match(q.stdout, new RegExp(`"${mark}"`), `${dir} reads its own database`);
      const s = await run(["stack/status.ts", "--data-dir", dir]);
      assert.equal(s.code, 0, s.stderr);
      assert.match(s.stdout, new RegExp(`API URL: ${p.url}\\n`));
    }
    const reset = await run(["stack/main.ts", "--data-dir", a, "--reset", "--no-serve"]);
    assert.equal(reset.code, 1);
    assert.match(
      reset.stderr,
      /deno task reset: the platform for .* is running \(pid \d+, http:\/\/127\.0\.0\.1:\d+\)/,
    );
    const still = await run(["stack/sql.ts", "--data-dir", a, "select v from public.h13_mark"]);
    assert.match(still.stdout, /"A"/, "the data survived the refused reset");
  } finally {
    pa.child.kill("SIGTERM");
    pb.child.kill("SIGTERM");
    await Promise.all([pa.stopped, pb.stopped]);
  }
  const gone = await run(["stack/status.ts", "--data-dir", a]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /no local platform is running for /);
  const ports = JSON.parse(await Deno.readTextFile(`${a}/ports.json`));
  assert.equal(`http://127.0.0.1:${ports.api}`, pa.url, "--port 0's ports are kept in the data folder");
  const stripeUrl = (t: string) => t.match(/Stripe API \(stand-in\): (\S+)/)?.[1];
  assert.equal(stripeUrl(pa.text), `http://127.0.0.1:${ports.stripe}`, "the Stripe stand-in's port too");
  // A restart with --port 0 gets the same ports back while they are free: stored URLs (checkout
  // links, Vault's project_url) keep working.
  const again = await start(a);
  try {
    assert.equal(again.url, pa.url);
    assert.equal(stripeUrl(again.text), stripeUrl(pa.text));
  } finally {
    again.child.kill("SIGTERM");
    await again.stopped;
  }
  await Deno.remove(base, { recursive: true });
});

Deno.test("a busy port: a message naming the port and --port, exit code 1, no stack trace", async () => {
  const base = await Deno.makeTempDir();
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (busy.addr as Deno.NetAddr).port;
    const r = await run(["stack/main.ts", "--data-dir", `${base}/d`, "--port", String(port)]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`port ${port} \\(API gateway\\) is already in use.*--port <n>`));
    assert.doesNotMatch(r.stderr, /Uncaught|AddrInUse/);
  } finally {
    busy.close();
    await Deno.remove(base, { recursive: true });
  }
});
