/**
 * `{{variable}}` substitution for message templates: every placeholder must have a value, and a
 * missing one is an error naming it (a message never goes out with a hole or a literal `{{x}}`).
 */
import { DomainError } from "../errors.ts";

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export type Variables = Record<string, string | number | boolean>;

/** The placeholders of a template, in order of first appearance. */
export function placeholders(content: string): string[] {
  return [...new Set([...content.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

export function renderTemplate(content: string, variables: Variables): string {
  const missing = placeholders(content).filter((name) => !Object.hasOwn(variables, name));
  if (missing.length) {
    throw DomainError.invalid(
      `Missing template variable${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`,
      { missing },
      "missing_variable",
    );
  }
  return content.replace(PLACEHOLDER, (_, name: string) => String(variables[name]));
}

/**
 * WhatsApp Content API variables (ContentVariables): Twilio numbers them "1", "2" ... in the
 * order the template declares its variables; names that are already numbers pass through.
 */
export function contentVariables(declared: readonly string[], variables: Variables): Record<string, string> {
  const out: Record<string, string> = {};
  if (declared.length === 0) {
    for (const [k, v] of Object.entries(variables)) out[k] = String(v);
    return out;
  }
  const missing = declared.filter((name) => !Object.hasOwn(variables, name));
  if (missing.length) {
    throw DomainError.invalid(
      `Missing template variable${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`,
      {
        missing,
      },
      "missing_variable",
    );
  }
  declared.forEach((name, i) => out[/^\d+$/.test(name) ? name : String(i + 1)] = String(variables[name]));
  return out;
}
