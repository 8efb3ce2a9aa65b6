/**
 * SQL under the API roles, exactly as /rest/v1 runs a request (role + request.jwt.claims in one
 * transaction), for RLS tests that need no HTTP layer.
 */
import { withRequestContext } from "../../stack/db/database.ts";
import type { Platform } from "../../stack/platform.ts";

export type As = { role: "anon" } | { role: "service_role" } | { role: "authenticated"; userId: string };

export async function sqlAs<T = Record<string, unknown>>(
  p: Platform,
  who: As,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const claims: Record<string, unknown> = who.role === "authenticated"
    ? { sub: who.userId, role: "authenticated", aud: "authenticated" }
    : { role: who.role };
  return await withRequestContext(p.db, { role: who.role, claims }, async (tx) => {
    return (await tx.query<T>(sql, params)).rows;
  });
}

/** The SQLSTATE of the error `fn` throws; fails when it does not throw. */
export async function sqlState(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (typeof code === "string") return code;
    throw err;
  }
  throw new Error("expected the statement to fail");
}
