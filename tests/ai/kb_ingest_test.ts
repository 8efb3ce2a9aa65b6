/**
 * The one-call KB ingest (kb_upsert_document with p_sync_price): a Pricing document's
 * price_entries row is written in the same transaction as the document, names the document's
 * real id (the entries were parsed with a placeholder), is left alone when nothing changed, is
 * re-parsed when the content changes, and goes when the document stops being priced.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { createTeam, ok, pricingCategory } from "./helpers.ts";

const LIST = (price: string) =>
  `# Ardex price list\nManufacturer: Ardex\n\n| SKU | Product | Unit | Price |\n|---|---|---|---|\n` +
  `| AR-1 | Ardex X7 adhesive 25 kg | bag | ${price} |\n| AR-2 | Ardex FG8 grout 5 kg | bag | 9,80 |\n`;

platformTest("a price document and its entries are stored in one call, with the real id", async (p) => {
  const t = await createTeam(p);
  const cat = await pricingCategory(p, t);
  const write = (content: string, type: string | null = "price_list") =>
    ok(p, t.owner.accessToken, "kb_create_document", {
      workspace_id: t.ws,
      title: "Ardex prices",
      category_id: cat,
      ...(type ? { price_doc_type: type } : {}),
      content,
    });
  const entriesOf = async (docId: string) =>
    (await p.db.query<{ entries: { source: { doc_id: string } }[]; parsed_at: string; content_hash: string }>(
      `select entries, parsed_at::text, content_hash from public.price_entries where kb_doc_id = $1`,
      [docId],
    )).rows;

  const first = await write(LIST("24,50"));
  assert.equal(first.created, true);
  const id = first.id;
  const [row] = await entriesOf(id);
  assert.equal(row.entries.length, 2);
  assert.ok(row.entries.every((e) => e.source.doc_id === id), "entries name the document's real id");
  assert.equal(row.content_hash, first.content_hash);
  assert.equal(first.chunk_count > 0, true);
  const chunks = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_doc_chunks where doc_id = $1`,
    [id],
  );
  assert.equal(chunks.rows[0].n, first.chunk_count);

  // The same content again: nothing re-embedded, the entries row untouched.
  const same = await write(LIST("24,50"));
  assert.deepEqual([same.created, same.re_embedded], [false, false]);
  assert.equal((await entriesOf(id))[0].parsed_at, row.parsed_at);

  // New content: re-embedded and re-parsed.
  const changed = await write(LIST("26,00"));
  assert.deepEqual([changed.created, changed.re_embedded, changed.id], [false, true, id]);
  const [after] = await entriesOf(id);
  assert.equal(after.content_hash, changed.content_hash);
  assert.notEqual(after.parsed_at, row.parsed_at);
  assert.match(JSON.stringify(after.entries), /26[.,]00?/);

  // No longer priced: its entries go.
  const plain = await write(LIST("26,00"), null);
  assert.equal(plain.price_doc_type, null);
  assert.deepEqual(await entriesOf(id), []);
});
