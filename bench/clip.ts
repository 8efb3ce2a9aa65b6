/**
 * The local CLIP provider (packages/shared/embeddings/clip.ts): latency of image and text
 * embeddings, and how well its joint space retrieves pictures by text - for every colour name,
 * the share of that colour's textured swatches among the top results of the text query.
 *
 *   npx -y deno@2.9.6 run -A bench/clip.ts [swatches-per-colour]
 */
import { LocalClipEmbeddings } from "@shared/embeddings/clip.ts";
import { cosine } from "@shared/embeddings/provider.ts";
import { encodePng } from "@shared/images/png.ts";
import { percentile } from "./lib.ts";

const perColour = Number(Deno.args[0] ?? 8);
const COLOURS: Record<string, [number, number, number]> = {
  red: [200, 30, 30],
  orange: [235, 130, 30],
  yellow: [230, 210, 40],
  green: [40, 150, 60],
  blue: [40, 80, 200],
  purple: [120, 50, 150],
  pink: [230, 110, 170],
  brown: [120, 70, 25],
  white: [245, 245, 245],
  grey: [128, 128, 128],
  black: [20, 20, 20],
};

/** A side x side swatch around a base colour with a seeded texture (grain and stripes). */
function swatch(rgb: [number, number, number], side: number, seed: number): Promise<Uint8Array> {
  const data = new Uint8Array(side * side * 3);
  let s = seed * 2654435761 >>> 0;
  const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const grain = 6 + (seed % 4) * 6, stripe = 3 + (seed % 5);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const n = (rnd() - 0.5) * grain + (y % stripe === 0 ? grain / 2 : 0);
      for (let c = 0; c < 3; c++) data[(y * side + x) * 3 + c] = Math.max(0, Math.min(255, rgb[c] + n));
    }
  }
  return encodePng({ width: side, height: side, channels: 3, data });
}

const clip = new LocalClipEmbeddings();
const images: { colour: string; v: number[] }[] = [];
const imageMs: number[] = [];
for (const [colour, rgb] of Object.entries(COLOURS)) {
  for (let i = 0; i < perColour; i++) {
    const png = await swatch(rgb, 128 + (i % 3) * 64, i + 1);
    const t0 = performance.now();
    const v = await clip.embedImage(png);
    imageMs.push(performance.now() - t0);
    images.push({ colour, v });
  }
}
const textMs: number[] = [];
let precisionSum = 0, top1 = 0;
for (const colour of Object.keys(COLOURS)) {
  const t0 = performance.now();
  const q = await clip.embedText(`${colour} tiles`);
  textMs.push(performance.now() - t0);
  const ranked = [...images].sort((a, b) => cosine(q, b.v) - cosine(q, a.v));
  const hits = ranked.slice(0, perColour).filter((x) => x.colour === colour).length;
  precisionSum += hits / perColour;
  if (ranked[0].colour === colour) top1++;
}
const ms = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(2)} ms, p90 ${percentile(s, 90).toFixed(2)} ms, p99 ${
    percentile(s, 99).toFixed(2)
  } ms`;
};
const n = Object.keys(COLOURS).length;
console.log(`images: ${images.length} swatches (128-256 px PNG), ${n} colours`);
console.log(`embedImage (decode + features): ${ms(imageMs)}`);
console.log(`embedText:                      ${ms(textMs)}`);
console.log(
  `text -> image retrieval: top-1 ${top1}/${n}, precision@${perColour} ${(precisionSum / n).toFixed(3)}`,
);
