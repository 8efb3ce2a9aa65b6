/**
 * Who a send is from (the send's "resolve the sender" stage). `from` is optional (spec "Email"
 * lists it without requiring it):
 *
 * | the send names                          | the email is from                                     |
 * | --------------------------------------- | ----------------------------------------------------- |
 * | `from`                                  | that address, at a verified domain of the workspace   |
 * |                                         | (else 403 unverified_sender)                          |
 * | no `from`; the workspace has a verified | `<EMAIL_DEFAULT_LOCAL_PART>@` (`noreply@` unless set) |
 * | domain                                  | its default domain, else its earliest verified one    |
 * | no `from`; no verified domain           | the platform's own sender: EMAIL_PLATFORM_FROM, named |
 * |                                         | EMAIL_PLATFORM_FROM_NAME                              |
 * | no `from`, no domain, no platform sender| nothing: 400 `from_required` naming `from`            |
 *
 * The platform sender is the platform's own verified address, configured like Supabase's auth
 * mail sender (SMTP admin email and sender name); the local platform sets it to Resend's test
 * sender `onboarding@resend.dev`. A `fromName` in the send names the sender in every case.
 */
import { z } from "zod";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";
import { rows } from "../supabase/postgrest.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { verifiedSenderDomain } from "./domains.ts";

export interface Sender {
  address: string;
  name: string | null;
  /** The workspace's domain the email goes out from; null for the platform sender. */
  domainId: string | null;
}

export const DEFAULT_LOCAL_PART = "noreply";
/** RFC 5322 dot-atom local part, as the addresses z.email() accepts. */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/** The rule of the send's fromName: no <, >, " or line breaks, at most 200 characters. */
const DISPLAY_NAME = /^[^<>"\r\n]{1,200}$/;

function misconfigured(variable: string, value: string): DomainError {
  return DomainError.unavailable(
    `The email sender is misconfigured: ${variable} (${value}) is not valid`,
    "email_sender_misconfigured",
  );
}

function localPart(): string {
  const v = env("EMAIL_DEFAULT_LOCAL_PART") ?? DEFAULT_LOCAL_PART;
  if (v.length > 64 || !LOCAL_PART.test(v)) throw misconfigured("EMAIL_DEFAULT_LOCAL_PART", v);
  return v.toLowerCase();
}

/** The platform's own sender from the environment, or null when none is configured. */
export function platformSender(): { address: string; name: string | null } | null {
  const address = env("EMAIL_PLATFORM_FROM");
  if (!address) return null;
  if (!z.email().safeParse(address).success) throw misconfigured("EMAIL_PLATFORM_FROM", address);
  const name = env("EMAIL_PLATFORM_FROM_NAME") ?? null;
  if (name !== null && !DISPLAY_NAME.test(name)) throw misconfigured("EMAIL_PLATFORM_FROM_NAME", name);
  return { address: address.toLowerCase(), name };
}

/** The workspace's default verified domain: the one marked default if verified, else the earliest. */
async function defaultDomain(s: WorkspaceScope): Promise<{ id: string; domain: string } | null> {
  const r = await s.service.from("email_domains").select("id, domain").eq("workspace_id", s.workspaceId)
    .eq("verification_status", "verified").order("is_default", { ascending: false })
    .order("created_at").order("id").limit(1);
  return (rows(r, "Email domain") as { id: string; domain: string }[])[0] ?? null;
}

export async function resolveSender(
  s: WorkspaceScope,
  input: { from?: string; fromName?: string },
): Promise<Sender> {
  const name = input.fromName ?? null;
  if (input.from) {
    return { address: input.from, name, domainId: await verifiedSenderDomain(s, input.from) };
  }
  const domain = await defaultDomain(s);
  if (domain) return { address: `${localPart()}@${domain.domain}`, name, domainId: domain.id };
  const platform = platformSender();
  if (platform) return { address: platform.address, name: name ?? platform.name, domainId: null };
  throw DomainError.invalid(
    "from is required: this workspace has no verified sending domain (add-domain, then " +
      "mark-domain-verified) and no platform sender is configured (EMAIL_PLATFORM_FROM)",
    { field: "from" },
    "from_required",
  );
}
