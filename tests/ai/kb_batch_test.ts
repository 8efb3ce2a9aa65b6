/**
 * POST /api/kb/documents/batch (an import route beyond the spec's gateway table): up to 100
 * documents with kb_create_document's semantics each (upsert by title and category, re-embedded
 * only when the content changed, price_entries in step), all or nothing, errors naming the
 * document (`documents[i]: `), billed as kb_create_document per document and refunded on any
 * failure. Called over HTTP with user JWTs, as a client would.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { GATEWAY_ACTIONS } from "../../packages/shared/gateway/actions.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import {
  balance,
  CountingEmbeddings,
  createTeam,
  grant,
  inProcessBackend,
  ok,
  pricingCategory,
  type Team,
} from "./helpers.ts";

interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** A POST to the AI backend with a user's JWT. */
async function post(p: Platform, token: string, path: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${p.env.AI_BACKEND_URL}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const batch = (p: Platform, token: string, ws: string, documents: unknown[]) =>
  post(p, token, "/api/kb/documents/batch", { workspace_id: ws, documents });

/** kb_create_document's price per document, from gateway_action_costs (its cost key). */
async function docCost(p: Platform): Promise<number> {
  const r = await p.db.query<{ credits: string }>(
    `select credits from public.gateway_action_costs where cost_key = $1`,
    [GATEWAY_ACTIONS.kb_create_document.cost],
  );
  return Number(r.rows[0].credits);
}

async function countTitled(p: Platform, ws: string, titles: string[]): Promise<number> {
  const r = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_docs where workspace_id = $1 and title = any($2::text[])`,
    [ws, titles],
  );
  return r.rows[0].n;
}

async function chunksOf(p: Platform, docId: string) {
  return (await p.db.query<{ id: string; has_sketch: boolean }>(
    `select id, embedding_sketch is not null as has_sketch from public.kb_doc_chunks
      where doc_id = $1 order by chunk_index`,
    [docId],
  )).rows;
}

async function priceEntriesOf(p: Platform, docId: string) {
  return (await p.db.query<
    { price_doc_type: string; content_hash: string; entries: { source: { doc_id: string } }[] }
  >(
    `select price_doc_type, content_hash, entries from public.price_entries where kb_doc_id = $1`,
    [docId],
  )).rows;
}

const PRICE_LIST = (brand: string, prefix: string, first: number) =>
  `# ${brand} price list 2026\nManufacturer: ${brand}\nAll prices in EUR, valid from 2026-01-01\n\n` +
  `| Art. No. | Description | Unit | Price |\n|---|---|---|---|\n` +
  Array.from(
    { length: 6 },
    (_, i) =>
      `| ${prefix}-${100 + i} | ${brand} Keraflex variant ${i} adhesive 25 kg | bag | ${first + i},50 |`,
  )
    .join("\n") +
  "\n";

/** Five priced documents of the Pricing category and one unpriced manual. */
function sixDocuments(pricing: string, manuals: string) {
  return [
    {
      title: "Mapei price list 2026",
      category_id: pricing,
      price_doc_type: "price_list",
      content: PRICE_LIST("Mapei", "MP", 12),
    },
    {
      title: "Ardex price list 2026",
      category_id: pricing,
      price_doc_type: "price_list",
      content: PRICE_LIST("Ardex", "AR", 20),
    },
    {
      title: "Mapei dealer discounts",
      category_id: pricing,
      price_doc_type: "discount_rule",
      content: "# Dealer discounts\n- All Mapei products 15% off for registered dealers",
    },
    {
      title: "Ardex volume discounts",
      category_id: pricing,
      price_doc_type: "discount_rule",
      content: "# Volume discounts\n- All Ardex products 8% off for registered dealers",
    },
    {
      title: "Marazzi spring promotion",
      category_id: pricing,
      price_doc_type: "promotion",
      content: "# Spring promotion\nSpring promo 10% off Marazzi Grande marble look tiles, " +
        "valid 2026-03-01 to 2026-04-30",
    },
    {
      // A comma and parentheses: the existing-rows read must still find it on the second run.
      title: "Grout guide (5 kg bags), anthracite",
      category_id: manuals,
      status: "published",
      content:
        "# Grouting\nMix the anthracite grout with 1.2 l water per 5 kg bag and use within 30 minutes.",
      metadata: { source_file: "grout.md" },
    },
  ];
}

let shared: Promise<{ t: Team; pricing: string; manuals: string; cost: number }> | null = null;

/** One team per module (owner, admin, member, viewer, outsider; 1000 credits each). */
function setup(p: Platform) {
  shared ??= (async () => {
    const t = await createTeam(p);
    const pricing = await pricingCategory(p, t);
    const manuals = (await ok(p, t.owner.accessToken, "kb_create_category", {
      workspace_id: t.ws,
      name: "Manuals",
    })).id;
    return { t, pricing, manuals, cost: await docCost(p) };
  })();
  return shared;
}

platformTest(
  "a batch writes every document with chunks, sketches and price entries; a rerun re-embeds only changes; search finds them",
  async (p) => {
    const { t, pricing, manuals, cost } = await setup(p);
    const docs = sixDocuments(pricing, manuals);
    const before = await balance(p, t.owner.id);

    const r = await batch(p, t.owner.accessToken, t.ws, docs);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body), ["documents"]);
    assert.equal(r.body.documents.length, 6);
    assert.equal(r.headers.get("x-credits-charged"), String(6 * cost));
    assert.equal(await balance(p, t.owner.id), before - 6 * cost);
    const ids: string[] = [];
    const firstChunks: string[][] = [];
    for (const [i, res] of r.body.documents.entries()) {
      assert.deepEqual(Object.keys(res).sort(), [
        "created",
        "document",
        "re_embedded",
        "unparsed_lines",
        "warnings",
      ]);
      assert.equal(res.created, true, `documents[${i}]`);
      assert.equal(res.re_embedded, true, `documents[${i}]`);
      assert.deepEqual(res.warnings, []);
      const d = res.document;
      // Input order, with exactly what was sent.
      assert.equal(d.title, docs[i].title);
      assert.equal(d.workspace_id, t.ws);
      assert.equal(d.category_id, docs[i].category_id);
      assert.equal(d.price_doc_type, docs[i].price_doc_type ?? null);
      assert.equal(d.content, docs[i].content);
      assert.equal(d.status, "published");
      assert.equal(d.source, "api");
      assert.match(d.content_hash, /^[0-9a-f]{64}$/);
      assert.ok(d.chunk_count > 0, `documents[${i}] has chunks`);
      const chunks = await chunksOf(p, d.id);
      assert.equal(chunks.length, d.chunk_count);
      assert.ok(chunks.every((c) => c.has_sketch), `documents[${i}]: every chunk has its embedding_sketch`);
      ids.push(d.id);
      firstChunks.push(chunks.map((c) => c.id));

      const entries = await priceEntriesOf(p, d.id);
      if (docs[i].price_doc_type) {
        assert.equal(entries.length, 1, `documents[${i}] has its price_entries row`);
        assert.equal(entries[0].price_doc_type, docs[i].price_doc_type);
        assert.equal(entries[0].content_hash, d.content_hash);
        assert.ok(entries[0].entries.length > 0);
        assert.ok(
          entries[0].entries.every((e) => e.source.doc_id === d.id),
          `documents[${i}]: entries name the real id, not the placeholder`,
        );
      } else {
        assert.deepEqual(entries, [], "no price entries for the unpriced document");
      }
    }
    assert.deepEqual(r.body.documents[5].document.metadata, { source_file: "grout.md" });
    assert.equal(new Set(ids).size, 6);

    // The same batch with one content changed: updated in place, only that one re-embedded.
    const entriesBefore = await priceEntriesOf(p, ids[1]);
    const again = docs.map((d) => ({ ...d }));
    again[1].content = PRICE_LIST("Ardex", "AR", 30);
    const r2 = await batch(p, t.owner.accessToken, t.ws, again);
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
    assert.deepEqual(r2.body.documents.map((d: { created: boolean }) => d.created), Array(6).fill(false));
    assert.deepEqual(
      r2.body.documents.map((d: { re_embedded: boolean }) => d.re_embedded),
      [false, true, false, false, false, false],
    );
    assert.deepEqual(r2.body.documents.map((d: { document: { id: string } }) => d.document.id), ids);
    assert.equal(r2.body.documents[1].document.content, again[1].content);
    for (const [i, id] of ids.entries()) {
      const now = (await chunksOf(p, id)).map((c) => c.id);
      if (i === 1) {
        assert.ok(now.length > 0);
        assert.equal(now.filter((c) => firstChunks[1].includes(c)).length, 0, "changed: chunks replaced");
      } else assert.deepEqual(now, firstChunks[i], `documents[${i}] unchanged: chunks kept`);
    }
    assert.equal(await countTitled(p, t.ws, docs.map((d) => d.title)), 6, "no duplicates");
    const entriesAfter = await priceEntriesOf(p, ids[1]);
    assert.equal(entriesAfter[0].content_hash, r2.body.documents[1].document.content_hash);
    assert.notEqual(entriesAfter[0].content_hash, entriesBefore[0].content_hash);
    assert.match(JSON.stringify(entriesAfter[0].entries), /3[0-5][.,]50?/);

    // search_knowledge_base finds the batch-written chunks.
    const s = await post(p, t.owner.accessToken, "/api/rag/search/knowledge-base", {
      workspace_id: t.ws,
      query: "Marazzi marble spring promo",
      category_slug: "pricing",
    });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.ok(s.body.chunks.length > 0);
    assert.equal(s.body.chunks[0].id, ids[4]);
    assert.equal(s.body.chunks[0].price_doc_type, "promotion");
    assert.equal(s.body.chunks[0].category_slug, "pricing");
    const list = await post(p, t.owner.accessToken, "/api/rag/search/knowledge-base", {
      workspace_id: t.ws,
      query: "AR-103 Ardex Keraflex variant 3",
      category_slug: "pricing",
    });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.chunks[0].id, ids[1]);
    assert.ok(
      list.body.chunks[0].content.includes(
        "| AR-103 | Ardex Keraflex variant 3 adhesive 25 kg | bag | 33,50 |",
      ),
    );
  },
);

