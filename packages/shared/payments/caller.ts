/** The billing user of a request: the signed-in user of the JWT (never an id from the body). */
import type { Context } from "hono";
import { requireUser } from "../auth/context.ts";
import type { BillingUser } from "./billing.ts";

// deno-lint-ignore no-explicit-any
export function billingUser(c: Context<any>): BillingUser {
  const who = requireUser(c);
  const email = who.claims?.email;
  return { id: who.userId, email: typeof email === "string" && email !== "" ? email : null };
}
