/**
 * generate-quote-pdf: a real PDF (read back with a PDF text extractor), stored privately, served
 * through a 7-day signed URL, reused until the quote changes or regeneration is asked for.
 */
import assert from "node:assert/strict";
import { extractText, getDocumentProxy } from "unpdf";
import { signJwt } from "@shared/auth/jwt.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, MISSING_ID, seedQuote } from "./helpers.ts";

const FN = "generate-quote-pdf";

interface PdfAnswer {
  success: boolean;
  quote_number: string;
  pdf_url: string;
  pdf_storage_path: string;
}

async function setup(p: Platform) {
  const owner = await createUser(p, "pdf-owner");
  const viewer = await createUser(p, "pdf-viewer");
  const outsider = await createUser(p, "pdf-out");
  const ws = await createWorkspace(p, owner.id, { [viewer.id]: "viewer" }, "PDF");
  const quote = await seedQuote(p, ws, owner.id, [
    {
      description: "Porcelain tile 60x60 rectified",
      quantity: 24.5,
      unit: "m2",
      unit_price: 39.9,
      discounted_price: 35.91,
    },
    { description: "Tile adhesive C2TE", quantity: 12, unit: "bag", unit_price: 18.4 },
    {
      description: "Levelling system clips",
      quantity: 3,
      unit: "box",
      unit_price: 1234.5,
      discounted_price: 1111.05,
    },
  ], {
    customer_name: "Ada Customer",
    customer_company: "Ada Interiors GmbH",
    customer_email: "ada@example.com",
    currency: "EUR",
    title: "Bathroom renovation",
  });
  return { owner, viewer, outsider, ws, quote };
}

async function generate(p: Platform, token: string, body: unknown) {
  return await call(p, FN, "", { method: "POST", token, body });
}

async function pdfText(url: string): Promise<string> {
  const r = await fetch(url);
  assert.equal(r.status, 200, `download ${url}`);
  assert.match(r.headers.get("content-type") ?? "", /application\/pdf/);
  const bytes = new Uint8Array(await r.arrayBuffer());
  assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-");
  const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  return text;
}