platformTest(
  "kb_upsert_documents is all or nothing: a database refusal names the document, nothing stays",
  async (p) => {
    const { t } = await setup(p);
    const entry = (title: string, hash: string | null) => ({
      title,
      category_id: null,
      content: `${title} content`,
      content_hash: hash,
      chunks: [],
    });
    const titles = ["Atomic one", "Atomic two", "Atomic three"];
    const { data, error } = await t.owner.client.rpc("kb_upsert_documents", {
      p_workspace_id: t.ws,
      p_documents: [
        entry(titles[0], "a".repeat(64)),
        entry(titles[1], "b".repeat(64)),
        entry(titles[2], null),
      ],
    });
    assert.equal(data, null);
    assert.ok(error, "the third entry is refused");
    assert.ok(error.message.startsWith("documents[2]: "), error.message);
    assert.equal(error.code, "23502", "the not-null violation keeps its SQLSTATE");
    assert.equal(await countTitled(p, t.ws, titles), 0, "the first two were rolled back");

    // A category of another workspace at index 1: refused, and the first entry is rolled back too.
    const foreignCat = (await ok(p, t.outsider.accessToken, "kb_create_category", {
      workspace_id: t.otherWs,
      name: "Foreign",
    })).id;
    const foreign = await t.owner.client.rpc("kb_upsert_documents", {
      p_workspace_id: t.ws,
      p_documents: [entry(titles[0], "a".repeat(64)), {
        ...entry(titles[1], "b".repeat(64)),
        category_id: foreignCat,
      }],
    });
    assert.ok(foreign.error, "a category of another workspace is refused");
    assert.ok(foreign.error.message.startsWith("documents[1]: "), foreign.error.message);
    assert.equal(await countTitled(p, t.ws, titles), 0);

    // The same three, all valid, are written together.
    const good = await t.owner.client.rpc("kb_upsert_documents", {
      p_workspace_id: t.ws,
      p_documents: [
        entry(titles[0], "a".repeat(64)),
        entry(titles[1], "b".repeat(64)),
        entry(titles[2], "c".repeat(64)),
      ],
    });
    assert.equal(good.error, null, JSON.stringify(good.error));
    assert.deepEqual(good.data.map((d: { document: { title: string } }) => d.document.title), titles);
    assert.equal(await countTitled(p, t.ws, titles), 3);
  },
);

