/**
 * AI services and direct LLM actions through ai-gateway, with the scripted model stand-in
 * (answers are calls of the tool each request forces): typed outputs, malformed answers retried
 * once then a refunded 502 model_bad_output (impossible page ranges and invented ids count as
 * malformed), tenancy on documents and products, consensus with escalation
 * on critical tasks, the PDF classification path and the full pipeline, the critical-task table,
 * escalation statistics from the recorded calls, and exact balances (1 credit, PDF processing 2).
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { createTeam } from "../ai/helpers.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { DISCOVERY, sampleCatalogue } from "../helpers/catalogue_pdf.ts";
import { scriptFullRun } from "../pipeline/helpers.ts";
import {
  AI,
  billed,
  FAST,
  gateway,
  imageVerdict,
  type Json,
  llm,
  pngBase64,
  RED,
  sent,
  toolReply,
} from "./helpers.ts";

const docClass = (type: string, confidence = 0.9) =>
  toolReply("classify_document", { document_type: type, confidence, language: "en", summary: "A document." });
const review = (is_valid: boolean, confidence: number) =>
  toolReply("review_product", {
    is_valid,
    quality_score: 0.7,
    confidence,
    issues: [],
    suggestions: ["add dimensions"],
  });
const vote = (v: string) =>
  toolReply("give_verdict", { verdict: v, confidence: 0.8, reasoning: `it is ${v}` });
const boundaries = (input: Record<string, unknown>) => toolReply("report_product_boundaries", input);
const groups = (input: Record<string, unknown>) => toolReply("group_items", input);
/** The sample catalogue's products as the boundary detection answers them. */
const DISCOVERED = boundaries({
  ...DISCOVERY,
  products: DISCOVERY.products.map((x) => ({ ...x, confidence: 0.9 })),
});

async function product(p: Json, ws: string, name: string): Promise<string> {
  const r = await p.db.query(
    `insert into public.products (workspace_id, name, description, sku) values ($1, $2, 'Solid oak plank', 'OAK-1')
     returning id`,
    [ws, name],
  );
  return r.rows[0].id;
}

platformTest(
  "ai_classify_document and ai_classify_batch: typed classification, retry once, then 502",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    s.reply(docClass("price_list", 0.82));
    const one = await billed(
      p,
      t.member,
      "ai_classify_document",
      { content: "Prices 2026: oak 45 EUR/m2" },
      1,
    );
    assert.equal(one.body.data.document_type, "price_list");
    assert.equal(one.body.data.confidence, 0.82);
    assert.equal(one.body.data.language, "en");

    s.reply(docClass("brochure"), docClass("certificate"));
    const batch = await billed(p, t.member, "ai_classify_batch", {
      documents: [{ id: "a", content: "Our lovely tiles" }, {
        id: "b",
        content: "CE declaration of performance",
      }],
    }, 1);
    assert.deepEqual(batch.body.data.results.map((r: Json) => [r.id, r.document_type]), [["a", "brochure"], [
      "b",
      "certificate",
    ]]);

    // An answer outside the enum is malformed: sent back once, then a clear refunded error.
    s.reset();
    s.reply(docClass("poem"), "{not json at all");
    const bad = await billed(p, t.member, "ai_classify_document", { content: "text" }, 1, 502);
    assert.equal(bad.body.code, "model_bad_output");
    assert.equal(s.captures.requests().length, 2);
    const second = s.captures.requests()[1].body as Json;
    assert.equal(second.tool_choice.name, "classify_document");
    assert.match(JSON.stringify(second.messages.at(-1).content), /rejected: document_type/);

    await billed(p, t.member, "ai_classify_document", {}, 1, 400);
    await billed(p, t.member, "ai_classify_document", { document_id: crypto.randomUUID() }, 1, 404);
  },
);

