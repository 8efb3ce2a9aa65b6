/**
 * Markdown-aware chunking of KB documents (spec defaults: 512 characters, 50 overlap).
 *
 * The document is read as blocks - headings, paragraphs (list items included), tables, fenced
 * code - and blocks are packed into chunks of at most `size` characters:
 * - a heading ends the chunk before it (a chunk never spans two sections) and every chunk
 *   records its heading path ("Price list 2026 > Tiles");
 * - a table too large for one chunk is cut between rows, and every piece repeats the header
 *   row and its separator, so a price row is never read without its column names;
 * - other oversized blocks are cut between sentences, then words, and only a single word
 *   longer than a chunk is cut mid-word;
 * - when a chunk ends for size inside a section, the next one starts with the last `overlap`
 *   characters of it (from a word boundary), so a sentence cut at the border is still found.
 *
 * char_start / char_end give the span of the source that a chunk's own text came from.
 */
export const DEFAULT_CHUNK_SIZE = 512;
export const DEFAULT_CHUNK_OVERLAP = 50;

export interface ChunkOptions {
  size?: number;
  overlap?: number;
}

export interface Chunk {
  chunk_index: number;
  content: string;
  /** Heading path of the section, or null before the first heading. */
  heading: string | null;
  char_start: number;
  char_end: number;
}

interface Block {
  kind: "heading" | "table" | "text" | "code";
  text: string;
  start: number;
  end: number;
  level?: number;
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;
const TABLE_LINE = /^\s*\|/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Splits markdown into blocks with their source offsets. */
export function markdownBlocks(md: string): Block[] {
  const lines: { text: string; start: number; end: number }[] = [];
  let pos = 0;
  for (const text of md.split("\n")) {
    lines.push({ text: text.replace(/\r$/, ""), start: pos, end: pos + text.length });
    pos += text.length + 1;
  }
  const blocks: Block[] = [];
  const push = (kind: Block["kind"], from: number, to: number, level?: number) => {
    const text = lines.slice(from, to).map((l) => l.text).join("\n").trim();
    if (text) blocks.push({ kind, text, start: lines[from].start, end: lines[to - 1].end, level });
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i].text;
    if (!line.trim()) {
      i++;
      continue;
    }
    if (FENCE.test(line)) {
      const marker = FENCE.exec(line)![1];
      let j = i + 1;
      while (j < lines.length && !lines[j].text.trim().startsWith(marker)) j++;
      push("code", i, Math.min(j + 1, lines.length));
      i = j + 1;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      blocks.push({
        kind: "heading",
        text: line.trim(),
        start: lines[i].start,
        end: lines[i].end,
        level: h[1].length,
      });
      i++;
      continue;
    }
    let j = i + 1;
    if (TABLE_LINE.test(line)) {
      while (j < lines.length && TABLE_LINE.test(lines[j].text)) j++;
      push("table", i, j);
    } else {
      while (
        j < lines.length && lines[j].text.trim() && !HEADING.test(lines[j].text) &&
        !FENCE.test(lines[j].text) &&
        !TABLE_LINE.test(lines[j].text)
      ) j++;
      push("text", i, j);
    }
    i = j;
  }
  return blocks;
}

/** Cuts text into pieces of at most `size` characters: between sentences, then words. */
export function splitText(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let cur = "";
  const add = (piece: string, sep: string) => {
    if (!cur) cur = piece;
    else if (cur.length + sep.length + piece.length <= size) cur += sep + piece;
    else {
      out.push(cur);
      cur = piece;
    }
  };
  for (const sentence of text.split(/(?<=[.!?;:])\s+|\n+/)) {
    if (sentence.length <= size) {
      add(sentence, " ");
      continue;
    }
    for (const word of sentence.split(/\s+/)) {
      if (word.length <= size) add(word, " ");
      else for (let k = 0; k < word.length; k += size) add(word.slice(k, k + size), "");
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Cuts a table into pieces of at most `size` characters that each repeat the header rows. */
export function splitTable(table: string, size: number): string[] {
  const rows = table.split("\n");
  const headerCount = rows.length > 1 && TABLE_SEPARATOR.test(rows[1]) ? 2 : 0;
  const header = rows.slice(0, headerCount).join("\n");
  const out: string[] = [];
  let cur = header;
  for (const row of rows.slice(headerCount)) {
    const next = cur ? `${cur}\n${row}` : row;
    if (next.length <= size || cur === header) {
      // A header plus one row that is still too long stays whole: a row is never cut.
      cur = next;
      continue;
    }
    out.push(cur);
    cur = header ? `${header}\n${row}` : row;
  }
  if (cur && cur !== header) out.push(cur);
  return out.length ? out : [table];
}

/** The last `overlap` characters of text, starting at a word boundary. */
function tail(text: string, overlap: number): string {
  if (overlap <= 0 || text.length <= overlap) return overlap <= 0 ? "" : text;
  const cut = text.slice(text.length - overlap);
  const space = cut.search(/\s/);
  return (space >= 0 ? cut.slice(space) : cut).trim();
}

export function chunkMarkdown(md: string, opts: ChunkOptions = {}): Chunk[] {
  const size = opts.size ?? DEFAULT_CHUNK_SIZE;
  const overlap = Math.min(opts.overlap ?? DEFAULT_CHUNK_OVERLAP, Math.floor(size / 2));
  if (!Number.isInteger(size) || size < 20) {
    throw new RangeError("chunk size must be an integer of at least 20");
  }
  const chunks: Chunk[] = [];
  const path: string[] = [];
  let parts: string[] = [];
  let hasBody = false;
  let start = -1;
  let end = -1;

  const emit = () => {
    if (hasBody) {
      chunks.push({
        chunk_index: chunks.length,
        content: parts.join("\n\n"),
        heading: path.filter(Boolean).join(" > ") || null,
        char_start: start,
        char_end: end,
      });
    }
    parts = [];
    hasBody = false;
    start = end = -1;
  };
  const add = (text: string, s: number, e: number, withOverlap: boolean) => {
    const length = parts.reduce((n, p) => n + p.length + 2, 0) + text.length;
    if (parts.length && length > size) {
      const seed = withOverlap && hasBody ? tail(parts.join("\n\n"), overlap) : "";
      emit();
      if (seed && seed.length + 2 + text.length <= size) parts.push(seed);
    }
    parts.push(text);
    hasBody = true;
    if (start < 0) start = s;
    end = e;
  };

  for (const b of markdownBlocks(md)) {
    if (b.kind === "heading") {
      if (hasBody) emit();
      const level = b.level!;
      path.length = level - 1;
      path[level - 1] = HEADING.exec(b.text)![2];
      // The heading line opens its section's first chunk; it counts as body only with text.
      parts.push(b.text);
      if (start < 0) start = b.start;
      end = b.end;
      continue;
    }
    if (b.kind === "table" && b.text.length > size) {
      for (const piece of splitTable(b.text, size)) add(piece, b.start, b.end, false);
      continue;
    }
    const pieces = b.text.length > size ? splitText(b.text, size - overlap - 2) : [b.text];
    for (const piece of pieces) add(piece, b.start, b.end, true);
  }
  // A document of headings alone is still one chunk, so that it can be found.
  if (!chunks.length && parts.length) hasBody = true;
  emit();
  return chunks;
}

/** The text embedded for a chunk: its heading path gives the chunk its context. */
export function embeddingInput(chunk: Pick<Chunk, "heading" | "content">): string {
  return chunk.heading ? `${chunk.heading}\n\n${chunk.content}` : chunk.content;
}
