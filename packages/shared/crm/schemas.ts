/**
 * zod schemas of the CRM APIs (crm-contacts-api, crm-companies-api, crm-users-api), with the
 * same limits as the tables (supabase/migrations/2026010300{05,06,07}00_*.sql).
 *
 * Optional text fields are trimmed and "" becomes null, so a cleared form field clears the
 * column instead of storing blanks. Request bodies are strict: a key they do not declare (a
 * read-only column such as id or created_at too) is a 400 naming it (docs/request-bodies.md).
 */
import { z } from "zod";
import { hasAtMostDecimals } from "../money.ts";

export const Uuid = z.guid();

const SUBSCRIPTION_TIERS = ["free", "starter", "pro", "enterprise"] as const;
const USER_STATUSES = ["active", "suspended"] as const;

/** Optional text: trimmed, "" -> null, at most `max` characters. */
function text(max: number) {
  return z.preprocess(
    (v) => (typeof v === "string" ? (v.trim() === "" ? null : v.trim()) : v),
    z.string().max(max).nullable(),
  ).optional();
}

const Name = z.string().trim().min(1, "name is required").max(500);
const Email = z.preprocess(
  (v) => (typeof v === "string" ? (v.trim() === "" ? null : v.trim()) : v),
  z.email().max(320).nullable(),
).optional();

const contactFields = {
  email: Email,
  phone: text(50),
  company: text(500),
  notes: text(10_000),
};

export const CreateContactBody = z.strictObject({ name: Name, ...contactFields });
export const UpdateContactBody = z.strictObject({ name: Name.optional(), ...contactFields })
  .refine((b) => Object.values(b).some((v) => v !== undefined), "nothing to update");

const companyFields = {
  website: text(2_048),
  industry: text(200),
  employee_count: z.number().int().min(0).max(2_147_483_647).nullable().optional(),
  annual_revenue: z.number().finite().min(0).lt(1e16)
    .refine((n) => hasAtMostDecimals(n, 2), "at most 2 decimals")
    .nullable().optional(),
  email: Email,
  phone: text(50),
  address: text(1_000),
  city: text(200),
  state: text(200),
  postal_code: text(50),
  country: text(200),
  linkedin: text(2_048),
  twitter: text(2_048),
  facebook: text(2_048),
  description: text(10_000),
  notes: text(10_000),
};

export const CreateCompanyBody = z.strictObject({ name: Name, ...companyFields });
export const UpdateCompanyBody = z.strictObject({ name: Name.optional(), ...companyFields })
  .refine((b) => Object.values(b).some((v) => v !== undefined), "nothing to update");

export const CompanyListQuery = z.object({ search: z.string().trim().max(200).optional() });

export const LinkCompanyContactBody = z.strictObject({
  contact_id: Uuid,
  role: text(200),
  is_primary: z.boolean().optional(),
  notes: text(10_000),
});

export const LinkUserBody = z.strictObject({ userId: Uuid });

/** Items are checked one by one (bulk-link reports per-item errors), so only the shape is here. */
export const BulkLinkBody = z.strictObject({ links: z.array(z.unknown()).min(1).max(500) });
export const BulkLinkItem = z.strictObject({ contactId: Uuid, userId: Uuid });

export const UpdateUserBody = z.strictObject({
  role_id: Uuid.optional(),
  status: z.enum(USER_STATUSES).optional(),
  subscription_tier: z.enum(SUBSCRIPTION_TIERS).optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), "nothing to update");

export const IdParam = z.object({ id: Uuid });
export const UserIdParam = z.object({ userId: Uuid });
