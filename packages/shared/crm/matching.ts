/**
 * Matching CRM contacts to platform users by email (GET /potential-matches), and checking a
 * bulk-link request item by item (POST /bulk-link), as plain functions over rows already read.
 */
import { BulkLinkItem } from "./schemas.ts";
import { describeIssues } from "../http/validate.ts";
import type { SupabaseClient } from "../supabase/clients.ts";

/** Emails compare trimmed and case-insensitively (the local part is case-insensitive in practice). */
export function normalizeEmail(email: string | null | undefined): string | null {
  const e = email?.trim().toLowerCase();
  return e ? e : null;
}

export interface ContactForMatch {
  id: string;
  name: string;
  email: string | null;
  user_id: string | null;
}

export interface UserForMatch {
  id: string;
  email?: string | null;
}

export interface PotentialMatch {
  contact: { id: string; name: string; email: string | null };
  user: { id: string; email: string };
}

/**
 * Contacts not linked yet whose email is a user's email, paired with that user. Users already
 * linked to some contact are left out: a user is one contact at most (crm_contacts.user_id is
 * unique), so proposing them again could only fail. Contact order is kept.
 */
export function findPotentialMatches(
  contacts: readonly ContactForMatch[],
  users: readonly UserForMatch[],
  linkedUserIds: ReadonlySet<string>,
): PotentialMatch[] {
  const byEmail = new Map<string, UserForMatch>();
  for (const u of users) {
    const e = normalizeEmail(u.email);
    if (e && !linkedUserIds.has(u.id) && !byEmail.has(e)) byEmail.set(e, u);
  }
  const out: PotentialMatch[] = [];
  for (const c of contacts) {
    if (c.user_id) continue;
    const e = normalizeEmail(c.email);
    const u = e ? byEmail.get(e) : undefined;
    if (!u) continue;
    out.push({
      contact: { id: c.id, name: c.name, email: c.email },
      user: { id: u.id, email: u.email! },
    });
  }
  return out;
}

/**
 * Whether the caller may see which platform accounts match contacts' e-mails (the account's id,
 * role, tier and status): admins, managers and the service role; not the factory role, which
 * learns nothing about accounts its own contacts do not already link. The rule is the database's
 * `public.crm_may_look_up_accounts()` (migration 20260121000120), asked as the caller; a caller
 * it cannot answer for is refused the lookup, never granted it.
 */
export async function mayLookUpAccounts(client: SupabaseClient): Promise<boolean> {
  const { data, error } = await client.rpc("crm_may_look_up_accounts");
  if (error) throw new Error(`crm_may_look_up_accounts failed: ${error.message}`);
  return data === true;
}

export interface BulkLinkError {
  index: number;
  contactId: string | null;
  userId: string | null;
  error: string;
}

export interface PlannedLink {
  index: number;
  contactId: string;
  userId: string;
}

/**
 * Splits bulk-link items into well-formed links and per-item errors: a malformed item, or a
 * contact or user named twice in the batch (the later ones fail, as they would conflict).
 */
export function planBulkLinks(items: readonly unknown[]): { links: PlannedLink[]; errors: BulkLinkError[] } {
  const links: PlannedLink[] = [];
  const errors: BulkLinkError[] = [];
  const contacts = new Set<string>();
  const users = new Set<string>();
  items.forEach((item, index) => {
    const r = BulkLinkItem.safeParse(item);
    if (!r.success) {
      const raw = (item ?? {}) as Record<string, unknown>;
      errors.push({
        index,
        contactId: typeof raw.contactId === "string" ? raw.contactId : null,
        userId: typeof raw.userId === "string" ? raw.userId : null,
        error: `Invalid link: ${describeIssues(r.error.issues)}`,
      });
      return;
    }
    const contactId = r.data.contactId.toLowerCase();
    const userId = r.data.userId.toLowerCase();
    if (contacts.has(contactId) || users.has(userId)) {
      errors.push({
        index,
        contactId,
        userId,
        error: "Contact or user already appears earlier in this batch",
      });
      return;
    }
    contacts.add(contactId);
    users.add(userId);
    links.push({ index, contactId, userId });
  });
  return { links, errors };
}
