// CRM request validation: name required, enums, numbers, blanks clear a field.
import assert from "node:assert/strict";
import {
  CreateCompanyBody,
  CreateContactBody,
  LinkCompanyContactBody,
  UpdateCompanyBody,
  UpdateContactBody,
  UpdateUserBody,
} from "@shared/crm/mod.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";

const ID = "3f2b8c1e-9a7d-4e6f-8b5a-1c2d3e4f5a6b";
const ok = (s: { safeParse(v: unknown): { success: boolean } }, v: unknown) => s.safeParse(v).success;

Deno.test("contacts: name required and non-blank; email checked; blanks become null", () => {
  const cases: [unknown, boolean][] = [
    [{ name: "Ada" }, true],
    [
      { name: "Ada", email: "ada@example.com", phone: "+3312345", company: "Acme", notes: "met at fair" },
      true,
    ],
    [{ name: "" }, false],
    [{ name: "   " }, false],
    [{}, false],
    [{ email: "ada@example.com" }, false],
    [{ name: "Ada", email: "not-an-email" }, false],
    [{ name: 5 }, false],
  ];
  for (const [v, want] of cases) assert.equal(ok(CreateContactBody, v), want, JSON.stringify(v));
  assert.deepEqual(CreateContactBody.parse({ name: " Ada ", email: "", phone: "  " }), {
    name: "Ada",
    email: null,
    phone: null,
  });
  assert.ok(!ok(UpdateContactBody, {}), "an empty update is refused");
  assert.ok(!ok(UpdateContactBody, { name: "" }), "a name cannot be cleared");
  assert.ok(ok(UpdateContactBody, { notes: null }));
});

Deno.test("companies: name required; employee_count an integer, annual_revenue a 2-decimal number", () => {
  const cases: [unknown, boolean][] = [
    [{ name: "Acme" }, true],
    [{ name: "Acme", employee_count: 120, annual_revenue: 1500000.5 }, true],
    [{ name: "Acme", employee_count: "120" }, false],
    [{ name: "Acme", employee_count: 1.5 }, false],
    [{ name: "Acme", employee_count: -1 }, false],
    [{ name: "Acme", annual_revenue: "lots" }, false],
    [{ name: "Acme", annual_revenue: 10.123 }, false],
    [{ name: "Acme", annual_revenue: -5 }, false],
    [{ name: "Acme", email: "sales@acme" }, false],
    [{ website: "acme.test" }, false],
  ];
  for (const [v, want] of cases) assert.equal(ok(CreateCompanyBody, v), want, JSON.stringify(v));
  assert.ok(!ok(UpdateCompanyBody, {}));
  assert.ok(ok(UpdateCompanyBody, { employee_count: null }));
});

Deno.test("company-contact link: contact_id required", () => {
  assert.ok(ok(LinkCompanyContactBody, { contact_id: ID, role: "Buyer", is_primary: true, notes: "x" }));
  assert.ok(!ok(LinkCompanyContactBody, { role: "Buyer" }));
  assert.ok(!ok(LinkCompanyContactBody, { contact_id: "x" }));
  assert.ok(!ok(LinkCompanyContactBody, { contact_id: ID, is_primary: "yes" }));
});

Deno.test("user update: enums only, role_id a uuid, unknown fields refused", () => {
  const cases: [unknown, boolean][] = [
    [{ status: "active" }, true],
    [{ status: "suspended", subscription_tier: "pro" }, true],
    [{ role_id: ID }, true],
    [{ subscription_tier: "enterprise" }, true],
    [{ status: "banned" }, false],
    [{ subscription_tier: "gold" }, false],
    [{ role_id: "admin" }, false],
    [{ credits: 100 }, false],
    [{}, false],
  ];
  for (const [v, want] of cases) assert.equal(ok(UpdateUserBody, v), want, JSON.stringify(v));
});

Deno.test("pagination: the spec's defaults, bad values refused, range for supabase-js", () => {
  const cases: [number, Record<string, string>, { limit: number; offset: number } | null][] = [
    [50, {}, { limit: 50, offset: 0 }],
    [1000, {}, { limit: 1000, offset: 0 }],
    [50, { limit: "10", offset: "20" }, { limit: 10, offset: 20 }],
    [50, { limit: "0" }, null],
    [50, { limit: "1001" }, null],
    [50, { limit: "abc" }, null],
    [50, { limit: "1.5" }, null],
    [50, { offset: "-1" }, null],
  ];
  for (const [def, q, want] of cases) {
    const r = paginationSchema(def).safeParse(q);
    assert.deepEqual(r.success ? r.data : null, want, JSON.stringify(q));
  }
  assert.deepEqual(pageRange({ limit: 50, offset: 0 }), [0, 49]);
  assert.deepEqual(pageRange({ limit: 10, offset: 20 }), [20, 29]);
});
