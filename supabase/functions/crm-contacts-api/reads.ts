/** The multi-page reads behind GET /potential-matches. */
import type { SupabaseClient } from "@shared/supabase/clients.ts";
import { rows } from "@shared/supabase/postgrest.ts";
import { type ContactForMatch, type CrmUserRow, toUserRecord, USER_RECORD_COLUMNS } from "@shared/crm/mod.ts";

// PostgREST caps a response at max_rows (1000), so larger sets are read in pages.
const PAGE = 1000;
// Ids per `in.(...)` filter: keeps the URL far below proxies' limits.
const IDS_PER_REQUEST = 100;

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
    ) as CrmUserRow[];
    for (const r of batch) {
      const { id, role_id, subscription_tier, status, roles } = toUserRecord(r, null);
      out.set(r.user_id, { id, role_id, subscription_tier, status, roles });
    }
  }
  return out;
}
