/**
 * README "The first ten minutes", as written: a fresh `deno task start` (a new data folder, free
 * ports, no provider key in its environment), then the README's shell block run by bash with curl
 * and jq, exactly as a reader pastes it (only API points at the free port). Its output is checked
 * step by step, then the ledger and the sandbox's model calls: every job ran on the sandbox model,
 * was billed and logged.
 */
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url).pathname;
const deno = Deno.execPath();

/** The README's block between the first-ten-minutes markers, its ```sh fences removed. */
async function readmeScript(): Promise<string> {
  const readme = await Deno.readTextFile(`${root}README.md`);
  const start = readme.indexOf("<!-- first-ten-minutes:start -->");
  const end = readme.indexOf("<!-- first-ten-minutes:end -->");
  assert.ok(start > 0 && end > start, "README has the first-ten-minutes block");
  const fenced = [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(fenced.length, 1, "one sh block");
  return fenced[0];
}

/** The environment of a new user's shell: no provider key, no model settings. */
function cleanEnv(): Record<string, string> {
  const drop =
    /(_API_KEY|_AUTH_TOKEN|_SECRET_KEY|_BASE_URL|^LLM_|^OPENAI_|^ANTHROPIC_|_PASSWORD|_LOGIN)$|^SUPABASE_LOCAL_/;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) if (!drop.test(k)) env[k] = v;
  return env;
}

interface Started {
  child: Deno.ChildProcess;
  api: string;
  sandbox: string;
  logs: () => string;
}

async function startPlatform(dir: string): Promise<Started> {
  const child = new Deno.Command(deno, {
    args: ["run", "-A", "stack/main.ts", "--data-dir", dir, "--port", "0"],
    cwd: root,
    env: cleanEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  let errText = "";
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) errText += chunk;
  })();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  while (!text.includes("Press Ctrl+C")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the platform exited before serving:\n${text}\n${errText}`);
    text += value;
  }
  (async () => {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  })();
  const api = text.match(/API URL: (\S+)/)![1];
  const sandbox = text.match(/Sandbox inbox: (\S+?)\/?\s/)![1];
  return { child, api, sandbox, logs: () => `${text}\n${errText}` };
}

/** The block needs bash, curl and jq, as its README section says (.ci/run installs jq). */
async function has(tool: string): Promise<boolean> {
  return (await new Deno.Command("sh", { args: ["-c", `command -v ${tool}`] }).output()).code === 0;
}
const tools = ["bash", "curl", "jq"];
const missing = (await Promise.all(tools.map(has))).map((ok, k) => ok ? null : tools[k]).filter(Boolean);
if (missing.length) console.warn(`first_ten_minutes_test: skipped, ${missing.join(", ")} not installed`);

Deno.test({
  name: "README: the first ten minutes work as written on a fresh start with no keys",
  ignore: missing.length > 0,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "first-ten-minutes-" });
    const p = await startPlatform(dir);
    try {
      const script = await readmeScript();
      const run = await new Deno.Command("bash", {
        args: ["-euo", "pipefail", "-c", script],
        cwd: root,
        env: { ...cleanEnv(), API: p.api },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(run.stdout);
      const err = new TextDecoder().decode(run.stderr);
      const context = `--- stdout\n${out}\n--- stderr\n${err}\n--- platform\n${p.logs().slice(-4000)}`;
      assert.equal(run.code, 0, context);
      const lines = out.trim().split("\n");
      let i = 0;

      // 1. The price document.
      const doc = lines[i++].match(/^price document: ([0-9a-f-]{36})$/)?.[1];
      assert.ok(doc, context);

      // 2. The agent's stream, heartbeats left out by the README's jq.
      const chunks: Record<string, unknown>[] = [];
      while (lines[i]?.startsWith("{")) chunks.push(JSON.parse(lines[i++]));
      // Kinds in order, a run of text deltas counted once.
      const types = chunks.map((c) => c.type).filter((t, k, all) => t !== all[k - 1]);
      assert.deepEqual(types.filter((t) => t !== "status" && t !== "tool_progress"), [
        "tool_call_ids",
        "price_lookup_matches",
        "price_proposal",
        "text",
        "done",
      ], context);
      const proposal = chunks.find((c) => c.type === "price_proposal")!;
      // 60 bags take the 50+ tier of the document: 13,50 EUR per bag.
      assert.deepEqual(proposal, {
        type: "price_proposal",
        final_unit_price: 13.5,
        total: 810,
        currency: "EUR",
        source_doc_ids: [doc],
      });

      // 3. The upload ran all six stages by itself, with chunks and images.
      assert.match(lines[i++], /^job [0-9a-f-]{36}: completed$/, context);
      const chunkCount = Number(lines[i++]);
      const imageCount = Number(lines[i++]);
      assert.ok(chunkCount > 0, `chunks: ${chunkCount}`);
      assert.ok(imageCount > 0, `images: ${imageCount}`);

      // 4. Three caption variants naming the product.
      const captions = JSON.parse(lines[i++]) as string[];
      assert.equal(captions.length, 3);
      for (const c of captions) assert.match(c, /Slate Tile Anthracite/);

      // 5. A grounded answer citing a source of the catalogue.
      const rag = JSON.parse(lines[i++]);
      assert.equal(rag.found, true, context);
      assert.ok(rag.citations.length >= 1);
      assert.match(rag.answer, /frost resistant/i);

      // 6. The classification names the class its words point to.
      const classified = JSON.parse(lines[i++]);
      assert.equal(
        classified.document_type ?? classified.classification ?? classified.type,
        "price_list",
        context,
      );

      // The balance went down from the seeded 500, and each billed call left a usage row.
      const { balance } = JSON.parse(lines[i++]);
      const usage = lines.slice(i).map((l) => JSON.parse(l) as { action: string; credits_debited: number });
      const charged = usage.reduce((n, u) => n + Number(u.credits_debited), 0);
      assert.ok(balance < 500, `balance ${balance}`);
      // generate-social-content's 2 credits are an explicit-amount debit: a ledger row, no usage row.
      assert.equal(Math.round((500 - balance) * 100) / 100, Math.round((charged + 2) * 100) / 100, context);
      const actions = new Set(usage.map((u) => u.action));
      for (
        const action of [
          "kb_create_document",
          "agent_chat",
          "rag_upload_async",
          "rag_query",
          "ai_classify_document",
        ]
      ) {
        assert.ok(actions.has(action), `a usage row for ${action}: ${[...actions].join(", ")}`);
      }

      // Every job was answered by the sandbox model, and the page lists the calls with their rules.
      const calls = await (await fetch(`${p.sandbox}/_models/calls`)).json() as { rule: string }[] | {
        calls: { rule: string }[];
      };
      const list = Array.isArray(calls) ? calls : calls.calls;
      const rules = new Set(list.map((c) => c.rule));
      for (const rule of ["agent-price-lookup", "agent-tool-result", "classify", "captions", "rag-answer"]) {
        assert.ok(rules.has(rule), `a call answered by ${rule}: ${[...rules].join(", ")}`);
      }
    } finally {
      p.child.kill("SIGINT");
      await p.child.status;
      await Deno.remove(dir, { recursive: true });
    }
  },
});