platformTest("invalid batches are 400s naming the document: nothing written, credits refunded", async (p) => {
  const { t, pricing, manuals, cost } = await setup(p);
  const plain = (title: string) => ({
    title,
    category_id: manuals,
    content: `# ${title}\nSome text about ${title}.`,
  });
  const cases: [string, unknown[], RegExp, (string | number)[]][] = [
    [
      "an invalid promotion at index 1",
      [plain("Bad promo 0"), {
        title: "Bad promo 1",
        category_id: pricing,
        price_doc_type: "promotion",
        content: "Summer promo 10% off Marazzi tiles",
      }, plain("Bad promo 2")],
      /^documents\[1\]: content is not a valid promotion: .*date/i,
      ["documents", 1, "content"],
    ],
    [
      "one title twice in one category",
      [plain("Twice"), plain("Twice")],
      /documents\.1\.title: repeats documents\[0\]/,
      ["documents", 1, "title"],
    ],
    ["no documents", [], /^Invalid request body: documents: /, ["documents"]],
    [
      "101 documents",
      Array.from({ length: 101 }, (_, i) => plain(`Many ${i}`)),
      /^Invalid request body: documents: /,
      ["documents"],
    ],
    [
      "price_doc_type outside the Pricing category",
      [plain("Misplaced 0"), {
        ...plain("Misplaced 1"),
        price_doc_type: "price_list",
        content: PRICE_LIST("Misplaced", "MX", 5),
      }],
      /^documents\[1\]: price_doc_type is only allowed on documents of the Pricing category/,
      ["documents", 1, "price_doc_type"],
    ],
  ];
  for (const [what, documents, message, path] of cases) {
    const before = await balance(p, t.owner.id);
    const r = await batch(p, t.owner.accessToken, t.ws, documents);
    assert.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, message, what);
    assert.ok(
      r.body.details.some((d: { path: unknown[] }) => JSON.stringify(d.path) === JSON.stringify(path)),
      `${what}: ${JSON.stringify(r.body.details)}`,
    );
    // Billed per document, at most 100 (the batch's limit), at least 1.
    const charged = Math.min(Math.max(documents.length, 1), 100) * cost;
    assert.deepEqual(r.body.billing, { refunded: charged }, what);
    assert.equal(r.headers.get("x-credits-refunded"), String(charged), what);
    assert.equal(await balance(p, t.owner.id), before, `${what}: refunded`);
    const titles = (documents as { title: string }[]).map((d) => d.title);
    assert.equal(await countTitled(p, t.ws, titles), 0, `${what}: nothing written`);
  }
});

