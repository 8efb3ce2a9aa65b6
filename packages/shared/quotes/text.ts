/**
 * Text for the PDF's standard fonts. Helvetica in a PDF writer like pdf-lib encodes WinAnsi
 * only, so any other character would make rendering throw: characters the font lacks are
 * replaced by their unaccented form when Unicode decomposition gives one (ő -> o), else by "?"
 * (Ł has no decomposition). Wrapping is greedy by words, breaking words longer than a line.
 */

/** Replaces characters outside `charset` (code points the font can draw). */
export function toFontText(text: string, charset: ReadonlySet<number>): string {
  let out = "";
  for (const ch of text.replace(/\r\n?|\n|\t/g, " ")) {
    const cp = ch.codePointAt(0)!;
    if (charset.has(cp)) {
      out += ch;
      continue;
    }
    const base = ch.normalize("NFKD").replace(/\p{M}/gu, "");
    const usable = base !== "" && [...base].every((c) => charset.has(c.codePointAt(0)!));
    out += usable ? base : "?";
  }
  return out;
}

/**
 * Splits `text` into lines no wider than `maxWidth` as measured by `measure`. Hard line breaks
 * are kept; empty input gives one empty line.
 */
export function wrapText(text: string, maxWidth: number, measure: (s: string) => number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r\n?|\n/)) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter((w) => w !== "")) {
      const candidate = line === "" ? word : `${line} ${word}`;
      if (measure(candidate) <= maxWidth) {
        line = candidate;
        continue;
      }
      if (line !== "") lines.push(line);
      line = "";
      // A word wider than the line is cut into pieces that fit.
      let rest = word;
      while (measure(rest) > maxWidth) {
        let cut = rest.length - 1;
        while (cut > 1 && measure(rest.slice(0, cut)) > maxWidth) cut--;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}