platformTest(
  "ai_detect_boundaries and ai_group_by_product check the model's answer against the input",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    const pages = [1, 2, 3, 4].map((n) => ({ page_number: n, text: `page ${n} text` }));
    const good = boundaries({
      products: [{ name: "Slate", page_start: 3, page_end: 4, confidence: 0.9 }, {
        name: "Oak",
        page_start: 2,
        page_end: 2,
        confidence: 0.95,
      }],
      index_pages: [1],
    });
    // First answer has a range past the last page: malformed, retried; the second is used.
    s.reply(boundaries({ products: [{ name: "Oak", page_start: 2, page_end: 9, confidence: 1 }] }), good);
    const r = await billed(p, t.member, "ai_detect_boundaries", { pages }, 1);
    assert.deepEqual(r.body.data.products.map((x: Json) => [x.name, x.page_start, x.page_end]), [[
      "Oak",
      2,
      2,
    ], [
      "Slate",
      3,
      4,
    ]]);
    assert.deepEqual(r.body.data.index_pages, [1]);
    assert.equal(s.captures.requests().length, 2);
    assert.match(JSON.stringify((s.captures.requests()[1].body as Json).messages), /outside the given pages/);

    // From a PDF: the pages come from the document itself.
    s.reset();
    s.reply(DISCOVERED);
    const fromPdf = await billed(p, t.member, "ai_detect_boundaries", {
      pdf_base64: encodeBase64(await sampleCatalogue()),
    }, 1);
    assert.equal(fromPdf.body.data.page_count, 4);
    assert.match(
      JSON.stringify(s.captures.requests()[0].body),
      /Oak Floor Natur is a solid European oak plank/,
    );
    await billed(p, t.member, "ai_detect_boundaries", { pdf_base64: btoa("not a pdf") }, 1, 400);

    // Grouping by page ranges needs no model.
    s.reset();
    const items = [{ id: "c1", page_number: 2 }, { id: "c2", page_number: 3 }, { id: "c3", page_number: 4 }, {
      id: "c4",
      page_number: 1,
    }];
    const byPages = await billed(p, t.member, "ai_group_by_product", {
      items,
      products: [{ name: "Oak", page_start: 2, page_end: 2 }, { name: "Slate", page_start: 3, page_end: 4 }],
    }, 1);
    assert.equal(byPages.body.data.method, "page_range");
    assert.deepEqual(byPages.body.data.groups.map((g: Json) => g.item_ids), [["c1"], ["c2", "c3"]]);
    assert.deepEqual(byPages.body.data.ungrouped, ["c4"]);
    assert.equal(s.captures.requests().length, 0);
    // By the model: an invented id is malformed; the retry's answer is used.
    s.reply(
      groups({ groups: [{ product_name: "Oak", item_ids: ["c1", "c99"] }] }),
      groups({
        groups: [{ product_name: "Oak", item_ids: ["c1"] }, {
          product_name: "Slate",
          item_ids: ["c2", "c3"],
        }],
      }),
    );
    const byModel = await billed(p, t.member, "ai_group_by_product", { items }, 1);
    assert.equal(byModel.body.data.method, "model");
    assert.deepEqual(byModel.body.data.ungrouped, ["c4"]);
    await billed(p, t.member, "ai_group_by_product", { items: [{ id: "x" }, { id: "x" }] }, 1, 400);
  },
);

platformTest(
  "ai_validate_product reads only the caller's products and escalates low confidence",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    const mine = await product(p, t.ws, "Oak Plank");
    const theirs = await product(p, t.otherWs, "Secret Tile");
    s.reply(review(true, 0.9));
    const r = await billed(p, t.member, "ai_validate_product", { product_id: mine }, 1);
    assert.equal(r.body.data.is_valid, true);
    assert.equal(r.body.data.escalated, false);
    assert.match(JSON.stringify(s.captures.requests()[0].body), /Oak Plank/);
    // Low confidence: the validation model reviews again and decides.
    s.reset();
    s.reply(review(true, 0.3), review(false, 0.85));
    const esc = await billed(p, t.member, "ai_validate_product", { product: { name: "Mystery board" } }, 1);
    assert.equal(esc.body.data.is_valid, false);
    assert.equal(esc.body.data.escalated, true);
    assert.equal(esc.body.data.model, AI.classification_validation_model);
    // The member cannot validate (read) the outsider's product: 404, refunded, no model call.
    s.reset();
    await billed(p, t.member, "ai_validate_product", { product_id: theirs }, 1, 404);
    assert.equal(s.captures.requests().length, 0);
  },
);

