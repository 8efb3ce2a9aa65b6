/**
 * CRM contacts (crm-contacts-api): the reads and writes behind its routes. `client` acts as the
 * caller (RLS applies the CRM visibility rule: what the caller cannot see is a 404); `service`
 * is the service role, used only for the auth admin API, the set of already-linked users and
 * the users' profiles, after the function has authorised the caller.
 */
import type { z } from "zod";
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { findAuthUser, listAllAuthUsers } from "../supabase/auth_admin.ts";
import { one, page, rows } from "../supabase/postgrest.ts";
import {
  type BulkLinkError,
  type ContactForMatch,
  findPotentialMatches,
  mayLookUpAccounts,
  planBulkLinks,
} from "./matching.ts";
import { type CrmUserRow, toUserRecord, USER_RECORD_COLUMNS } from "./users.ts";
import type { BulkLinkResult, ContactRow, ContactWithRelationships, PotentialMatch } from "./responses.ts";

export type Contact = z.infer<typeof ContactRow>;
export type ContactDetail = z.infer<typeof ContactWithRelationships>;

export const CONTACT = "id, name, email, phone, company, notes, user_id, created_by, created_at, updated_at";
// Two foreign keys lead from relationships to contacts; the hint picks "relationships of this contact".
const CONTACT_WITH_RELATIONSHIPS = `${CONTACT}, crm_contact_relationships!contact_id(*)`;

// PostgREST caps a response at max_rows (1000), so larger sets are read in pages.
const PAGE = 1000;
// Ids per `in.(...)` filter: keeps the URL far below proxies' limits.
const IDS_PER_REQUEST = 100;

/** A new contact, created by the caller (created_by is the caller, set by the database). */
export async function createContact(client: SupabaseClient, body: Record<string, unknown>): Promise<Contact> {
  return one(await client.from("crm_contacts").insert(body).select(CONTACT).single(), "Contact") as Contact;
}

/** One page of the visible contacts, newest first, and their total. */
export async function listContacts(
  client: SupabaseClient,
  [from, to]: [number, number],
): Promise<{ data: Contact[]; count: number }> {
  const r = await client.from("crm_contacts").select(CONTACT, { count: "exact" })
    .order("created_at", { ascending: false }).order("id", { ascending: false }).range(from, to);
  return page(r) as { data: Contact[]; count: number };
}

/** Deletes a visible contact; its relationships and company links go with it (on delete cascade). */
export async function deleteContact(client: SupabaseClient, id: string): Promise<void> {
  one(await client.from("crm_contacts").delete().eq("id", id).select("id").maybeSingle(), "Contact");
}

/** One contact with the relationships it starts, by id or by linked user; 404 when not visible. */
export async function contactDetail(
  client: SupabaseClient,
  by: { id: string } | { user_id: string },
): Promise<ContactDetail> {
  const [column, value] = "id" in by ? ["id", by.id] : ["user_id", by.user_id];
  return one(
    await client.from("crm_contacts").select(CONTACT_WITH_RELATIONSHIPS).eq(column, value).maybeSingle(),
    "Contact",
  ) as ContactDetail;
}

/** Updates a visible contact and returns it (404 when the caller cannot see it). */
export async function updateContact(
  client: SupabaseClient,
  id: string,
  patch: Record<string, unknown>,
): Promise<Contact> {
  return one(
    await client.from("crm_contacts").update(patch).eq("id", id).select(CONTACT).maybeSingle(),
    "Contact",
  ) as Contact;
}

/** Links a contact to an existing platform user (404 "User not found" otherwise). */
export async function linkContactUser(
  client: SupabaseClient,
  service: SupabaseClient,
  id: string,
  userId: string,
): Promise<Contact> {
  if (!(await findAuthUser(service, userId))) throw DomainError.notFound("User not found");
  return await updateContact(client, id, { user_id: userId });
}

/** Unlinked contacts whose email is an unlinked user's email, with the user's platform profile. */
export async function potentialMatches(
  client: SupabaseClient,
  service: SupabaseClient,
): Promise<z.infer<typeof PotentialMatch>[]> {
  // The factory role may not look accounts up by e-mail (matching.ts, mayLookUpAccounts).
  if (!(await mayLookUpAccounts(client))) return [];
  const contacts = await readAllContacts(client);
  const [users, linked] = await Promise.all([listAllAuthUsers(service), linkedUserIds(service)]);
  const matches = findPotentialMatches(contacts, users, linked);
  const profiles = await profilesOf(service, [...new Set(matches.map((m) => m.user.id))]);
  return matches.map((m) => ({ ...m, user: { ...m.user, profile: profiles.get(m.user.id) ?? null } }));
}

