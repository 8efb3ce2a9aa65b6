/** Stored object paths: the TypeScript rule the AI backend applies before storing (mirrors the SQL one). */
import assert from "node:assert/strict";
import { isSafeObjectPath, safeFileName } from "@shared/storage/paths.ts";

Deno.test("isSafeObjectPath refuses dot segments, encoded forms, backslashes and empty segments", () => {
  for (
    const bad of [
      "",
      "u/../v/f.pdf",
      "u/%2e%2e/v/f.pdf",
      "u/..%2Fv/f.pdf",
      "u/%252e%252e/f",
      "u\\..\\v",
      "u/./f",
      "u//f",
      "/u/f",
      "u/f/",
      "..",
      "u/f\u0000.pdf",
      "u/" + "a".repeat(1100),
    ]
  ) {
    assert.equal(isSafeObjectPath(bad), false, JSON.stringify(bad));
  }
  for (const good of ["u/job/f.pdf", "u/job/a..b.pdf", "u/.hidden-not-a-dot-segment"]) {
    assert.equal(isSafeObjectPath(good), true, good);
  }
});

Deno.test("safeFileName turns any client name into one safe segment", () => {
  for (const name of ["../../etc/passwd", "..", "%2e%2e%2fx.pdf", "a/../b.pdf", "..\\..\\x", ".", ""]) {
    const segment = safeFileName(name);
    assert.equal(isSafeObjectPath(`u/job/${segment}`), true, `${name} -> ${segment}`);
    assert.equal(segment.includes("/"), false);
  }
  assert.equal(safeFileName("Price list 2026.pdf"), "Price_list_2026.pdf");
});