platformTest("ai_consensus_validate measures agreement; a critical disagreement is escalated", async (p) => {
  const t = await createTeam(p, 20);
  const s = llm(p);
  s.reply(vote("valid"), vote("valid"));
  const agree = await billed(p, t.member, "ai_consensus_validate", {
    task_type: "material_classification",
    content: "Slate is a natural stone.",
  }, 1);
  assert.equal(agree.body.data.consensus_reached, true);
  assert.equal(agree.body.data.verdict, "valid");
  assert.equal(agree.body.data.agreement, 1);
  assert.equal(agree.body.data.answers.length, 2);

  s.reset();
  s.reply(vote("valid"), vote("invalid"), vote("valid"), vote("invalid"));
  const crit = await billed(p, t.member, "ai_consensus_validate", {
    task_type: "price_extraction",
    content: "Oak plank: 45 EUR per m2",
    workspace_id: t.ws,
  }, 1);
  const d = crit.body.data;
  assert.equal(d.is_critical, true);
  assert.equal(d.models.length, 3);
  assert.equal(d.consensus_reached, false);
  assert.ok(Math.abs(d.agreement - 2 / 3) < 1e-9);
  assert.equal(d.escalated, true);
  assert.equal(d.verdict, "invalid", "the tie-breaker decides");
  assert.deepEqual(s.captures.requests().map((x) => (x.body as Json).model), [
    sent(AI.classification_primary_model),
    sent(AI.classification_validation_model),
    sent(FAST.classification_primary_model),
    sent(AI.classification_validation_model),
  ]);

  const isCrit = await billed(p, t.member, "ai_is_critical", { task_type: "price_extraction" }, 0);
  assert.equal(isCrit.body.data.is_critical, true);
  assert.equal(isCrit.body.data.min_models, 3);
  const notCrit = await billed(p, t.member, "ai_is_critical", { task_type: "unheard_of_task" }, 0);
  assert.deepEqual([notCrit.body.data.is_critical, notCrit.body.data.known], [false, false]);
  await billed(p, t.member, "ai_is_critical", { task_type: "Bad Type!" }, 0, 400);

  // Escalation statistics come from the recorded calls: own calls, or a workspace's.
  const stats = await billed(p, t.member, "ai_escalation_stats", {}, 0);
  assert.equal(stats.body.data.total_calls, 6);
  assert.equal(stats.body.data.escalations, 1);
  assert.equal(stats.body.data.by_reason.disagreement, 1);
  assert.equal(stats.body.data.by_task_type.price_extraction.escalations, 1);
  const wsStats = await billed(p, t.owner, "ai_escalation_stats", { workspace_id: t.ws }, 0);
  assert.equal(wsStats.body.data.total_calls, 4);
  await billed(p, t.outsider, "ai_escalation_stats", { workspace_id: t.ws }, 0, 404);
  const outsider = await billed(p, t.outsider, "ai_escalation_stats", {}, 0);
  assert.equal(outsider.body.data.total_calls, 0);
});

platformTest(
  "ai_process_pdf_enhanced: the classification path (nothing stored) and the full pipeline",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    const pdf = encodeBase64(await sampleCatalogue());
    s.reply(
      docClass("product_catalog", 0.95),
      DISCOVERED,
      imageVerdict("material", 0.92),
      imageVerdict("material", 0.5),
      imageVerdict("material", 0.8),
      imageVerdict("logo", 0.97),
    );
    const r = await billed(p, t.member, "ai_process_pdf_enhanced", { pdf_base64: pdf, filename: "c.pdf" }, 2);
    const d = r.body.data;
    assert.equal(d.mode, "classify");
    assert.equal(d.document.document_type, "product_catalog");
    assert.deepEqual(d.products.map((x: Json) => x.name), ["Oak Floor Natur", "Slate Tile Anthracite"]);
    assert.deepEqual(d.images.map((x: Json) => [x.page_number, x.category, x.validated]), [
      [2, "material", false],
      [3, "material", true],
      [3, "logo", false],
    ]);
    assert.equal(d.material_images, 2);
    assert.equal(d.escalations, 1);
    const [n] =
      (await p.db.query(`select count(*)::int as n from public.ai_jobs where user_id = $1`, [t.member.id]))
        .rows as Json[];
    assert.equal(n.n, 0, "the classification path stores nothing");

    // mode full runs the real pipeline (six stages) and answers the completed job.
    s.reset();
    scriptFullRun(s);
    const full = await billed(p, t.member, "ai_process_pdf_enhanced", { pdf_base64: pdf, mode: "full" }, 2);
    assert.equal(full.body.data.job.status, "completed");
    assert.equal(full.body.data.job.progress, 100);
    // Garbage from the model twice in the classification path: refunded 502.
    s.reset();
    s.reply("garbage", "more garbage");
    await billed(p, t.member, "ai_process_pdf_enhanced", { pdf_base64: pdf }, 2, 502);
    await billed(p, t.member, "ai_process_pdf_enhanced", { pdf_base64: btoa("%PDX nope") }, 2, 400);
  },
);

