/** Template rendering, table-driven: placeholders, escaping per part, missing variables. */
import assert from "node:assert/strict";
import { renderTemplate } from "@shared/email/mod.ts";
import type { EmailTemplate } from "@shared/email/templates.ts";
import { DomainError } from "@shared/errors.ts";

const T = (over: Partial<EmailTemplate>): EmailTemplate => ({
  id: "t",
  subject: "Hi {{name}}",
  html_content: null,
  text_content: null,
  variables: [],
  email_type: "transactional",
  ...over,
});

Deno.test("placeholders are filled per part: HTML escaped, subject and text as given", () => {
  const cases: [
    Partial<EmailTemplate>,
    Record<string, string | number | boolean>,
    ReturnType<typeof renderTemplate>,
  ][] = [
    [{ html_content: "<b>{{name}}</b>" }, { name: "A&B" }, { subject: "Hi A&B", html: "<b>A&#38;B</b>" }],
    [{ text_content: "{{ name }} / {{n}}" }, { name: "<x>", n: 3 }, { subject: "Hi <x>", text: "<x> / 3" }],
    [{ text_content: "{{unknown}} stays" }, { name: "A" }, { subject: "Hi A", text: "{{unknown}} stays" }],
    [{ subject: "{{s}}", text_content: "x" }, { s: "line\r\nbreak" }, { subject: "line break", text: "x" }],
    [{ html_content: "{{ok}}", text_content: "{{ok}}" }, { ok: true, name: "n" }, {
      subject: "Hi n",
      html: "true",
      text: "true",
    }],
  ];
  for (const [tpl, vars, want] of cases) assert.deepEqual(renderTemplate(T(tpl), vars), want);
});

Deno.test("a declared variable that is not supplied is a 400-kind error naming it", () => {
  assert.throws(
    () => renderTemplate(T({ text_content: "x", variables: ["a", "b"] }), { a: 1 }),
    (e) =>
      e instanceof DomainError && e.kind === "invalid" && e.code === "missing_variables" &&
      /b/.test(e.message),
  );
});
