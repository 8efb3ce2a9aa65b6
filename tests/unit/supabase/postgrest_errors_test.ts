/**
 * The data layer's one database-error mapping (packages/shared/supabase/postgrest.ts dbError)
 * answers DomainErrors that the HTTP layer renders with the statuses and bodies PostgREST's own
 * choices call for, and a module's own fault code only for faults.
 */
import assert from "node:assert/strict";
import { DomainError } from "../../../packages/shared/errors.ts";
import { errorBody, toHttpError } from "../../../packages/shared/http/errors.ts";
import { dbError, one, rows } from "../../../packages/shared/supabase/postgrest.ts";

const answer = (err: unknown) => {
  assert.ok(err instanceof DomainError, "the data layer throws DomainError");
  const http = toHttpError(err)!;
  return [http.status, errorBody(http)];
};

Deno.test("dbError: refusals keep PostgREST's 4xx, faults are a 500 without internals", () => {
  const pg = (code: string, message = "m", details: string | null = "d") => ({
    code,
    message,
    details,
    hint: null,
  });
  const details = (code: string) => ({ code, details: "d", hint: null });
  assert.deepEqual(answer(dbError(pg("PGRST116"), "Contact")), [404, {
    error: "Contact not found",
    code: "not_found",
  }]);
  assert.deepEqual(answer(dbError(pg("23505"), "Contact")), [
    409,
    { error: "Contact already exists: d", code: "conflict", details: details("23505") },
  ]);
  assert.deepEqual(answer(dbError(pg("23503"), "Contact")), [
    409,
    {
      error: "Contact refers to a row that does not exist or is still referenced",
      code: "conflict",
      details: details("23503"),
    },
  ]);
  assert.deepEqual(answer(dbError(pg("22P02", "bad uuid"))), [
    400,
    { error: "bad uuid", code: "invalid_value", details: details("22P02") },
  ]);
  assert.deepEqual(answer(dbError(pg("42501", "rls"))), [403, { error: "rls", code: "forbidden" }]);
  assert.deepEqual(answer(dbError(pg("PGRST102", "Payload too large", null), "Document", 0))[0], 413);
  assert.deepEqual(answer(dbError(pg("PGRST204", "no column"), "X", 400)), [
    400,
    { error: "no column", code: "db_request_failed", details: details("PGRST204") },
  ]);
  assert.deepEqual(answer(dbError(pg("PT404", "gone"), "X", 404))[0], 404);
  // PostgREST's other refusals keep their status too (416 range, 406 not acceptable, 405 method).
  assert.deepEqual(answer(dbError(pg("PGRST103", "range"), "X", 416))[0], 416);
  assert.deepEqual(answer(dbError(pg("PGRST107", "media type"), "X", 406))[0], 406);
  assert.deepEqual(answer(dbError(pg("PGRST101", "method"), "X", 405))[0], 405);
  // A 4xx no DomainError kind has is a 400 refusal, not a fault.
  assert.deepEqual(answer(dbError(pg("PGRST999", "teapot"), "X", 418))[0], 400);
  const logged = console.error;
  console.error = () => {};
  try {
    assert.deepEqual(answer(dbError(pg("XX000", "secret internals"), "X", 500)), [
      500,
      { error: "The database request failed", code: "db_error" },
    ]);
  } finally {
    console.error = logged;
  }
});

Deno.test("dbError: a module's own fault code applies to faults only, refusals still map", () => {
  const fault = { code: "billing_failed" as const, message: "Could not read the plans: boom" };
  assert.deepEqual(answer(dbError({ code: "XX000", message: "boom" }, "Billing record", 0, fault)), [
    500,
    { error: "Could not read the plans: boom", code: "billing_failed" },
  ]);
  assert.equal(
    answer(dbError({ code: "23505", message: "dup", details: "k" }, "Billing record", 0, fault))[0],
    409,
  );
});

Deno.test("rows and one throw the mapped DomainError; one is a 404 without a row", () => {
  assert.throws(
    () => rows({ data: null, error: { code: "42501", message: "rls" }, status: 403 }),
    DomainError,
  );
  assert.deepEqual(
    answer(((): unknown => {
      try {
        one({ data: null, error: null }, "Quote");
      } catch (err) {
        return err;
      }
    })()),
    [404, { error: "Quote not found", code: "not_found" }],
  );
});
