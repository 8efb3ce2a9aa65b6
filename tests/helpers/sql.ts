/** SQL helpers for tests: sqlAs (shared with the benches, in fixtures/sql.ts) and sqlState. */
export { type As, sqlAs } from "../../fixtures/sql.ts";

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
