/**
 * The one rule of every function whose workspace parameter is optional (agent-chat, email-api,
 * messaging-api, flow-engine): a caller who names no workspace works in their only one; a caller
 * who belongs to several must name it. Every user owns a personal workspace (docs/workspaces.md),
 * and it is never a silent default: guessing it would write e-mails, messages, flows or prices
 * into a tenant the caller did not mean. What a caller with no workspace gets stays each
 * function's choice.
 */
import { DomainError } from "../errors.ts";

/**
 * The caller's only membership, null when they have none; several: 400 `workspace_required`
 * naming `field` (as the function spells it) in the message and in `details`.
 */
export function soleWorkspace<T>(memberships: readonly T[], field: string): T | null {
  if (memberships.length <= 1) return memberships[0] ?? null;
  throw new DomainError(
    "invalid",
    "workspace_required",
    `${field} is required: you belong to ${memberships.length} workspaces, so name the one to use ` +
      "(your personal workspace is not a default)",
    [{ path: field.split("."), message: "required when you belong to several workspaces" }],
  );
}
