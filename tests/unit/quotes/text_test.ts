// Text for the PDF's WinAnsi fonts, and word wrapping, with a fixed-width fake font.
import assert from "node:assert/strict";
import { toFontText, wrapText } from "@shared/quotes/mod.ts";

// Printable ASCII plus a few Latin-1 letters, like a standard font's character set.
const charset = new Set<number>([
  ...Array.from({ length: 95 }, (_, i) => 32 + i),
  ..."éöüß€".split("").map((c) => c.codePointAt(0)!),
]);

Deno.test("toFontText keeps what the font has, strips accents it lacks, else ?", () => {
  const cases: [string, string][] = [
    ["Plain text 123", "Plain text 123"],
    ["Café Müller € 5", "Café Müller € 5"],
    ["Őrség ő", "Orség o"], // Ő/ő are not in the font, their base letters are; é is kept
    ["Łódź", "?odz"], // Ł has no decomposition; ó -> o, ź -> z
    ["漢字", "??"],
    ["tab\there\nnew line", "tab here new line"],
    ["emoji 🙂", "emoji ?"],
  ];
  for (const [input, want] of cases) assert.equal(toFontText(input, charset), want, input);
});

const mono = (s: string) => s.length; // one point per character

Deno.test("wrapText: greedy by words within the width", () => {
  const cases: [string, number, string[]][] = [
    ["", 10, [""]],
    ["short", 10, ["short"]],
    ["one two three four", 9, ["one two", "three", "four"]],
    ["one two three four", 100, ["one two three four"]],
    ["  spaced   out  ", 20, ["spaced out"]],
    ["first\nsecond line", 20, ["first", "second line"]],
    ["abcdefghijklmnop", 5, ["abcde", "fghij", "klmno", "p"]],
    ["ab abcdefghij", 4, ["ab", "abcd", "efgh", "ij"]],
  ];
  for (const [text, width, want] of cases) {
    assert.deepEqual(wrapText(text, width, mono), want, JSON.stringify(text));
  }
});

Deno.test("wrapText never returns a line wider than the width", () => {
  const text = "Porcelain tile 60x60 rectified, matt, R10; Supercalifragilisticexpialidocious finish";
  for (const width of [3, 7, 12, 25]) {
    for (const line of wrapText(text, width, mono)) assert.ok(line.length <= width, `${width}: ${line}`);
  }
});
