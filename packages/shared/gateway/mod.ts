/**
 * The ai-gateway routing contract, read by ai-gateway and the AI backend alike: the action map
 * (actions.ts: method, path, access, price) and the backend request each call becomes
 * (request.ts), and the data of its answer (answer.ts). Billing is the credit ledger's
 * (credits/ledger.ts).
 */
export * from "./actions.ts";
export * from "./answer.ts";
export * from "./request.ts";
