/**
 * CRM companies (crm-companies-api): the reads and writes behind its routes, all as the caller
 * (`client`), so RLS applies the CRM visibility rule: what the caller cannot see is a 404.
 * Contact links go with their company (on delete cascade); the contacts themselves stay.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { one, page } from "../supabase/postgrest.ts";
import { companySearchFilter } from "./search.ts";

const LINK = "id, company_id, contact_id, role, is_primary, notes, created_at";
const COMPANY_WITH_CONTACTS = `*, crm_company_contacts(${LINK}, crm_contacts(*))`;

export async function createCompany(client: SupabaseClient, body: Record<string, unknown>) {
  return one(await client.from("crm_companies").insert(body).select("*").single(), "Company");
}

/** One page, newest first; the search term is escaped and quoted (companySearchFilter). */
export async function listCompanies(client: SupabaseClient, [from, to]: [number, number], search?: string) {
  let query = client.from("crm_companies").select("*", { count: "exact" });
  if (search) query = query.or(companySearchFilter(search));
  return page(
    await query.order("created_at", { ascending: false }).order("id", { ascending: false }).range(from, to),
  );
}

export async function getCompany(client: SupabaseClient, id: string) {
  return one(
    await client.from("crm_companies").select(COMPANY_WITH_CONTACTS).eq("id", id).maybeSingle(),
    "Company",
  );
}

export async function updateCompany(client: SupabaseClient, id: string, body: Record<string, unknown>) {
  return one(
    await client.from("crm_companies").update(body).eq("id", id).select("*").maybeSingle(),
    "Company",
  );
}

export async function deleteCompany(client: SupabaseClient, id: string): Promise<void> {
  one(await client.from("crm_companies").delete().eq("id", id).select("id").maybeSingle(), "Company");
}

/** Both ends must be visible: the insert policy says so too, but this names the missing one. */
export async function linkContact(
  client: SupabaseClient,
  companyId: string,
  body: { contact_id: string } & Record<string, unknown>,
) {
  one(await client.from("crm_companies").select("id").eq("id", companyId).maybeSingle(), "Company");
  one(await client.from("crm_contacts").select("id").eq("id", body.contact_id).maybeSingle(), "Contact");
  return one(
    await client.from("crm_company_contacts").insert({ ...body, company_id: companyId })
      .select(`${LINK}, crm_contacts(*)`).single(),
    "Company contact",
  );
}

export async function unlinkContact(
  client: SupabaseClient,
  companyId: string,
  linkId: string,
): Promise<void> {
  one(
    await client.from("crm_company_contacts").delete().eq("id", linkId).eq("company_id", companyId)
      .select("id").maybeSingle(),
    "Company contact",
  );
}