platformTest("a body over 10 MB is 413 payload_too_large, unread and unbilled", async (p) => {
  const { t, manuals } = await setup(p);
  const before = await balance(p, t.owner.id);
  const documents = Array.from({ length: 11 }, (_, i) => ({
    title: `Huge ${i}`,
    category_id: manuals,
    content: "x".repeat(1_000_000),
  }));
  const r = await batch(p, t.owner.accessToken, t.ws, documents);
  assert.equal(r.status, 413, JSON.stringify(r.body).slice(0, 300));
  assert.equal(r.body.code, "payload_too_large");
  assert.equal(r.headers.get("x-credits-charged"), null);
  assert.equal(await balance(p, t.owner.id), before);
  assert.equal(await countTitled(p, t.ws, documents.map((d) => d.title)), 0);
});

platformTest(
  "a write too large for one database request is 413 naming it, not a 500: nothing kept",
  async (p) => {
    const { t, manuals } = await setup(p);
    // About 1,900 chunks with their embeddings: more than the database API takes in one request,
    // though the document itself is within kb_create_document's limits.
    const text = (n: number) =>
      ("Mapei adhesive grout line tiles sealant primer word ".repeat(10) + "\n\n").repeat(n);
    const before = await balance(p, t.owner.id);
    const one = await post(p, t.owner.accessToken, "/api/kb/documents", {
      workspace_id: t.ws,
      title: "Too big alone",
      category_id: manuals,
      content: text(1900),
    });
    assert.equal(one.status, 413, JSON.stringify(one.body).slice(0, 300));
    assert.equal(one.body.code, "payload_too_large");
    assert.match(one.body.error, /^Document is too large to write in one database request .*split it/);
    // Two documents that fit one by one do not fit one batch.
    const two = await batch(p, t.owner.accessToken, t.ws, [
      { title: "Big half 1", category_id: manuals, content: text(1100) },
      { title: "Big half 2", category_id: manuals, content: text(1100) },
    ]);
    assert.equal(two.status, 413, JSON.stringify(two.body).slice(0, 300));
    assert.match(two.body.error, /^The batch is too large to write in one database request/);
    assert.equal(await balance(p, t.owner.id), before, "both refunded");
    assert.equal(await countTitled(p, t.ws, ["Too big alone", "Big half 1", "Big half 2"]), 0);
  },
);

