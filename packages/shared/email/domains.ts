/**
 * Sending domains (spec "Email": add-domain, mark-domain-verified, domains). A domain starts
 * `pending`; DNS is confirmed outside the service and an admin then marks it `verified`. Only a
 * verified domain of the workspace may appear in `from`, and a domain is verified for one
 * workspace at most (a unique index), so no tenant sends as another's domain.
 */
import { DomainError } from "../errors.ts";
import { one, rows } from "../supabase/postgrest.ts";
import type { DomainRecord } from "./schemas.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { createProviderDomain } from "./provider.ts";

const DOMAIN_COLUMNS =
  "id, domain, verification_status, is_default, bounce_rate, complaint_rate, reputation_status, created_at";

type DomainRow = Omit<DomainRecord, "bounce_rate" | "complaint_rate"> & {
  bounce_rate: number | string;
  complaint_rate: number | string;
};

function record(r: DomainRow): DomainRecord {
  return { ...r, bounce_rate: Number(r.bounce_rate), complaint_rate: Number(r.complaint_rate) };
}

export async function listDomains(s: WorkspaceScope): Promise<DomainRecord[]> {
  const r = await s.db.from("email_domains").select(DOMAIN_COLUMNS).eq("workspace_id", s.workspaceId)
    .order("created_at").order("id");
  return rows(r, "Email domain").map((d) => record(d as DomainRow));
}

export const ADD_DOMAIN_MESSAGE =
  "Domain added as pending. Publish the DNS records the email provider lists " +
  "for it (SPF and DKIM); once they resolve, a workspace admin marks it verified with mark-domain-verified.";

/** Registers the domain with the provider and records it as pending; the first one is the default. */
export async function addDomain(s: WorkspaceScope, domain: string) {
  const existing = rows(
    await s.service.from("email_domains").select("workspace_id, domain").eq("workspace_id", s.workspaceId),
    "Email domain",
  ) as { workspace_id: string; domain: string }[];
  if (existing.some((d) => d.domain === domain)) {
    throw DomainError.conflict(
      `The domain ${domain} is already added to this workspace`,
      undefined,
      "domain_exists",
    );
  }
  // The provider account is the platform's: a domain is registered there once, for one workspace.
  const elsewhere = rows(
    await s.service.from("email_domains").select("id").eq("domain", domain).limit(1),
    "Email domain",
  ) as unknown[];
  if (elsewhere.length) {
    throw DomainError.conflict(
      `The domain ${domain} is registered by another workspace`,
      undefined,
      "domain_taken",
    );
  }
  const provider = await createProviderDomain(domain);
  const row = one(
    await s.service.from("email_domains").insert({
      workspace_id: s.workspaceId,
      domain,
      is_default: existing.length === 0,
      provider_domain_id: provider.id,
      dns_records: provider.records,
      created_by: s.userId,
    }).select("id, domain, verification_status, created_at").single(),
    "Email domain",
  ) as Pick<DomainRecord, "id" | "domain" | "verification_status" | "created_at">;
  return { domain: row, message: ADD_DOMAIN_MESSAGE };
}

export async function markDomainVerified(s: WorkspaceScope, domain: string): Promise<void> {
  one(
    await s.service.from("email_domains")
      .update({ verification_status: "verified", verified_at: new Date().toISOString() })
      .eq("workspace_id", s.workspaceId).eq("domain", domain).select("id").maybeSingle(),
    "Email domain",
  );
}

/** The verified domain of the workspace that `from` is at; 403 when there is none. */
export async function verifiedSenderDomain(s: WorkspaceScope, from: string): Promise<string> {
  const domain = from.slice(from.lastIndexOf("@") + 1);
  const r = await s.service.from("email_domains").select("id").eq("workspace_id", s.workspaceId)
    .eq("domain", domain).eq("verification_status", "verified").maybeSingle();
  const row = rows(r, "Email domain") as { id: string } | null;
  if (!row) {
    throw DomainError.forbidden(
      `The sender ${from} is not at a verified domain of this workspace (${domain})`,
      "unverified_sender",
    );
  }
  return row.id;
}
