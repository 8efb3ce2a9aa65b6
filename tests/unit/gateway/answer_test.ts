/**
 * The gateway's data for an action whose backend answers its object one level down (`unwrap`):
 * the object itself, the answer's other members beside its fields, the object's fields winning a
 * clash; no object under the member is no answer (the gateway makes that a 502).
 */
import assert from "node:assert/strict";
import { GATEWAY_ACTIONS, unwrapObject } from "../../../packages/shared/gateway/mod.ts";

Deno.test("unwrapObject: the object as data, the rest beside it", () => {
  const cases: [unknown, string, unknown][] = [
    [{ document: { id: "d", title: "T" } }, "document", { id: "d", title: "T" }],
    [
      { document: { id: "d" }, created: true, re_embedded: false, warnings: [] },
      "document",
      { id: "d", created: true, re_embedded: false, warnings: [] },
    ],
    // The object's own field wins: image_uploads has analysis and model columns.
    [{ image: { id: "i", model: "m1" }, model: "m2", analysis: {} }, "image", {
      id: "i",
      model: "m1",
      analysis: {},
    }],
    [{ category: null }, "category", null],
    [{ category: [{ id: "c" }] }, "category", null],
    [{ categories: [] }, "category", null],
    [[{ document: { id: "d" } }], "document", null],
    ["text", "document", null],
  ];
  for (const [json, member, want] of cases) {
    assert.deepEqual(unwrapObject(json, member), want, JSON.stringify(json));
  }
});

Deno.test("the actions answered one level down are declared in the action map", () => {
  const unwrapped = Object.entries(GATEWAY_ACTIONS).filter(([, s]) => s.unwrap).map((
    [a, s],
  ) => [a, s.unwrap]);
  assert.deepEqual(unwrapped.sort(), [
    ["admin_prompts_get", "prompt"],
    ["admin_prompts_update", "prompt"],
    ["images_upload_analyze", "image"],
    ["kb_create_attachment", "attachment"],
    ["kb_create_category", "category"],
    ["kb_create_document", "document"],
    ["kb_create_from_pdf", "document"],
    ["kb_get_document", "document"],
    ["kb_update_document", "document"],
  ]);
});
