// Contact-to-user matching by email and bulk-link planning.
import assert from "node:assert/strict";
import { findPotentialMatches, normalizeEmail, planBulkLinks } from "@shared/crm/mod.ts";

const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const C = "cccccccc-cccc-4ccc-8ccc-cccccccccccc";
const U1 = "11111111-1111-4111-8111-111111111111";
const U2 = "22222222-2222-4222-8222-222222222222";
const U3 = "33333333-3333-4333-8333-333333333333";

Deno.test("normalizeEmail trims and lowercases; blank is null", () => {
  const cases: [string | null | undefined, string | null][] = [
    ["Ada@Example.COM", "ada@example.com"],
    ["  bob@example.com ", "bob@example.com"],
    ["", null],
    ["   ", null],
    [null, null],
    [undefined, null],
  ];
  for (const [v, want] of cases) assert.equal(normalizeEmail(v), want, String(v));
});

Deno.test("potential matches: unlinked contacts whose email is an unlinked user's", () => {
  const contacts = [
    { id: A, name: "Ada", email: "ADA@example.com ", user_id: null },
    { id: B, name: "Bob", email: "bob@example.com", user_id: U2 }, // already linked
    { id: C, name: "Cy", email: "cy@example.com", user_id: null }, // user linked elsewhere
    { id: "d", name: "No email", email: null, user_id: null },
    { id: "e", name: "Nobody", email: "nobody@example.com", user_id: null },
  ];
  const users = [
    { id: U1, email: "ada@example.com" },
    { id: U2, email: "bob@example.com" },
    { id: U3, email: "cy@example.com" },
    { id: "no-email", email: null },
  ];
  const got = findPotentialMatches(contacts, users, new Set([U2, U3]));
  assert.deepEqual(got, [
    {
      contact: { id: A, name: "Ada", email: "ADA@example.com " },
      user: { id: U1, email: "ada@example.com" },
    },
  ]);
});

Deno.test("potential matches: two contacts with one user's email are both proposed", () => {
  const got = findPotentialMatches(
    [
      { id: A, name: "Ada (work)", email: "ada@example.com", user_id: null },
      { id: B, name: "Ada (home)", email: "Ada@Example.com", user_id: null },
    ],
    [{ id: U1, email: "ada@example.com" }],
    new Set(),
  );
  assert.deepEqual(got.map((m) => [m.contact.id, m.user.id]), [[A, U1], [B, U1]]);
});

Deno.test("planBulkLinks: malformed items and repeats are per-item errors, the rest go ahead", () => {
  const { links, errors } = planBulkLinks([
    { contactId: A, userId: U1 },
    { contactId: "nope", userId: U2 },
    { contactId: B },
    null,
    { contactId: A, userId: U3 }, // contact repeated
    { contactId: C, userId: U1.toUpperCase() }, // user repeated (ids compare case-insensitively)
    { contactId: C, userId: U2 },
  ]);
  assert.deepEqual(links, [{ index: 0, contactId: A, userId: U1 }, { index: 6, contactId: C, userId: U2 }]);
  assert.deepEqual(errors.map((e) => e.index), [1, 2, 3, 4, 5]);
  assert.equal(errors[0].contactId, "nope");
  assert.match(errors[0].error, /contactId/);
  assert.match(errors[1].error, /userId/);
  assert.equal(errors[2].contactId, null);
  assert.match(errors[3].error, /earlier in this batch/);
});

Deno.test("planBulkLinks: an item with an unknown key is a per-item error naming it", () => {
  const { links, errors } = planBulkLinks([
    { contactId: A, userId: U1, bogus: 1 },
    { contactId: B, user_id: U2 },
    { contactId: C, userId: U3 },
  ]);
  assert.deepEqual(links, [{ index: 2, contactId: C, userId: U3 }]);
  assert.deepEqual(errors.map((e) => [e.index, e.error]), [
    [0, 'Invalid link: unknown field "bogus"'],
    [1, 'Invalid link: unknown field "user_id"; userId: Invalid input: expected string, received undefined'],
  ]);
});
