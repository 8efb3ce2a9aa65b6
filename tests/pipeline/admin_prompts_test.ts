/**
 * The Admin prompts group through ai-gateway and the backend: platform admins list, read,
 * update (each update a new version, the old one in the history with who/when/why) and test
 * the pipeline's prompts; a normal user gets 403 and changes nothing; the seeds are the
 * pipeline's code defaults; and an update changes what the pipeline sends to the model (the
 * stand-in's captured request), a prompt test sends the prompt with the sample input and
 * answers the output, model, tokens and latency.
 */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { gateway, grant } from "../ai/helpers.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { PROMPT_DEFAULTS } from "../../services/ai-backend/mod.ts";
import { get, type Json, llm, processSample, q } from "./helpers.ts";

const messagesSent = (p: Parameters<typeof llm>[0]) =>
  p.sandbox!.get("anthropic").captures.requests().filter((r) => r.path.endsWith("/messages"))
    .map((r) => r.body as Json);

platformTest("prompts: admins only; list, get, versioned update with history, and the seeds", async (p) => {
  const user = await createUser(p, "prompts-user");
  const admin = await createUser(p, "prompts-admin");
  await setPlatformRole(p, admin.id, "admin");
  const u = user.accessToken, a = admin.accessToken;

  // A normal user: 403 everywhere, through the gateway and directly, and nothing changes.
  for (
    const [action, payload] of [
      ["admin_prompts_list", {}],
      ["admin_prompts_get", { stage: "extract", category: "product_discovery" }],
      ["admin_prompts_update", {
        stage: "extract",
        category: "product_discovery",
        prompt_text: "pwned",
        change_reason: "x",
      }],
      ["admin_prompts_test", { prompt_text: "x", input: "y" }],
    ] as const
  ) {
    const r = await gateway(p, u, action, payload);
    assert.equal(r.status, 403, `${action}: ${JSON.stringify(r.body)}`);
  }
  const direct = await fetch(`${aiBackendOf(p).url}/api/admin/prompts/extract/product_discovery`, {
    method: "PUT",
    headers: { authorization: `Bearer ${u}`, "content-type": "application/json" },
    body: JSON.stringify({ prompt_text: "pwned", change_reason: "x" }),
  });
  assert.equal(direct.status, 403);
  await direct.body?.cancel();
  assert.equal(
    (await get(p, u, "/api/admin/prompt-history/00000000-0000-0000-0000-000000000000")).status,
    403,
  );
  // RLS: not even a read through /rest/v1.
  const rest = await fetch(`${p.url}/rest/v1/ai_prompts?select=*`, {
    headers: { apikey: p.config.anonKey, authorization: `Bearer ${u}` },
  });
  assert.deepEqual(await rest.json(), []);

  // The seeds are exactly the prompts the pipeline's code sends: the four the stages send through
  // forced tool calls were replaced once by 20260221006100 (no "answer with JSON" any more), the
  // seed kept in their history.
  const list = await gateway(p, a, "admin_prompts_list", {});
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.equal(list.body.data.total, PROMPT_DEFAULTS.length);
  for (const d of PROMPT_DEFAULTS) {
    const row = list.body.data.prompts.find((x: Json) => x.stage === d.stage && x.category === d.category);
    assert.ok(row, `${d.stage}/${d.category} is seeded`);
    assert.equal(row.prompt_text, d.prompt_text, `${d.stage}/${d.category} seed = code default`);
    assert.doesNotMatch(row.prompt_text, /JSON/);
    assert.deepEqual([row.version, row.is_default, row.updated_by], [d.stage === "ocr" ? 1 : 2, true, null]);
  }
  const discoveryRow = list.body.data.prompts.find((x: Json) => x.category === "product_discovery");
  const seeded = await gateway(p, a, "admin_prompts_history", { prompt_id: discoveryRow.id });
  assert.deepEqual(
    seeded.body.data.history.map((x: Json) => [x.version, x.change_reason, x.replaced_by]),
    [[1, "seeded from the pipeline's defaults", null]],
  );
  assert.match(seeded.body.data.history[0].prompt_text, /Answer with one JSON object/);
  const classify = await gateway(p, a, "admin_prompts_list", {});
  assert.ok(classify.body.data.prompts.some((x: Json) => x.category === "image_validation"));
  const byStage = await get(p, a, "/api/admin/prompts?stage=classify-images");
  assert.deepEqual(byStage.body.prompts.map((x: Json) => x.category).sort(), [
    "image_classification",
    "image_validation",
  ]);

  const one = await gateway(p, a, "admin_prompts_get", {
    stage: "extract-metadata",
    category: "product_metadata",
  });
  assert.equal(one.status, 200);
  assert.equal(one.body.data.name, "Product metadata extraction");
  const ocrId = list.body.data.prompts.find((x: Json) => x.category === "image_text").id;
  assert.equal(
    (await gateway(p, a, "admin_prompts_get", { stage: "extract", category: "nope" })).status,
    404,
  );

  // Bad input names the problem.
  const noReason = await gateway(p, a, "admin_prompts_update", {
    stage: "extract-metadata",
    category: "product_metadata",
    prompt_text: "x",
  });
  assert.equal(noReason.status, 400);
  assert.match(JSON.stringify(noReason.body), /change_reason/);
  const unknown = await gateway(p, a, "admin_prompts_update", {
    stage: "extract",
    category: "nope",
    prompt_text: "x",
    change_reason: "y",
  });
  assert.equal(unknown.status, 404);

  // Two updates: versions 2 and 3, the replaced versions in the history with who/when/why.
  const v2 = await gateway(p, a, "admin_prompts_update", {
    stage: "ocr",
    category: "image_text",
    prompt_text: "Answer the attributes as JSON lists. Version two.",
    change_reason: "shorter prompt",
  });
  assert.equal(v2.status, 200, JSON.stringify(v2.body));
  assert.deepEqual(
    [
      v2.body.data.changed,
      v2.body.data.previous_version,
      v2.body.data.version,
      v2.body.data.is_default,
    ],
    [true, 1, 2, false],
  );
  assert.equal(v2.body.data.updated_by, admin.id);
  const same = await gateway(p, a, "admin_prompts_update", {
    stage: "ocr",
    category: "image_text",
    prompt_text: "Answer the attributes as JSON lists. Version two.",
    change_reason: "again",
  });
  assert.deepEqual(
    [same.body.data.changed, same.body.data.version],
    [false, 2],
    "no-op makes no version",
  );
  const v3 = await gateway(p, a, "admin_prompts_update", {
    stage: "ocr",
    category: "image_text",
    prompt_text: "You list product attributes (dimensions, colors, materials...) as one JSON object. V3.",
    change_reason: "name the lists",
  });
  assert.equal(v3.body.data.version, 3);

  const history = await gateway(p, a, "admin_prompts_history", { prompt_id: ocrId });
  assert.equal(history.status, 200, JSON.stringify(history.body));
  const h = history.body.data;
  assert.equal(h.current_version, 3);
  assert.deepEqual(h.history.map((x: Json) => x.version), [2, 1]);
  const [h2, h1] = h.history;
  assert.equal(h1.prompt_text, PROMPT_DEFAULTS.find((d) => d.category === "image_text")!.prompt_text);
  assert.deepEqual([h1.created_by, h1.change_reason, h1.replaced_by], [
    null,
    "seeded from the pipeline's defaults",
    admin.id,
  ]);
  assert.deepEqual([h2.prompt_text, h2.created_by, h2.change_reason, h2.replaced_by], [
    "Answer the attributes as JSON lists. Version two.",
    admin.id,
    "shorter prompt",
    admin.id,
  ]);
  assert.ok(Date.parse(h2.replaced_at) >= Date.parse(h2.created_at));
  assert.equal(
    (await gateway(p, a, "admin_prompts_history", { prompt_id: crypto.randomUUID() })).status,
    404,
  );
});

