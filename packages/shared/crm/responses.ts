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