platformTest(
  "direct LLM actions: anthropic_validate_image, anthropic_enrich_product, anthropic_test",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    s.reply(toolReply("validate_image", {
      is_valid: true,
      matches_expectation: false,
      category: "material",
      confidence: 0.77,
      reasoning: "red surface, not oak",
    }));
    const v = await billed(p, t.member, "anthropic_validate_image", {
      image_base64: await pngBase64(RED),
      expected_material: "oak",
    }, 1);
    assert.equal(v.body.data.matches_expectation, false);
    assert.equal(v.body.data.model, AI.classification_validation_model);
    const ssrf = await billed(
      p,
      t.member,
      "anthropic_validate_image",
      { image_url: "http://127.0.0.1:1/x.png" },
      1,
      400,
    );
    assert.equal(ssrf.body.code, "unsafe_url");

    const mine = await product(p, t.ws, "Oak Plank");
    s.reply(toolReply("enrich_product", {
      description: "A solid oak plank.",
      materials: ["oak"],
      colors: ["natural"],
      finishes: ["oiled"],
      applications: ["flooring"],
      tags: ["wood"],
      seo_title: "Oak Plank",
      seo_description: "Solid oak plank flooring.",
    }));
    const e = await billed(p, t.member, "anthropic_enrich_product", { product_id: mine }, 1);
    assert.deepEqual(e.body.data.enrichment.materials, ["oak"]);
    const [row] = (await p.db.query(`select description from public.products where id = $1`, [mine]))
      .rows as Json[];
    assert.equal(row.description, "Solid oak plank", "enrichment writes nothing");
    await billed(p, t.outsider, "anthropic_enrich_product", { product_id: mine }, 1, 404);
    s.reply(toolReply("enrich_product", {}), "[]");
    const badEnrich = await billed(
      p,
      t.member,
      "anthropic_enrich_product",
      { product: { name: "X" } },
      1,
      502,
    );
    assert.equal(badEnrich.body.code, "model_bad_output");

    s.reset();
    s.reply("OK");
    const test = await billed(p, t.member, "anthropic_test", {}, 1);
    assert.equal(test.body.data.ok, true);
    assert.equal(test.body.data.reply, "OK");
    assert.ok(test.body.data.usage.input_tokens > 0);
    s.failNext(401, { message: "invalid x-api-key" });
    const down = await billed(p, t.member, "anthropic_test", { prompt: "ping" }, 1, 502);
    assert.equal(down.body.code, "model_unavailable");
    assert.match(down.body.error, /HTTP 401/);
    assert.equal(down.body.details.provider_message, "invalid x-api-key");
    assert.ok(!JSON.stringify(down.body).includes("sk-ant-sandbox"), "no key in errors");

    const h = await billed(p, t.member, "ai_services_health", {}, 0);
    assert.equal(h.body.data.status, "healthy");
    assert.equal(h.body.data.llm.configured, true);
    assert.ok(h.body.data.critical_task_types.includes("product_validation"));
  },
);

platformTest("no images_*, embeddings_*, ai_* or anthropic_* action answers 501", async (p) => {
  const t = await createTeam(p, 0);
  const { GATEWAY_ACTIONS } = await import("../../packages/shared/gateway/actions.ts");
  const names = Object.keys(GATEWAY_ACTIONS).filter((n) => /^(images_|embeddings_|ai_|anthropic_)/.test(n));
  assert.equal(names.length, 22);
  for (const name of names) {
    const r = await gateway(p, t.member.accessToken, name, { image_id: crypto.randomUUID(), task_type: "x" });
    assert.notEqual(r.status, 501, `${name}: ${JSON.stringify(r.body)}`);
  }
});