/**
 * Links contacts to users item by item: every item succeeds or reports its own error (malformed,
 * repeated in the batch, unknown user, contact not visible, already linked elsewhere).
 */
export async function bulkLink(
  client: SupabaseClient,
  service: SupabaseClient,
  items: readonly unknown[],
): Promise<z.infer<typeof BulkLinkResult>> {
  const { links, errors } = planBulkLinks(items);
  const users = new Set((await listAllAuthUsers(service)).map((u) => u.id));
  const data: Contact[] = [];
  const fail = (e: Omit<BulkLinkError, "error">, error: string) => errors.push({ ...e, error });
  for (const link of links) {
    const ref = { index: link.index, contactId: link.contactId, userId: link.userId };
    if (!users.has(link.userId)) {
      fail(ref, "User not found");
      continue;
    }
    const current = await client.from("crm_contacts").select("id, user_id").eq("id", link.contactId)
      .maybeSingle();
    if (current.error || !current.data) {
      fail(ref, current.error ? current.error.message : "Contact not found");
      continue;
    }
    if (current.data.user_id && current.data.user_id !== link.userId) {
      fail(ref, "Contact is already linked to another user");
      continue;
    }
    const r = await client.from("crm_contacts").update({ user_id: link.userId }).eq("id", link.contactId)
      .select(CONTACT).maybeSingle();
    if (r.error) {
      fail(ref, r.error.code === "23505" ? "User is already linked to another contact" : r.error.message);
    } else if (!r.data) fail(ref, "Contact not found");
    else data.push(r.data as Contact);
  }
  errors.sort((a, b) => a.index - b.index);
  return { data, errors, successCount: data.length, errorCount: errors.length };
}

/** Every unlinked contact with an email that the caller may see (RLS). */
export async function readAllContacts(client: SupabaseClient): Promise<ContactForMatch[]> {
  const out: ContactForMatch[] = [];
  for (let from = 0;; from += PAGE) {
    const page = rows(
      await client.from("crm_contacts").select("id, name, email, user_id").is("user_id", null)
        .not("email", "is", null).order("created_at", { ascending: false }).order("id", { ascending: false })
        .range(from, from + PAGE - 1),
    ) as ContactForMatch[];
    out.push(...page);
    if (page.length < PAGE) return out;
  }
}

/**
 * Users linked to any contact, including contacts the caller cannot see (service role): such a
 * user cannot be linked again, so proposing them would only produce a conflict.
 */
export async function linkedUserIds(service: SupabaseClient): Promise<Set<string>> {
  const out = new Set<string>();
  for (let from = 0;; from += PAGE) {
    const page = rows(
      await service.from("crm_contacts").select("user_id").not("user_id", "is", null).order("id")
        .range(from, from + PAGE - 1),
    ) as { user_id: string }[];
    for (const r of page) out.add(r.user_id);
    if (page.length < PAGE) return out;
  }
}

export interface MatchProfile {
  id: string;
  role_id: string | null;
  subscription_tier: string;
  status: string;
  roles: { id: string; name: string; level: number } | null;
}

/** The platform profiles of the matched users (service role: profiles are admin-only under RLS). */
export async function profilesOf(
  service: SupabaseClient,
  userIds: string[],
): Promise<Map<string, MatchProfile>> {
  const out = new Map<string, MatchProfile>();
  for (let i = 0; i < userIds.length; i += IDS_PER_REQUEST) {
    const batch = rows(
      await service.from("crm_user_records").select(USER_RECORD_COLUMNS)
        .in("user_id", userIds.slice(i, i + IDS_PER_REQUEST)),
    ) as unknown as CrmUserRow[];
    for (const r of batch) {
      const { id, role_id, subscription_tier, status, roles } = toUserRecord(r, null);
      out.set(r.user_id, { id, role_id, subscription_tier, status, roles });
    }
  }
  return out;
}