platformTest("an updated prompt is what the pipeline sends; prompt tests run it on the model", async (p) => {
  const admin = await createUser(p, "prompts-run-admin");
  await setPlatformRole(p, admin.id, "admin");
  const a = admin.accessToken;
  const newText = "Metadata prompt from the admin table: answer one JSON object of attribute lists.";
  const up = await gateway(p, a, "admin_prompts_update", {
    stage: "extract-metadata",
    category: "product_metadata",
    prompt_text: newText,
    change_reason: "test the pipeline reads it",
  });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  const version = up.body.data.version;

  const user = await createUser(p, "prompts-run-user");
  await grant(p, user.id, 10);
  const job = await processSample(p, user.accessToken);
  assert.equal(job.status, "completed");
  const sent = messagesSent(p);
  const discovery = PROMPT_DEFAULTS.find((d) => d.category === "product_discovery")!.prompt_text;
  assert.equal(sent[0].system, discovery, "unchanged prompts are the seeded ones");
  const metadataCalls = sent.filter((b) =>
    String(b.messages[0].content[0].text ?? "").startsWith("Product: ")
  );
  assert.equal(metadataCalls.length, 2);
  for (const b of metadataCalls) assert.equal(b.system, newText, "the updated prompt is sent");

  // A stored prompt tested on sample input: the stand-in sees the prompt and the input.
  const s = llm(p);
  s.reply('{"colors": ["oak"]}');
  const t = await gateway(p, a, "admin_prompts_test", {
    stage: "extract-metadata",
    category: "product_metadata",
    input: "Product: Sample Oak\n\nA brushed oak plank, 20 mm.",
  });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const r = t.body.data;
  assert.equal(r.output, '{"colors": ["oak"]}');
  assert.equal(r.model, "claude-sonnet-4-6");
  assert.ok(r.input_tokens > 0 && r.output_tokens > 0);
  assert.equal(typeof r.latency_ms, "number");
  assert.deepEqual([r.prompt.source, r.prompt.version], ["stored", version]);
  const [req] = messagesSent(p);
  assert.equal(req.system, newText);
  assert.equal(req.messages[0].content[0].text, "Product: Sample Oak\n\nA brushed oak plank, 20 mm.");
  assert.equal(req.max_tokens, 4096);

  // A draft given in the request, with another model.
  s.reply("draft answer");
  const draft = await gateway(p, a, "admin_prompts_test", {
    prompt_text: "Draft prompt",
    input: "hello",
    model: "claude-haiku-4-5",
    max_tokens: 64,
  });
  assert.equal(draft.status, 200);
  assert.deepEqual([draft.body.data.output, draft.body.data.model, draft.body.data.prompt.source], [
    "draft answer",
    "claude-haiku-4-5",
    "given",
  ]);
  // A model failure (the provider answers 529 twice: the layer's retry fails too) is the model
  // layer's 502 model_unavailable, and recorded.
  s.failNext(529, { message: "Overloaded", times: 2 });
  const failed = await gateway(p, a, "admin_prompts_test", { prompt_text: "x", input: "y" });
  assert.equal(failed.status, 502, JSON.stringify(failed.body));
  assert.equal(failed.body.code, "model_unavailable");
  assert.match(failed.body.error, /Prompt test: the model provider answered HTTP 529/);
  assert.equal(s.pendingFaults, 0);
  const bad = await gateway(p, a, "admin_prompts_test", { input: "y" });
  assert.equal(bad.status, 400);

  const tests = await q(
    p,
    `select ok, model, prompt_version from public.ai_prompt_tests order by created_at`,
  );
  assert.deepEqual(tests.map((x) => [x.ok, x.model]), [
    [true, "claude-sonnet-4-6"],
    [true, "claude-haiku-4-5"],
    [false, "claude-sonnet-4-6"],
  ]);
  // Testing writes nothing else: the prompt keeps its version.
  const [row] = await q(
    p,
    `select version from public.ai_prompts where stage = 'extract-metadata' and category = 'product_metadata'`,
  );
  assert.equal(row.version, version);
});
