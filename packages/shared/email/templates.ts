/**
 * Template rendering: {{name}} placeholders (whitespace allowed inside the braces) take the
 * send's `variables`. Values are HTML-escaped in the HTML part and inserted as they are in the
 * subject and text part. Every variable the template declares must be supplied; a placeholder
 * the template does not declare and the send does not supply stays as written. Plain html/text
 * (no template) are never rendered: they go out as written, `{{...}}` included (the rule of
 * messaging/template.ts too).
 */
import { DomainError } from "../errors.ts";

export interface EmailTemplate {
  id: string;
  subject: string;
  html_content: string | null;
  text_content: string | null;
  variables: string[];
  email_type: string;
}

export type TemplateVariables = Record<string, string | number | boolean>;

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function fill(text: string, vars: TemplateVariables, escape: (s: string) => string): string {
  return text.replace(
    PLACEHOLDER,
    (whole, name: string) => Object.hasOwn(vars, name) ? escape(String(vars[name])) : whole,
  );
}

export interface RenderedEmail {
  subject: string;
  html?: string;
  text?: string;
}

export function renderTemplate(t: EmailTemplate, vars: TemplateVariables, subject?: string): RenderedEmail {
  const missing = t.variables.filter((v) => !Object.hasOwn(vars, v));
  if (missing.length) {
    throw DomainError.invalid(
      `Missing template variables: ${missing.join(", ")}`,
      { missing },
      "missing_variables",
    );
  }
  const same = (s: string) => s;
  return {
    subject: fill(subject ?? t.subject, vars, same).replace(/[\r\n]+/g, " "),
    ...(t.html_content !== null ? { html: fill(t.html_content, vars, escapeHtml) } : {}),
    ...(t.text_content !== null ? { text: fill(t.text_content, vars, same) } : {}),
  };
}
