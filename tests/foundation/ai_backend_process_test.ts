/**
 * The AI backend's production start command (services/ai-backend/Dockerfile's CMD, run as
 * `deno <CMD>`, the way the denoland/deno image's entrypoint runs it) serves the gateway from a
 * process of its own: configured only through its environment (SUPABASE_URL and the keys of the
 * platform it is pointed at, PORT, HOST), with ai-gateway sent to it through AI_BACKEND_URL, as
 * in production. Proves the permissions of the CMD suffice for a database action, a billed
 * action and image decoding (sharp), and that the gateway used this process: once it is killed
 * the same call fails.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { balance, createTeam, gateway } from "../ai/helpers.ts";
import { pngBase64, RED } from "../ai_services/helpers.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The Dockerfile's FROM image and CMD arguments. */
async function dockerRecipe(): Promise<{ image: string; cmd: string[] }> {
  const text = await Deno.readTextFile(`${ROOT}/services/ai-backend/Dockerfile`);
  const image = text.match(/^FROM\s+(\S+)/m)?.[1];
  const cmd = text.match(/^CMD\s+(\[.*\])\s*$/m)?.[1];
  if (!image || !cmd) throw new Error("services/ai-backend/Dockerfile: no FROM or no one-line JSON CMD");
  return { image, cmd: JSON.parse(cmd) };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitHealthy(url: string, child: Deno.ChildProcess, deadlineMs: number) {
  const until = Date.now() + deadlineMs;
  let exited = false;
  child.status.then(() => exited = true);
  while (Date.now() < until) {
    if (exited) throw new Error("the AI backend process exited before serving");
    try {
      const res = await fetch(`${url}/health`);
      const body = await res.json();
      if (res.ok) return body;
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the AI backend did not answer ${url}/health within ${deadlineMs} ms`);
}

/** Kills the process unless it has exited already, and waits for it. */
async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGKILL");
  } catch (err) {
    if (!(err instanceof TypeError)) throw err; // already exited
  }
  await child.status;
}

Deno.test("the container recipe: Deno 2.9.6's official image, and a CMD that runs main.ts", async () => {
  const { image, cmd } = await dockerRecipe();
  assert.equal(image, "denoland/deno:2.9.6");
  assert.equal(cmd[0], "run");
  assert.equal(cmd.at(-1), "services/ai-backend/main.ts");
  assert.ok(!cmd.includes("-A") && !cmd.includes("--allow-all"), "permissions are named one by one");
});

platformTest("the production start command serves ai-gateway from its own process", async (p) => {
  const { cmd } = await dockerRecipe();
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const passthrough = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]
    .flatMap((n) => Deno.env.get(n) ? [[n, Deno.env.get(n)!]] : []);
  const child = new Deno.Command(Deno.execPath(), {
    args: cmd,
    cwd: ROOT,
    clearEnv: true,
    env: {
      ...Object.fromEntries(passthrough),
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      SUPABASE_URL: p.url,
      SUPABASE_ANON_KEY: p.config.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: p.config.serviceRoleKey,
      JWT_SECRET: p.config.jwtSecret,
      PORT: String(port),
      HOST: "127.0.0.1",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const previous = p.env.AI_BACKEND_URL;
  try {
    const health = await waitHealthy(url, child, 60_000);
    assert.equal(health.status, "healthy");
    assert.equal(health.service, "ai-backend");
    p.env.AI_BACKEND_URL = url;

    const t = await createTeam(p, 10);
    // A database action as the caller (RLS through the platform's /rest/v1).
    const cat = await gateway(p, t.owner.accessToken, "kb_create_category", {
      workspace_id: t.ws,
      name: "From the process",
      slug: "from-the-process",
    });
    assert.equal(cat.status, 201, JSON.stringify(cat.body));
    assert.equal(cat.body.success, true);
    const row = await p.db.query<{ workspace_id: string; name: string }>(
      `select workspace_id, name from public.kb_categories where id = $1`,
      [cat.body.data.id],
    );
    assert.deepEqual(row.rows, [{ workspace_id: t.ws, name: "From the process" }]);

    // A billed action that decodes an image (sharp): debited once, by the backend.
    const before = await balance(p, t.member.id);
    const emb = await gateway(p, t.member.accessToken, "embeddings_clip_image", {
      image_base64: await pngBase64(RED),
    });
    assert.equal(emb.status, 200, JSON.stringify(emb.body).slice(0, 400));
    assert.equal(emb.body.data.embedding.length, 768);
    assert.equal(emb.headers.get("x-credits-charged"), "0.25");
    assert.equal(before - (await balance(p, t.member.id)), 0.25);

    // The gateway was talking to this process: without it, the same call fails.
    child.kill("SIGTERM");
    await child.status;
    const gone = await gateway(p, t.owner.accessToken, "kb_list_categories", { workspace_id: t.ws });
    assert.ok(gone.status >= 500, `after the process stopped: ${gone.status} ${JSON.stringify(gone.body)}`);
  } finally {
    if (previous === undefined) delete p.env.AI_BACKEND_URL;
    else p.env.AI_BACKEND_URL = previous;
    await stop(child);
    const log = await stderr;
    if (log.trim()) console.log(`ai-backend stderr:\n${log}`);
  }
});
