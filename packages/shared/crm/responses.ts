/**
 * Response schemas of the CRM functions (the rows as PostgREST returns them), for their OpenAPI
 * routes. Rows are loose objects: a column added by a later migration appears in the answer
 * before it appears here.
 */
import { z } from "zod";

const ts = z.string().meta({ format: "date-time" });
const id = z.uuid();
const text = z.string().nullable();

export const ContactRow = z.looseObject({
  id,
  name: z.string(),
  email: text,
  phone: text,
  company: text,
  notes: text,
  user_id: id.nullable(),
  created_by: id.nullable(),
  created_at: ts,
  updated_at: ts,
}).meta({ id: "CrmContact" });

export const CompanyRow = z.looseObject({
  id,
  name: z.string(),
  website: text,
  industry: text,
  employee_count: z.number().int().nullable(),
  annual_revenue: z.number().nullable(),
  email: text,
  phone: text,
  address: text,
  city: text,
  state: text,
  postal_code: text,
  country: text,
  linkedin: text,
  twitter: text,
  facebook: text,
  description: text,
  notes: text,
  created_by: id.nullable(),
  created_at: ts,
  updated_at: ts,
}).meta({ id: "CrmCompany" });

export const CompanyContactLink = z.looseObject({
  id,
  company_id: id,
  contact_id: id,
  role: text,
  is_primary: z.boolean(),
  notes: text,
  created_at: ts,
  crm_contacts: ContactRow.optional(),
}).meta({ id: "CrmCompanyContact" });

export const CompanyWithContacts = CompanyRow.extend({
  crm_company_contacts: z.array(CompanyContactLink),
}).meta({ id: "CrmCompanyWithContacts" });

/** `{data}` around one value. */
export const dataOf = <S extends z.ZodType>(schema: S) => z.object({ data: schema });
/** `{data: [...], count}`: one page and the total. */
export const pageOf = <S extends z.ZodType>(schema: S) =>
  z.object({ data: z.array(schema), count: z.number().int() });
export const Success = z.object({ success: z.literal(true) });

export const ContactRelationship = z.looseObject({
  id,
  contact_id: id,
  related_contact_id: id,
  relationship_type: z.string(),
  notes: text,
  created_by: id.nullable(),
  created_at: ts,
}).meta({ id: "CrmContactRelationship" });

export const ContactWithRelationships = ContactRow.extend({
  crm_contact_relationships: z.array(ContactRelationship),
}).meta({ id: "CrmContactWithRelationships" });

const RoleRef = z.object({ id, name: z.string(), level: z.number().int() });

/** A platform user record: profile, role, credits and the email from the auth admin API. */
export const UserRecord = z.object({
  id,
  user_id: id,
  email: text,
  role_id: id.nullable(),
  subscription_tier: z.string(),
  status: z.string(),
  credits: z.number(),
  created_at: ts,
  roles: RoleRef.nullable(),
}).meta({ id: "CrmUserRecord" });

export const PotentialMatch = z.object({
  contact: z.object({ id, name: z.string(), email: text }),
  user: z.object({
    id,
    email: z.string(),
    profile: z.object({
      id,
      role_id: id.nullable(),
      subscription_tier: z.string(),
      status: z.string(),
      roles: RoleRef.nullable(),
    }).nullable(),
  }),
}).meta({ id: "CrmPotentialMatch" });

export const BulkLinkResult = z.object({
  data: z.array(ContactRow),
  errors: z.array(z.object({
    index: z.number().int(),
    contactId: z.string().nullable(),
    userId: z.string().nullable(),
    error: z.string(),
  })),
  successCount: z.number().int(),
  errorCount: z.number().int(),
}).meta({ id: "CrmBulkLinkResult" });

export const AiUsageLog = z.looseObject({
  id,
  user_id: id.nullable(),
  workspace_id: id.nullable(),
  action: z.string(),
  model: text,
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  raw_cost_usd: z.number(),
  billed_cost_usd: z.number(),
  credits_debited: z.number(),
  credit_transaction_id: id.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: ts,
}).meta({ id: "AiUsageLog" });

/** GET /crm-users-api/{userId}/ai-usage: the latest calls, totals and a per-model breakdown. */
export const AiUsageReport = z.object({
  usage: z.array(AiUsageLog),
  totals: z.object({
    total_calls: z.number().int(),
    total_input_tokens: z.number(),
    total_output_tokens: z.number(),
    total_raw_cost_usd: z.number(),
    total_billed_cost_usd: z.number(),
    total_credits_debited: z.number(),
  }),
  byModel: z.array(z.object({
    model: z.string(),
    calls: z.number().int(),
    cost: z.number(),
    credits: z.number(),
  })),
}).meta({ id: "CrmAiUsageReport" });

export const DeletedUserRecords = z.object({
  success: z.literal(true),
  data: z.object({ profile_deleted: z.boolean(), credits_deleted: z.boolean() }),
});
