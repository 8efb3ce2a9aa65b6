/**
 * email-api's actions as one table: who may run each (the spec's roles, read in the workspace
 * the function authorised) and what it answers. The function validates the body, builds the
 * WorkspaceScope with the action's roles and calls `runEmailAction`.
 */
import { MEMBER_ROLES, type WorkspaceRoleName, WRITER_ROLES } from "../auth/context.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { DomainError } from "../errors.ts";
import { addDomain, listDomains, markDomainVerified } from "./domains.ts";
import { emailAnalytics, listLogs } from "./reports.ts";
import { type EmailApiRequest, REMOVED_ACTIONS } from "./schemas.ts";
import { sendEmail } from "./send.ts";

/** The spec's "admin" for add-domain and mark-domain-verified: the workspace's owners and admins. */
const DOMAIN_ADMINS: readonly WorkspaceRoleName[] = ["owner", "admin"];

export const EMAIL_ACTIONS: Record<
  EmailApiRequest["action"],
  { roles: readonly WorkspaceRoleName[]; what: string }
> = {
  send: { roles: WRITER_ROLES, what: "Sending email" },
  "add-domain": { roles: DOMAIN_ADMINS, what: "Adding a domain" },
  "mark-domain-verified": { roles: DOMAIN_ADMINS, what: "Verifying a domain" },
  domains: { roles: MEMBER_ROLES, what: "Listing domains" },
  logs: { roles: MEMBER_ROLES, what: "Reading email logs" },
  analytics: { roles: MEMBER_ROLES, what: "Reading email analytics" },
};

/** An action removed on 2026-03-11 is a 400 `action_removed` naming it. */
export function refuseRemovedAction(action: string): void {
  if ((REMOVED_ACTIONS as readonly string[]).includes(action)) {
    throw new DomainError(
      "invalid",
      "action_removed",
      `The action '${action}' was removed on 2026-03-11 ` +
        `(the email provider changed); domains are verified with add-domain and mark-domain-verified`,
    );
  }
}

/** Runs one action for the scope and returns its answer ({success, ...}). */
export async function runEmailAction(s: WorkspaceScope, req: EmailApiRequest) {
  switch (req.action) {
    case "send":
      return { success: true as const, ...await sendEmail(s, req) };
    case "add-domain":
      return { success: true as const, ...await addDomain(s, req.domain) };
    case "mark-domain-verified":
      await markDomainVerified(s, req.domain);
      return { success: true as const };
    case "domains":
      return { success: true as const, domains: await listDomains(s) };
    case "logs":
      return { success: true as const, logs: await listLogs(s, req) };
    case "analytics":
      return await emailAnalytics(s, req);
  }
}
