/**
 * Platform user records (crm-users-api): profiles, roles, credits and AI usage read and written
 * as the calling admin (`client`: RLS grants admins every profile); only the emails come from
 * the auth admin API with the service role (`service`). Deleting a user's records is one SQL
 * function (profile and credits in one transaction); the auth account stays.
 */
import type { z } from "zod";
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { findAuthUser, listAllAuthUsers } from "../supabase/auth_admin.ts";
import { one, page, rows } from "../supabase/postgrest.ts";
import type { UpdateUserBody } from "./schemas.ts";
import { type CrmUserRow, toUserRecord, USER_RECORD_COLUMNS, type UserRecord } from "./users.ts";
import type { AiUsageReport } from "./responses.ts";

const USAGE = "id, user_id, workspace_id, action, model, input_tokens, output_tokens, raw_cost_usd, " +
  "billed_cost_usd, credits_debited, credit_transaction_id, metadata, created_at";

/** One page of user records, newest first, with their emails, and the total. */
export async function listUserRecords(
  client: SupabaseClient,
  service: SupabaseClient,
  [from, to]: [number, number],
): Promise<{ data: UserRecord[]; count: number }> {
  const r = await client.from("crm_user_records").select(USER_RECORD_COLUMNS, { count: "exact" })
    .order("created_at", { ascending: false }).order("id", { ascending: false }).range(from, to);
  const { data, count } = page(r);
  const records = data as unknown as CrmUserRow[];
  if (records.length === 0) return { data: [], count };
  const emails = new Map((await listAllAuthUsers(service)).map((u) => [u.id, u.email ?? null]));
  return { data: records.map((row) => toUserRecord(row, emails.get(row.user_id) ?? null)), count };
}

/** One user's record with the email (404 "User not found"). */
export async function userRecord(
  client: SupabaseClient,
  service: SupabaseClient,
  userId: string,
): Promise<UserRecord> {
  const row = one(
    await client.from("crm_user_records").select(USER_RECORD_COLUMNS).eq("user_id", userId).maybeSingle(),
    "User",
  ) as unknown as CrmUserRow;
  const user = await findAuthUser(service, userId);
  return toUserRecord(row, user?.email ?? null);
}

/** The user's latest AI calls (at most `limit`), their totals and a per-model breakdown. */
export async function aiUsageReport(
  client: SupabaseClient,
  service: SupabaseClient,
  userId: string,
  limit: number,
): Promise<z.infer<typeof AiUsageReport>> {
  if (!(await findAuthUser(service, userId))) throw DomainError.notFound("User not found");
  const [usage, summary] = await Promise.all([
    client.from("ai_usage_logs").select(USAGE).eq("user_id", userId)
      .order("created_at", { ascending: false }).order("id", { ascending: false }).limit(limit),
    client.rpc("user_ai_usage_summary", { p_user_id: userId }),
  ]);
  const { totals, byModel } = rows(summary) as Omit<z.infer<typeof AiUsageReport>, "usage">;
  return { usage: rows(usage) as unknown as z.infer<typeof AiUsageReport>["usage"], totals, byModel };
}

/**
 * Changes a user's role, status or tier. An admin cannot demote or suspend themselves (that
 * could leave the platform without an admin): 409.
 */
export async function updateUserRecord(
  client: SupabaseClient,
  service: SupabaseClient,
  callerId: string | null,
  userId: string,
  body: z.infer<typeof UpdateUserBody>,
): Promise<UserRecord> {
  if (body.role_id) {
    const role = rows(await client.from("roles").select("id, name").eq("id", body.role_id).maybeSingle()) as
      | { id: string; name: string }
      | null;
    if (!role) throw DomainError.invalid("role_id does not name an existing role");
    if (userId === callerId && role.name !== "admin") {
      throw DomainError.conflict("Admins cannot remove their own admin role");
    }
  }
  if (userId === callerId && body.status === "suspended") {
    throw DomainError.conflict("Admins cannot suspend themselves");
  }
  one(
    await client.from("user_profiles").update(body).eq("user_id", userId).select("id").maybeSingle(),
    "User",
  );
  return await userRecord(client, service, userId);
}

/** Deletes the user's profile and credit balance (404 when neither existed). */
export async function deleteUserRecords(
  client: SupabaseClient,
  userId: string,
): Promise<{ profile_deleted: boolean; credits_deleted: boolean }> {
  const r = await client.rpc("crm_delete_user_records", { p_user_id: userId });
  const data = rows(r) as { profile_deleted: boolean; credits_deleted: boolean };
  if (!data.profile_deleted && !data.credits_deleted) throw DomainError.notFound("User not found");
  return data;
}
