/**
 * /functions/v1/crm-users-api (spec "CRM users"): platform admins only.
 *
 * Profiles, roles, credits and AI usage are read and written as the admin (RLS grants admins
 * every profile); only the emails come from the auth admin API with the service role. Deleting
 * a user's records is one SQL function (profile and credits in one transaction); the auth
 * account stays.
 */
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { parseJson, parseParams, parseQuery } from "@shared/http/validate.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import { caller, db, platformRoles } from "@shared/auth/context.ts";
import { serviceClient, type SupabaseClient } from "@shared/supabase/clients.ts";
import { findAuthUser, listAllAuthUsers } from "@shared/supabase/auth_admin.ts";
import { one, rows } from "@shared/supabase/postgrest.ts";
import {
  type CrmUserRow,
  toUserRecord,
  UpdateUserBody,
  USER_RECORD_COLUMNS,
  UserIdParam,
} from "@shared/crm/mod.ts";

const ADMIN = ["admin"];
const USAGE = "id, user_id, workspace_id, action, model, input_tokens, output_tokens, raw_cost_usd, " +
  "billed_cost_usd, credits_debited, credit_transaction_id, metadata, created_at";

const app = createFunctionApp("crm-users-api");
app.use("*", platformRoles(ADMIN));

app.get("/", async (c) => {
  const [from, to] = pageRange(parseQuery(c, paginationSchema(1000)));
  const r = await db(c).from("crm_user_records").select(USER_RECORD_COLUMNS, { count: "exact" })
    .order("created_at", { ascending: false }).order("id", { ascending: false }).range(from, to);
  const records = rows(r) as unknown as CrmUserRow[];
  const emails = new Map((await listAllAuthUsers(serviceClient())).map((u) => [u.id, u.email ?? null]));
  const data = records.map((row) => toUserRecord(row, emails.get(row.user_id) ?? null));
  return c.json({ data, count: r.count ?? 0 });
});

app.get("/:userId", async (c) => {
  const { userId } = parseParams(c, UserIdParam);
  return c.json({ data: await userRecord(db(c), userId) });
});

app.get("/:userId/ai-usage", async (c) => {
  const { userId } = parseParams(c, UserIdParam);
  const { limit } = parseQuery(c, paginationSchema(50));
  if (!(await findAuthUser(serviceClient(), userId))) throw HttpError.notFound("User not found");
  const client = db(c);
  const [usage, summary] = await Promise.all([
    client.from("ai_usage_logs").select(USAGE).eq("user_id", userId)
      .order("created_at", { ascending: false }).order("id", { ascending: false }).limit(limit),
    client.rpc("user_ai_usage_summary", { p_user_id: userId }),
  ]);
  const { totals, byModel } = rows(summary) as { totals: unknown; byModel: unknown };
  return c.json({ data: { usage: rows(usage), totals, byModel } });
});

app.patch("/:userId", async (c) => {
  const { userId } = parseParams(c, UserIdParam);
  const body = await parseJson(c, UpdateUserBody);
  const client = db(c);
  if (body.role_id) {
    const role = rows(await client.from("roles").select("id, name").eq("id", body.role_id).maybeSingle()) as
      | { id: string; name: string }
      | null;
    if (!role) throw HttpError.badRequest("role_id does not name an existing role");
    // An admin demoting or suspending themselves could leave the platform without an admin.
    if (userId === caller(c).userId && role.name !== "admin") {
      throw HttpError.conflict("Admins cannot remove their own admin role");
    }
  }
  if (userId === caller(c).userId && body.status === "suspended") {
    throw HttpError.conflict("Admins cannot suspend themselves");
  }
  one(
    await client.from("user_profiles").update(body).eq("user_id", userId).select("id").maybeSingle(),
    "User",
  );
  return c.json({ data: await userRecord(client, userId) });
});

app.delete("/:userId", async (c) => {
  const { userId } = parseParams(c, UserIdParam);
  const r = await db(c).rpc("crm_delete_user_records", { p_user_id: userId });
  const data = rows(r) as { profile_deleted: boolean; credits_deleted: boolean };
  if (!data.profile_deleted && !data.credits_deleted) throw HttpError.notFound("User not found");
  return c.json({ success: true, data });
});

async function userRecord(client: SupabaseClient, userId: string) {
  const row = one(
    await client.from("crm_user_records").select(USER_RECORD_COLUMNS).eq("user_id", userId).maybeSingle(),
    "User",
  ) as unknown as CrmUserRow;
  const user = await findAuthUser(serviceClient(), userId);
  return toUserRecord(row, user?.email ?? null);
}

export default app;
