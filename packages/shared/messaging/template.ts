/**
 * `{{name}}` placeholders in messages (spec "Messaging": templates have content with
 * {{variable}} placeholders and declare their `variables`). One rule, the same as email's:
 *
 * - a template's declared variables are its variables: every one must be given, and a missing
 *   one is an error naming it (`missing_variable`), before anything is sent or logged;
 * - every placeholder whose name was given takes that value (send-bulk's per-recipient
 *   variables fill plain content too); values are inserted once, never expanded again;
 * - any other `{{...}}` is text and goes out as written: plain content is never refused for
 *   its braces (a flow's unresolved `{{trigger.data.x}}` stays literal, as the spec says).
 */
import { DomainError } from "../errors.ts";

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export type Variables = Record<string, string | number | boolean>;

/** The placeholders of a text, in order of first appearance. */
export function placeholders(content: string): string[] {
  return [...new Set([...content.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

function requireDeclared(declared: readonly string[], variables: Variables): void {
  const missing = declared.filter((name) => !Object.hasOwn(variables, name));
  if (missing.length) {
    throw DomainError.invalid(
      `Missing template variable${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`,
      { missing },
      "missing_variable",
    );
  }
}

/**
 * Fills the placeholders `variables` has a value for; `declared` (a template's variables) must
 * all be given. Plain content has none declared, so it is never refused.
 */
export function renderTemplate(
  content: string,
  variables: Variables,
  declared: readonly string[] = [],
): string {
  requireDeclared(declared, variables);
  return content.replace(
    PLACEHOLDER,
    (whole, name: string) => Object.hasOwn(variables, name) ? String(variables[name]) : whole,
  );
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
  requireDeclared(declared, variables);
  declared.forEach((name, i) => out[/^\d+$/.test(name) ? name : String(i + 1)] = String(variables[name]));
  return out;
}
