/**
 * Builds small, valid PDFs for the kb_create_from_pdf tests: one page per entry of `pages`, each
 * line drawn in Helvetica, with a correct cross-reference table and an optional /Title.
 * Used by the AI tests (tests/ai/) and the pipeline's batch tests.
 */
function escapePdf(s: string): string {
  return s.replace(/[\\()]/g, (ch) => `\\${ch}`);
}

export function makePdf(pages: string[][], title?: string): Uint8Array<ArrayBuffer> {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${
    pageIds.map((id) => `${id} 0 R`).join(" ")
  }] /Count ${pages.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  pages.forEach((lines, i) => {
    const id = pageIds[i];
    const text = lines.map((l, j) => `${j === 0 ? "72 720 Td" : "0 -16 Td"} (${escapePdf(l)}) Tj`).join(" ");
    const stream = `BT /F1 11 Tf ${text} ET`;
    objects[id] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${id + 1} 0 R ` +
      `/Resources << /Font << /F1 3 0 R >> >> >>`;
    objects[id + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  const infoId = objects.length;
  if (title) objects[infoId] = `<< /Title (${escapePdf(title)}) >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R${title ? ` /Info ${infoId} 0 R` : ""} >>\n`;
  out += `startxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

export function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