platformTest(
  "a member sending priced documents gets 403, an outsider 404: nothing written, refunded",
  async (p) => {
    const { t, pricing, cost } = await setup(p);
    const docs = [
      {
        title: "Member list",
        category_id: pricing,
        price_doc_type: "price_list",
        content: PRICE_LIST("Member", "ME", 3),
      },
      {
        title: "Member discount",
        category_id: pricing,
        price_doc_type: "discount_rule",
        content: "# Discounts\n- All Mapei products 50% off for registered dealers",
      },
    ];
    for (
      const [who, status, code] of [[t.member, 403, "forbidden"], [t.outsider, 404, "not_found"]] as const
    ) {
      const before = await balance(p, who.id);
      const r = await batch(p, who.accessToken, t.ws, docs);
      assert.equal(r.status, status, JSON.stringify(r.body));
      assert.equal(r.body.code, code);
      assert.ok(r.body.error.startsWith("documents[0]: "), r.body.error);
      assert.deepEqual(r.body.billing, { refunded: 2 * cost });
      assert.equal(await balance(p, who.id), before);
    }
    assert.equal(await countTitled(p, t.ws, docs.map((d) => d.title)), 0);
    // The 403 is the Pricing gate: the member may batch plain documents.
    const plain = await batch(p, t.member.accessToken, t.ws, [{
      title: "Member note",
      content: "# Note\nKeep dry.",
    }]);
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.equal(plain.body.documents[0].created, true);
  },
);

platformTest(
  "a batch of 4 costs 4 x kb_create_document; a balance for 2 is a 402 with nothing written",
  async (p) => {
    const { t, manuals, cost } = await setup(p);
    assert.ok(cost > 0);
    const docs = Array.from({ length: 4 }, (_, i) => ({
      title: `Billed ${i}`,
      category_id: manuals,
      content: `# Billed ${i}\nPorcelain tile ${i}, 60x60 cm, rectified edges.`,
    }));
    const before = await balance(p, t.admin.id);
    const r = await batch(p, t.admin.accessToken, t.ws, docs);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.headers.get("x-credits-charged"), String(4 * cost));
    assert.equal(r.headers.get("x-credits-balance"), String(before - 4 * cost));
    assert.equal(await balance(p, t.admin.id), before - 4 * cost);
    const log = await p.db.query<{ action: string; credits_debited: string }>(
      `select action, credits_debited from public.ai_usage_logs where user_id = $1`,
      [t.admin.id],
    );
    assert.deepEqual(log.rows.map((l) => [l.action, Number(l.credits_debited)]), [[
      "kb_create_document",
      4 * cost,
    ]]);

    const poor = await createUser(p, "batch-poor");
    const ws = await createWorkspace(p, poor.id);
    await grant(p, poor.id, 2 * cost);
    const short = await batch(p, poor.accessToken, ws, docs.map((d) => ({ ...d, category_id: undefined })));
    assert.equal(short.status, 402, JSON.stringify(short.body));
    assert.equal(short.body.code, "insufficient_credits");
    assert.equal(await balance(p, poor.id), 2 * cost);
    assert.equal(await countTitled(p, ws, docs.map((d) => d.title)), 0);
  },
);

