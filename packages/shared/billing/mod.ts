/**
 * ai-gateway billing and routing: the action map (actions.ts), the backend request each call
 * becomes (request.ts), and debit/refund orchestration against the SQL functions (ledger.ts).
 */
export * from "./actions.ts";
export * from "./request.ts";
export * from "./ledger.ts";
