/**
 * Platform user records (crm-users-api): a crm_user_records row (profile, role, credits) plus the
 * email from the auth admin API, in the spec's shape
 * {id, user_id, email, role_id, subscription_tier, status, credits, created_at, roles {id, name, level}}.
 */

export interface CrmUserRow {
  id: string;
  user_id: string;
  role_id: string | null;
  subscription_tier: string;
  status: string;
  credits: number;
  created_at: string;
  role_name: string | null;
  role_level: number | null;
}

export interface UserRecord {
  id: string;
  user_id: string;
  email: string | null;
  role_id: string | null;
  subscription_tier: string;
  status: string;
  credits: number;
  created_at: string;
  roles: { id: string; name: string; level: number } | null;
}

export const USER_RECORD_COLUMNS =
  "id, user_id, role_id, subscription_tier, status, credits, created_at, role_name, role_level";

export function toUserRecord(row: CrmUserRow, email: string | null): UserRecord {
  return {
    id: row.id,
    user_id: row.user_id,
    email,
    role_id: row.role_id,
    subscription_tier: row.subscription_tier,
    status: row.status,
    credits: Number(row.credits),
    created_at: row.created_at,
    roles: row.role_id && row.role_name !== null && row.role_level !== null
      ? { id: row.role_id, name: row.role_name, level: row.role_level }
      : null,
  };
}
