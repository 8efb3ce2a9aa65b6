/**
 * Images sent to agent-chat as base64 data URLs (`data:image/png;base64,...`). Each one must
 * be a type the model reads (JPEG, PNG, GIF, WebP), at most MAX_IMAGE_BYTES decoded (the
 * Messages API's per-image limit), and its bytes must start with the signature of the declared
 * type, so a mislabelled or truncated file is a 400 here rather than a failed model call later.
 */
const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;
export type ImageMediaType = typeof IMAGE_MEDIA_TYPES[number];

export const MAX_IMAGES = 4;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export interface ChatImage {
  media_type: ImageMediaType;
  /** The base64 payload, as the Messages API takes it. */
  data: string;
  bytes: number;
}

export type ImageCheck = { ok: true; image: ChatImage } | { ok: false; message: string };

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;

function signatureMatches(type: ImageMediaType, b: Uint8Array): boolean {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  switch (type) {
    case "image/jpeg":
      return b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
    case "image/png":
      return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x);
    case "image/gif":
      return ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a";
    case "image/webp":
      return ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP";
  }
}

function decodeBase64(data: string): Uint8Array | null {
  try {
    const bin = atob(data);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch (err) {
    // atob's only failure is malformed input, which the caller reports as a 400.
    if (err instanceof DOMException) return null;
    throw err;
  }
}

export function checkImageDataUrl(url: string): ImageCheck {
  const m = DATA_URL.exec(url.trim());
  if (!m) return { ok: false, message: "is not a base64 data URL (data:<type>;base64,<data>)" };
  const type = m[1].toLowerCase();
  if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(type)) {
    return { ok: false, message: `type ${type} is not supported (${IMAGE_MEDIA_TYPES.join(", ")})` };
  }
  const data = m[2];
  // Refuse oversized payloads before decoding them.
  const estimated = Math.floor((data.length * 3) / 4) -
    (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
  if (estimated > MAX_IMAGE_BYTES) {
    return { ok: false, message: `is ${estimated} bytes; the limit is ${MAX_IMAGE_BYTES} bytes` };
  }
  if (estimated === 0) return { ok: false, message: "is empty" };
  const bytes = decodeBase64(data);
  if (!bytes) return { ok: false, message: "is not valid base64" };
  if (!signatureMatches(type as ImageMediaType, bytes)) {
    return { ok: false, message: `does not contain ${type} data` };
  }
  return { ok: true, image: { media_type: type as ImageMediaType, data, bytes: bytes.length } };
}

/** All images, or the problems found, each prefixed with its position (images.0 ...). */
export function checkImages(urls: readonly string[]): { images: ChatImage[]; problems: string[] } {
  const images: ChatImage[] = [];
  const problems: string[] = [];
  if (urls.length > MAX_IMAGES) problems.push(`images: at most ${MAX_IMAGES} images per request`);
  urls.slice(0, MAX_IMAGES).forEach((u, i) => {
    const r = checkImageDataUrl(u);
    if (r.ok) images.push(r.image);
    else problems.push(`images.${i}: ${r.message}`);
  });
  return { images, problems };
}