platformTest(
  "a rerun embeds only the changed documents, in one call, whatever the titles' characters",
  async (p) => {
    const embeddings = new CountingEmbeddings();
    const app = inProcessBackend(p, embeddings);
    const u = await createUser(p, "batch-embed");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 100);
    const call = async (documents: { title: string; content: string }[]) => {
      const res = await app.request("/api/kb/documents/batch", {
        method: "POST",
        headers: { authorization: `Bearer ${u.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ workspace_id: ws, documents }),
      });
      const json = await res.json();
      assert.equal(res.status, 200, JSON.stringify(json));
      return json.documents as {
        created: boolean;
        re_embedded: boolean;
        document: { chunk_count: number };
      }[];
    };
    // Quotes, backslashes and commas in titles: the existing-rows read must still match them.
    const titles = [
      `12" tiles, grey`,
      `C:\\imports\\tiles, v2`,
      `Plain "quoted" title`,
      "Grout (5 kg), anthracite",
    ];
    const docs = titles.map((title, i) => ({
      title,
      content: `# Sheet ${i}\nPorcelain tile ${i}, 60x60 cm.`,
    }));
    const first = await call(docs);
    assert.deepEqual(first.map((d) => [d.created, d.re_embedded]), Array(4).fill([true, true]));
    const chunks = first.reduce((n, d) => n + d.document.chunk_count, 0);
    assert.deepEqual(
      embeddings.calls,
      [{ count: chunks, inputType: "document" }],
      "one call for the whole batch",
    );

    const same = await call(docs);
    assert.deepEqual(same.map((d) => [d.created, d.re_embedded]), Array(4).fill([false, false]));
    assert.equal(embeddings.calls.length, 1, "nothing changed: no embedding call");

    docs[0] = { ...docs[0], content: `${docs[0].content}\n\nFrost resistant.` };
    const changed = await call(docs);
    assert.deepEqual(changed.map((d) => d.re_embedded), [true, false, false, false]);
    assert.deepEqual(embeddings.calls.slice(1), [{
      count: changed[0].document.chunk_count,
      inputType: "document",
    }]);
  },
);

platformTest(
  "100 documents with 500-character titles: found again on a rerun, nothing re-embedded",
  async (p) => {
    const { t, manuals } = await setup(p);
    // Each title encodes to ~4 kB in the existing-rows read's query string: the reads are split.
    const documents = Array.from({ length: 100 }, (_, i) => ({
      title: `${String(i).padStart(3, "0")} ${'é"\\,()ü'.repeat(71)}`.slice(0, 500),
      category_id: manuals,
      content: `Long-titled document ${i}`,
    }));
    const first = await batch(p, t.owner.accessToken, t.ws, documents);
    assert.equal(first.status, 200, JSON.stringify(first.body).slice(0, 300));
    assert.equal(first.body.documents.filter((d: { created: boolean }) => d.created).length, 100);
    const again = await batch(p, t.owner.accessToken, t.ws, documents);
    assert.equal(again.status, 200, JSON.stringify(again.body).slice(0, 300));
    assert.deepEqual(
      again.body.documents.map((d: { created: boolean; re_embedded: boolean }) => [d.created, d.re_embedded]),
      documents.map(() => [false, false]),
    );
  },
);

platformTest("warnings are per document, in input order", async (p) => {
  const { t, pricing, manuals } = await setup(p);
  const r = await batch(p, t.owner.accessToken, t.ws, [
    { title: "Warned note", category_id: manuals, content: "# Note\nNothing priced here." },
    {
      title: "Half-dated promotion",
      category_id: pricing,
      price_doc_type: "promotion",
      content: "# Promotions\nSpring promo 10% off Marazzi Grande tiles, valid 2026-03-01 to 2026-04-30\n" +
        "Summer promo 5% off Mapei grout",
    },
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.documents[0].warnings, []);
  const warnings: string[] = r.body.documents[1].warnings;
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(warnings[0], /^line 3: .*date range.*skipped/);
  assert.equal(r.body.documents[1].document.price_doc_type, "promotion");
});
