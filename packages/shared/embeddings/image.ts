/**
 * Image embeddings for document images: five 768-dimension unit vectors per image (the spec's
 * visual, color, texture, style and material columns, `*_slig_768`). One interface; the local
 * provider computes them deterministically from the pixels (no key, no network) for development
 * and tests:
 *
 * - color: a 8x8x8 RGB histogram; texture: a gradient-orientation x magnitude histogram;
 * - visual: a 16x16 grey thumbnail plus the coarse colour histogram;
 * - style: brightness/contrast/saturation statistics with the coarse histograms;
 * - material: texture and colour histograms together.
 *
 * Each feature vector is folded into 768 dimensions by a fixed pseudo-random signed projection
 * and unit-normalised, so similar pictures get similar vectors in every space.
 */
import { l2Normalize } from "./provider.ts";

export const IMAGE_EMBEDDING_DIMENSIONS = 768;
export const IMAGE_EMBEDDING_KINDS = ["visual", "color", "texture", "style", "material"] as const;
export type ImageEmbeddingKind = typeof IMAGE_EMBEDDING_KINDS[number];
export type ImageEmbeddings = Record<ImageEmbeddingKind, number[]>;

/** Raw pixels, row-major: 1 (grey), 3 (RGB) or 4 (RGBA) channels of 8 bits. */
export interface RasterImage {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array | Uint8ClampedArray;
}

export interface ImageEmbeddingProvider {
  readonly name: string;
  readonly model: string;
  readonly dimensions: number;
  embedImage(image: RasterImage): Promise<ImageEmbeddings>;
}

function rgbAt(img: RasterImage, i: number): [number, number, number] {
  const o = i * img.channels;
  if (img.channels < 3) return [img.data[o], img.data[o], img.data[o]];
  return [img.data[o], img.data[o + 1], img.data[o + 2]];
}

/** Folds a feature vector into `dims` dimensions with a fixed signed hash projection. */
function fold(features: readonly number[], dims: number, salt: number): number[] {
  const out = new Array<number>(dims).fill(0);
  for (let i = 0; i < features.length; i++) {
    if (features[i] === 0) continue;
    for (let k = 0; k < 3; k++) {
      let h = Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt + k * 7919, 0x85ebca6b);
      h ^= h >>> 15;
      h = Math.imul(h, 0x2c1b3c6d);
      h ^= h >>> 12;
      out[(h >>> 1) % dims] += (h & 1 ? 1 : -1) * features[i];
    }
  }
  return l2Normalize(out);
}

function normalizeSum(v: number[]): number[] {
  const s = v.reduce((a, b) => a + b, 0);
  return s === 0 ? v : v.map((x) => x / s);
}

export class LocalImageEmbeddings implements ImageEmbeddingProvider {
  readonly name = "local";
  readonly model = "local-pixel-features-768";
  readonly dimensions = IMAGE_EMBEDDING_DIMENSIONS;

  embedImage(img: RasterImage): Promise<ImageEmbeddings> {
    const n = img.width * img.height;
    if (n === 0 || img.data.length < n * img.channels) {
      return Promise.reject(new Error("embedImage: the pixel buffer does not match its size"));
    }
    const color = new Array<number>(512).fill(0);
    const coarse = new Array<number>(64).fill(0);
    const grey = new Float64Array(n);
    let sumL = 0, sumL2 = 0, sumSat = 0;
    for (let i = 0; i < n; i++) {
      const [r, g, b] = rgbAt(img, i);
      color[(r >> 5) * 64 + (g >> 5) * 8 + (b >> 5)]++;
      coarse[(r >> 6) * 16 + (g >> 6) * 4 + (b >> 6)]++;
      const l = 0.299 * r + 0.587 * g + 0.114 * b;
      grey[i] = l;
      sumL += l;
      sumL2 += l * l;
      const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
      sumSat += mx === 0 ? 0 : (mx - mn) / mx;
    }
    const texture = new Array<number>(8 * 4).fill(0);
    for (let y = 1; y < img.height - 1; y++) {
      for (let x = 1; x < img.width - 1; x++) {
        const i = y * img.width + x;
        const gx = grey[i + 1] - grey[i - 1], gy = grey[i + img.width] - grey[i - img.width];
        const mag = Math.hypot(gx, gy);
        const ang = Math.floor(((Math.atan2(gy, gx) + Math.PI) / (2 * Math.PI)) * 8) % 8;
        const bucket = mag < 8 ? 0 : mag < 32 ? 1 : mag < 96 ? 2 : 3;
        texture[ang * 4 + bucket]++;
      }
    }
    const thumb = new Array<number>(256).fill(0);
    const counts = new Array<number>(256).fill(0);
    for (let y = 0; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) {
        const t = Math.floor(y * 16 / img.height) * 16 + Math.floor(x * 16 / img.width);
        thumb[t] += grey[y * img.width + x];
        counts[t]++;
      }
    }
    const thumbMean = thumb.map((s, i) => counts[i] ? s / counts[i] / 255 : 0);
    const mean = sumL / n / 255;
    const contrast = Math.sqrt(Math.max(0, sumL2 / n - (sumL / n) ** 2)) / 128;
    const saturation = sumSat / n;
    const colorN = normalizeSum(color), coarseN = normalizeSum(coarse), textureN = normalizeSum(texture);
    // A constant term keeps every vector non-zero (a blank image still has a direction).
    const stats = [1, mean, contrast, saturation, mean * contrast, saturation * contrast];
    return Promise.resolve({
      visual: fold([...thumbMean, ...coarseN, 1], this.dimensions, 1),
      color: fold([...colorN, 1], this.dimensions, 2),
      texture: fold([...textureN, 1], this.dimensions, 3),
      style: fold([...stats.map((s) => s * 4), ...coarseN, ...textureN], this.dimensions, 4),
      material: fold([...textureN, ...coarseN, 1], this.dimensions, 5),
    });
  }
}
