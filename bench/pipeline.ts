/**
 * PDF pipeline benchmark: `deno run -A bench/pipeline.ts [pages=100] [runs=3]`.
 *
 * Builds a catalogue PDF with pdf-lib (an index page, then products of ten pages each with
 * several paragraphs of text per page and an embedded PNG swatch on every other page), then
 * processes it through all six stages (extract, classify-images, upload-images, save-images-db,
 * extract-metadata, create-chunks, create-relationships) with the local providers: the local
 * embedding provider, local image embeddings, and the sandbox's Anthropic stand-in (scripted
 * replies, no network). Reports pages per second per run and where the time went, stage by
 * stage (from the checkpoints' timestamps).
 */
import { PDFDocument, StandardFonts } from "pdf-lib";
import { aiBackendOf } from "../stack/ai-backend/part.ts";
import { createUser, startEphemeralPlatform } from "../fixtures/platform.ts";
import { sqlAs } from "../fixtures/sql.ts";
import { encodePng } from "@shared/images/png.ts";
import { encodeBase64 } from "@shared/embeddings/decode.ts";
import { STAGES } from "../services/ai-backend/mod.ts";
import { percentile } from "./lib.ts";

const PAGES = Math.min(Math.max(Number(Deno.args[0] ?? 100) || 100, 11), 1000);
const RUNS = Math.min(Math.max(Number(Deno.args[1] ?? 3) || 3, 1), 20);
const PAGES_PER_PRODUCT = 10;

const MATERIALS = [
  "Oak",
  "Walnut",
  "Slate",
  "Marble",
  "Terrazzo",
  "Limestone",
  "Ash",
  "Granite",
  "Cork",
  "Basalt",
];

function swatch(w: number, h: number, seed: number): Promise<Uint8Array> {
  const data = new Uint8Array(w * h * 3);
  const base = [60 + (seed * 37) % 160, 50 + (seed * 53) % 150, 40 + (seed * 71) % 140];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const n = ((x * 7 + y * 13 + seed) % 5 - 2) * 10;
      for (let c = 0; c < 3; c++) data[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, base[c] + n));
    }
  }
  return encodePng({ width: w, height: h, channels: 3, data });
}

interface Layout {
  pdf: Uint8Array;
  products: { name: string; page_start: number; page_end: number }[];
  images: number;
}

async function buildCatalogue(pages: number): Promise<Layout> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const products: Layout["products"] = [];
  for (let start = 2, i = 0; start <= pages; start += PAGES_PER_PRODUCT, i++) {
    products.push({
      name: `${MATERIALS[i % MATERIALS.length]} Collection ${i + 1}`,
      page_start: start,
      page_end: Math.min(start + PAGES_PER_PRODUCT - 1, pages),
    });
  }
  const index = doc.addPage([612, 792]);
  index.drawText("Contents", { x: 50, y: 740, size: 14, font });
  products.forEach((p, i) =>
    index.drawText(`${p.name} ........ ${p.page_start}`, { x: 50, y: 710 - i * 14, size: 10, font })
  );
  let images = 0;
  for (let page = 2; page <= pages; page++) {
    const product = products.find((p) => page >= p.page_start && page <= p.page_end)!;
    const pg = doc.addPage([612, 792]);
    let y = 740;
    pg.drawText(`${product.name} - page ${page - product.page_start + 1}`, { x: 50, y, size: 14, font });
    y -= 24;
    for (let para = 0; para < 6; para++) {
      const line =
        `${product.name} is a building material with a ${para % 2 ? "brushed" : "honed"} finish, ` +
        `${10 + (page * 3 + para) % 20} mm thick, for floors and walls, frost resistant, class ${para + 1}.`;
      for (const l of [line, line.toUpperCase()]) {
        pg.drawText(l.slice(0, 100), { x: 50, y, size: 9, font });
        y -= 13;
      }
      y -= 6;
    }
    if (page % 2 === 0) {
      const img = await doc.embedPng(await swatch(32, 32, page));
      pg.drawImage(img, { x: 50, y: 60, width: 120, height: 120 });
      images++;
    }
  }
  return { pdf: await doc.save(), products, images };
}

const verdict = (category: string, confidence: number) => JSON.stringify({ category, confidence });

const platform = await startEphemeralPlatform();
try {
  const user = await createUser(platform, "bench-pipeline");
  await sqlAs(platform, { role: "service_role" }, `select public.grant_credits($1, 100000)`, [user.id]);
  const layout = await buildCatalogue(PAGES);
  const pdfBase64 = encodeBase64(layout.pdf);
  console.log(
    `catalogue: ${PAGES} pages, ${layout.products.length} products, ${layout.images} images, ` +
      `${(layout.pdf.length / 1024).toFixed(0)} KiB`,
  );
  const llm = platform.sandbox!.get("anthropic");
  const stageMs: Record<string, number[]> = Object.fromEntries(STAGES.map((s) => [s, []]));
  const pps: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    llm.reset();
    llm.reply(
      JSON.stringify({ products: layout.products, index_pages: [1] }),
      ...Array.from({ length: layout.images }, (_, i) => verdict("material", 0.8 + (i % 10) / 100)),
      ...layout.products.map((p) =>
        JSON.stringify({
          materials: [p.name.split(" ")[0]],
          finishes: ["brushed", "honed"],
          dimensions: ["10-30 mm"],
        })
      ),
    );
    const t0 = performance.now();
    const res = await fetch(`${aiBackendOf(platform).url}/api/rag/documents/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ pdf_base64: pdfBase64, filename: `bench-${run}.pdf` }),
    });
    const job = await res.json();
    const seconds = (performance.now() - t0) / 1000;
    if (res.status !== 200 || job.status !== "completed") {
      throw new Error(`run ${run}: ${res.status} ${JSON.stringify(job).slice(0, 500)}`);
    }
    pps.push(PAGES / seconds);
    const cps = (await platform.db.query<{ stage: string; at: Date }>(
      `select stage, created_at as at from public.ai_job_checkpoints where job_id = $1 order by created_at`,
      [job.job_id],
    )).rows;
    const [{ started }] = (await platform.db.query<{ started: Date }>(
      `select started_at as started from public.ai_jobs where id = $1`,
      [job.job_id],
    )).rows;
    let prev = new Date(started).getTime();
    for (const cp of cps) {
      const at = new Date(cp.at).getTime();
      stageMs[cp.stage].push(at - prev);
      prev = at;
    }
    const [counts] = (await platform.db.query<Record<string, number>>(
      `select (select count(*)::int from public.document_chunks where document_id = $1) as chunks,
              (select count(*)::int from public.document_images where document_id = $1) as images,
              (select count(*)::int from public.document_relationships where document_id = $1) as relationships`,
      [job.document_id],
    )).rows;
    console.log(
      `run ${run + 1}: ${seconds.toFixed(2)} s  ${(PAGES / seconds).toFixed(1)} pages/s  ` +
        `(${counts.chunks} chunks, ${counts.images} images, ${counts.relationships} relationships)`,
    );
  }
  const sorted = [...pps].sort((a, b) => a - b);
  console.log(
    `${PAGES}-page PDF, all six stages (local providers)`.padEnd(44) +
      ` median ${percentile(sorted, 50).toFixed(1)} pages/s  best ${sorted.at(-1)!.toFixed(1)} pages/s`,
  );
  console.log("stage time (median of runs):");
  for (const s of STAGES) {
    const ms = [...stageMs[s]].sort((a, b) => a - b);
    console.log(`  ${s.padEnd(22)} ${percentile(ms, 50).toFixed(0).padStart(6)} ms`);
  }
} finally {
  await platform.stop();
}
