// Where quote PDFs are stored and when a stored one is served again.
import assert from "node:assert/strict";
import {
  PDF_LAYOUT_VERSION,
  pdfDecision,
  pdfFingerprint,
  QUOTE_PDF_URL_SECONDS,
  quotePdfPath,
} from "@shared/quotes/mod.ts";

const quote = {
  id: "11111111-1111-4111-8111-111111111111",
  workspace_id: "22222222-2222-4222-8222-222222222222",
};

Deno.test("signed URLs last the spec's 7 days", () => {
  assert.equal(QUOTE_PDF_URL_SECONDS, 604800);
});

Deno.test("quotePdfPath: workspace folder first (the read policy checks it), safe file name", () => {
  const at = new Date("2026-03-04T05:06:07.891Z");
  const cases: [string, string][] = [
    ["Q-2026-000001", "Q-2026-000001"],
    ["Q 2026/07 ü", "Q_2026_07_"],
    ["../../etc", ".._.._etc"],
  ];
  for (const [number, safe] of cases) {
    const path = quotePdfPath({ quote: { ...quote, quote_number: number } as never }, at, "ab-cd-ef");
    assert.equal(path, `${quote.workspace_id}/${quote.id}/${safe}-20260304T050607Z-abcdef.pdf`);
    assert.equal(path.split("/").length, 3, "no extra folders from the quote number");
  }
});

Deno.test("pdfDecision: reuse only an unchanged, existing PDF when not asked to regenerate", () => {
  const stored = {
    storage_path: "w/q/a.pdf",
    fingerprint: `v${PDF_LAYOUT_VERSION}:abc`,
    generated_at: "2026-01-01T00:00:00Z",
  };
  const oldLayout = { ...stored, fingerprint: `v${PDF_LAYOUT_VERSION - 1}:abc` };
  const none = { storage_path: null, fingerprint: null, generated_at: null };
  const cases: [string, Parameters<typeof pdfDecision>[0], boolean, ReturnType<typeof pdfDecision>][] = [
    ["unchanged", { fingerprint: "abc", pdf: stored }, false, { action: "reuse", path: "w/q/a.pdf" }],
    ["regenerate", { fingerprint: "abc", pdf: stored }, true, { action: "render", reason: "requested" }],
    ["never generated", { fingerprint: "abc", pdf: none }, false, { action: "render", reason: "missing" }],
    ["changed", { fingerprint: "xyz", pdf: stored }, false, { action: "render", reason: "changed" }],
    ["older layout", { fingerprint: "abc", pdf: oldLayout }, false, { action: "render", reason: "changed" }],
  ];
  for (const [name, doc, regenerate, want] of cases) {
    assert.deepEqual(pdfDecision(doc, regenerate), want, name);
  }
});

Deno.test("pdfFingerprint records the layout version with the content fingerprint", () => {
  assert.equal(pdfFingerprint({ fingerprint: "0123" }), `v${PDF_LAYOUT_VERSION}:0123`);
});