function tokenOf(url: string): { token: string; claims: Record<string, unknown> } {
  const token = new URL(url).searchParams.get("token")!;
  const claims = JSON.parse(atob(token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
  return { token, claims };
}

platformTest(
  "the PDF shows the quote number, customer, every line with its prices, totals, currency",
  async (p) => {
    const s = await setup(p);
    const r = await generate(p, s.owner.accessToken, { quote_id: s.quote.id });
    assert.equal(r.status, 200);
    const a = r.body as unknown as PdfAnswer;
    assert.deepEqual(Object.keys(a).sort(), ["pdf_storage_path", "pdf_url", "quote_number", "success"]);
    assert.equal(a.success, true);
    assert.equal(a.quote_number, s.quote.quote_number);
    assert.ok(a.pdf_storage_path.startsWith(`${s.ws}/${s.quote.id}/`));
    assert.ok(a.pdf_url.startsWith(`${p.url}/storage/v1/object/sign/quote-pdfs/`));

    const text = await pdfText(a.pdf_url);
    // Totals as the API computes them (SQL): the PDF must print the same figures.
    const api = await call(p, "quotes-api", `/quotes/${s.quote.id}`, { token: s.owner.accessToken });
    const totals = (api.body.data as { totals: Record<string, unknown> }).totals;
    // 24.5 x 39.90 = 977.55 list, x 35.91 = 879.795 -> 879.80; 12 x 18.40 = 220.80; 3 x 1,234.50 = 3,703.50
    // list, 3 x 1,111.05 = 3,333.15.
    assert.deepEqual(totals, {
      item_count: 3,
      unpriced_item_count: 0,
      subtotal: 4901.85,
      discount_total: 468.1,
      total: 4433.75,
      currency: "EUR",
    });
    for (
      const want of [
        s.quote.quote_number,
        "Ada Customer",
        "Ada Interiors GmbH",
        "Bathroom renovation",
        "Porcelain tile 60x60 rectified",
        "Tile adhesive C2TE",
        "Levelling system clips",
        "39.90", // unit price
        "35.91", // discounted price
        "879.80", // line total
        "18.40",
        "220.80",
        "1,234.50",
        "1,111.05",
        "3,333.15",
        "Subtotal",
        "4,901.85",
        "-468.10",
        "Total (EUR)",
        "4,433.75",
      ]
    ) assert.ok(text.includes(want), `the PDF text lacks ${JSON.stringify(want)}:\n${text}`);
  },
);

platformTest("the signed URL is valid for 7 days and refused after", async (p) => {
  const s = await setup(p);
  const a = (await generate(p, s.owner.accessToken, { quote_id: s.quote.id })).body as unknown as PdfAnswer;
  const { claims } = tokenOf(a.pdf_url);
  assert.equal((claims.exp as number) - (claims.iat as number), 604800);
  assert.ok(Math.abs((claims.iat as number) - Date.now() / 1000) < 60);

  // The storage layer checks the token's signature and exp: the same claims, as if issued just
  // under / just over 7 days ago, signed with the platform's secret like Storage signs them.
  const sevenDays = 604800;
  const base = new URL(a.pdf_url);
  const shifted = async (secondsAgo: number) => {
    const iat = Math.floor(Date.now() / 1000) - secondsAgo;
    const token = await signJwt({ url: claims.url, iat, exp: iat + sevenDays }, p.config.jwtSecret);
    base.searchParams.set("token", token);
    return await fetch(base);
  };
  const stillValid = await shifted(sevenDays - 60);
  assert.equal(stillValid.status, 200, "valid until the 7 days are over");
  await stillValid.body?.cancel();
  const expired = await shifted(sevenDays + 1);
  assert.equal(expired.status, 400, "Storage answers 400 for a bad token");
  const err = await expired.json();
  assert.equal(err.statusCode, "400");
  assert.match(err.message, /exp/i);

  // A token for another path, or no token, opens nothing.
  const noToken = await fetch(`${p.url}/storage/v1/object/sign/quote-pdfs/${a.pdf_storage_path}`);
  assert.equal(noToken.status, 400);
  await noToken.body?.cancel();
});

platformTest("a repeat call reuses the PDF; regenerate and changes make a new file", async (p) => {
  const s = await setup(p);
  const first = (await generate(p, s.owner.accessToken, { quote_id: s.quote.id }))
    .body as unknown as PdfAnswer;
  const again = (await generate(p, s.viewer.accessToken, { quote_id: s.quote.id }))
    .body as unknown as PdfAnswer;
  assert.equal(again.pdf_storage_path, first.pdf_storage_path, "no change, no new file");
  const objects = async () =>
    (await p.db.query<{ name: string }>(
      `select name from storage.objects where bucket_id = 'quote-pdfs' and name like $1 order by created_at`,
      [`${s.ws}/${s.quote.id}/%`],
    )).rows.map((r) => r.name);
  assert.deepEqual(await objects(), [first.pdf_storage_path]);

  const forced = (await generate(p, s.owner.accessToken, { quote_id: s.quote.id, regenerate: true }))
    .body as unknown as PdfAnswer;
  assert.notEqual(forced.pdf_storage_path, first.pdf_storage_path);
  assert.deepEqual(await objects(), [first.pdf_storage_path, forced.pdf_storage_path]);
  // The earlier file stays, so links already sent keep working until they expire.
  assert.equal((await fetch(first.pdf_url)).status, 200);

  // A line changes through quotes-api: the next call renders the new figures.
  const edit = await call(p, "quotes-api", `/quote-items/${s.quote.items[1]}`, {
    method: "PATCH",
    token: s.owner.accessToken,
    body: { unit_price: 20 },
  });
  assert.equal(edit.status, 200);
  const changed = (await generate(p, s.owner.accessToken, { quote_id: s.quote.id }))
    .body as unknown as PdfAnswer;
  assert.notEqual(changed.pdf_storage_path, forced.pdf_storage_path);
  assert.ok((await pdfText(changed.pdf_url)).includes("240.00"), "12 x 20.00");

  // A header change (customer) counts too; edits that print nothing new (status, internal line
  // notes, timestamps) do not.
  await p.db.query(`update public.quotes set customer_name = 'Bob Buyer' where id = $1`, [s.quote.id]);
  const renamed = (await generate(p, s.owner.accessToken, { quote_id: s.quote.id }))
    .body as unknown as PdfAnswer;
  assert.notEqual(renamed.pdf_storage_path, changed.pdf_storage_path);
  assert.ok((await pdfText(renamed.pdf_url)).includes("Bob Buyer"));
  await p.db.query(
    `update public.quotes set status = 'sent', updated_at = now() + interval '1 hour' where id = $1`,
    [
      s.quote.id,
    ],
  );
  await p.db.query(`update public.quote_items set notes = 'internal: supplier B' where id = $1`, [
    s.quote.items[0],
  ]);
  const same = (await generate(p, s.owner.accessToken, { quote_id: s.quote.id }))
    .body as unknown as PdfAnswer;
  assert.equal(same.pdf_storage_path, renamed.pdf_storage_path);

  // A stored file removed behind the function's back is rendered again instead of failing.
  await p.db.query(`delete from storage.objects where bucket_id = 'quote-pdfs' and name = $1`, [
    same.pdf_storage_path,
  ]);
  const restored = await generate(p, s.owner.accessToken, { quote_id: s.quote.id });
  assert.equal(restored.status, 200);
  assert.notEqual((restored.body as unknown as PdfAnswer).pdf_storage_path, same.pdf_storage_path);
});

platformTest("generate-quote-pdf refusals: credentials, input, other workspaces", async (p) => {
  const s = await setup(p);
  const body = { quote_id: s.quote.id };
  assert.equal((await call(p, FN, "", { method: "POST", token: null, body })).status, 401, "no JWT");
  assert.equal((await call(p, FN, "", { method: "POST", body })).status, 401, "anon key");
  assert.equal((await generate(p, s.outsider.accessToken, body)).status, 404, "not a member");
  assert.equal((await generate(p, s.owner.accessToken, { quote_id: MISSING_ID })).status, 404);
  const bad = await generate(p, s.owner.accessToken, { quote_id: "123" });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error as string, /quote_id/);
  assert.equal((await generate(p, s.owner.accessToken, {})).status, 400);
  assert.equal(
    (await generate(p, s.owner.accessToken, { quote_id: s.quote.id, regenerate: "yes" })).status,
    400,
  );
  const get = await call(p, FN, "", { token: s.owner.accessToken });
  assert.equal(get.status, 404, "POST only");
  const none = await p.db.query(`select count(*)::int as n from storage.objects where name like $1`, [
    `${s.ws}/%`,
  ]);
  assert.deepEqual(none.rows, [{ n: 0 }], "refused calls store nothing");
});

platformTest(
  "the bucket is private: members read their workspace's PDFs, nobody writes with a JWT",
  async (p) => {
    const s = await setup(p);
    const a = (await generate(p, s.owner.accessToken, { quote_id: s.quote.id })).body as unknown as PdfAnswer;
    const mine = await s.viewer.client.storage.from("quote-pdfs").download(a.pdf_storage_path);
    assert.equal(mine.error, null);
    assert.equal(
      new TextDecoder().decode(new Uint8Array(await mine.data!.arrayBuffer()).slice(0, 5)),
      "%PDF-",
    );
    const theirs = await s.outsider.client.storage.from("quote-pdfs").download(a.pdf_storage_path);
    assert.ok(theirs.error, "outsiders cannot read it");
    const publicUrl = await fetch(`${p.url}/storage/v1/object/public/quote-pdfs/${a.pdf_storage_path}`);
    assert.equal(publicUrl.status, 400, "not a public bucket");
    await publicUrl.body?.cancel();
    const upload = await s.owner.client.storage.from("quote-pdfs")
      .upload(`${s.ws}/${s.quote.id}/forged.pdf`, new Blob(["%PDF-1.7"], { type: "application/pdf" }));
    assert.ok(upload.error, "no user writes into the bucket");
  },
);
