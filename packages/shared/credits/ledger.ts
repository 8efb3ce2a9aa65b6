/**
 * The credit ledger: the one way any feature (ai-gateway actions, agent-chat, and whatever bills
 * next: VR worlds, social content, price checks) takes credits from a user and gives them back.
 * Every balance move is one service-role SQL function call, atomic in its own transaction
 * (balance, credit_transactions row, and for most families an ai_usage_logs row); nothing here
 * does arithmetic on balances.
 *
 * API (the same for every family):
 *   debit(db, request)              -> Charge; a short balance throws DomainError
 *                                      insufficient_credits (SQLSTATE PT402 / HTTP 402) and
 *                                      writes nothing; any other failure throws billing_failed.
 *   refund(db, charge, reason)      -> RefundOutcome; returns the charge in full (once). Never
 *                                      throws: a failure is logged and reported in the outcome.
 *   settle(db, charge, {usage, refundReason})
 *                                   -> Settlement; closes a charge: records token usage where
 *                                      the family's SQL keeps it, and refunds when a reason is
 *                                      given. Never throws.
 *   runBilled(db, request, call)    -> debit, call, refund when the call throws or fails.
 *
 * Families: how a debit request is priced picks its SQL function pair (one insufficient-credits
 * mapping for all: PT402 -> DomainError insufficient_credits, with the family's message).
 *
 * The 402 names the next step (issue 36): its message says what the action costs, the caller's
 * balance and how to get credits (HOW_TO_GET_CREDITS), and its details are
 * `{price, balance, cost_key, ...the family's own}`. The price is the one the SQL refused
 * (debit_credits: "insufficient credits: <amount> required"), the balance is read right after.
 *
 * | request         | priced by                                   | debit / close SQL functions |
 * | --------------- | ------------------------------------------- | --------------------------- |
 * | CostKeyDebit    | cost key x quantity (gateway_action_costs)  | bill_gateway_action /       |
 * |                 |                                             | refund_gateway_action       |
 * | AgentChatDebit  | the agent's price (agent_chat_costs)        | bill_agent_chat /           |
 * |                 |                                             | settle_agent_chat           |
 * | AmountDebit     | an explicit amount the caller computed      | debit_credits /             |
 * |                 |                                             | refund_credits              |
 *
 * A new feature (VR worlds, social content, price checks ...) bills with one call:
 * - `debit(db, { userId, action, credits })` when it computes its price (ledger row, no usage
 *   log), or
 * - `debit(db, { userId, action, costKey, quantity })` when its price is a row of
 *   gateway_action_costs (add the key to COST_KEYS with its migration; bill_gateway_action tags
 *   the usage log as the gateway's), or
 * - `runBilled(db, request, call)` to debit, run and refund a failure in one step.
 * A feature that gets its own price table and SQL pair (bill_x / settle_x) adds one request type
 * to DebitRequest and one Family entry to FAMILIES (debit arguments, messages, close function);
 * debit, refund, settle and runBilled need no change.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";

/**
 * Keys of public.gateway_action_costs (20260102000400_gateway_billing.sql; scraping_llm:
 * 20260220002100_scraping_billing.sql, billed by scraping/billing.ts).
 */
export const COST_KEYS = [
  "rag_text_search",
  "visual_search",
  "image_analysis",
  "clip_embedding",
  "document_processing",
  "scraping_llm",
  "default",
] as const;
export type CostKey = (typeof COST_KEYS)[number];

/**
 * The credits each cost key is seeded with by those migrations: what the API docs quote. A
 * platform admin may change a row (prices are read from the table at debit time); the test
 * tests/foundation/gateway_openapi_test.ts checks a fresh database against this map.
 */
export const SEEDED_CREDITS: Readonly<Record<CostKey, number>> = {
  rag_text_search: 0.5,
  visual_search: 1,
  image_analysis: 1,
  clip_embedding: 0.25,
  document_processing: 2,
  scraping_llm: 1,
  default: 1,
};

/** Priced by a cost key (gateway_action_costs) x quantity; writes an ai_usage_logs row. */
export interface CostKeyDebit {
  userId: string;
  /** What is billed, e.g. the gateway action name (the ledger row's action). */
  action: string;
  costKey: CostKey;
  quantity?: number;
  /** From a request body: recorded on the usage log only when the user belongs to it. */
  workspaceId?: string | null;
  referenceId?: string | null;
  metadata?: Record<string, unknown>;
}

/** agent-chat: priced by the agent (agent_chat_costs); the usage log takes the turn's tokens. */
export interface AgentChatDebit {
  userId: string;
  agentId: string;
  model: string;
  workspaceId: string | null;
  referenceId: string;
}

/** Priced by the caller: `credits` (> 0, at most 4 decimals) is debited as given; no usage log. */
export interface AmountDebit {
  userId: string;
  action: string;
  credits: number | string;
  referenceId?: string | null;
  metadata?: Record<string, unknown>;
}

export type DebitRequest = CostKeyDebit | AgentChatDebit | AmountDebit;

export type ChargeFamily = "cost_key" | "agent_chat" | "amount";

/** A debit that went through: what refund and settle need to close it. */
export interface Charge {
  family: ChargeFamily;
  /** The ledger row's action (`agent_chat` for agent-chat). */
  action: string;
  transactionId: string;
  /** The ai_usage_logs row, for families that write one. */
  usageLogId: string | null;
  credits: number;
  balance: number;
}

export type RefundOutcome = { refunded: true; balance: number } | { refunded: false; error: string };

/** How settle closed a charge: refunded, kept (`refunded: false`), or failed (`error`). */
export type Settlement = RefundOutcome | { refunded: false; error?: undefined };

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

type Rpc = { data: unknown; error: { message: string; code?: string } | null; status?: number };

interface Family<R extends DebitRequest> {
  /** Log prefix of a failed close. */
  label: string;
  debitFunction: string;
  debitArgs(r: R): Record<string, unknown>;
  action(r: R): string;
  /** What the caller was short of: the action's name and details beyond price, balance, cost_key. */
  insufficient(r: R): { what: string; costKey: CostKey | null; details: Record<string, unknown> };
  /** The message of any other debit failure (500 billing_failed). */
  failed(r: R, cause: string): string;
  /** Closes a charge: records usage when the SQL keeps it, refunds when `reason` is given. */
  close(
    db: SupabaseClient,
    charge: Charge,
    usage: TokenUsage | null,
    reason: string | null,
  ): Promise<Rpc & { refunded: boolean; balance: number | null }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Closes a charge whose SQL only refunds (no usage to record): `fn(transaction id, reason)`. */
function refundOnly(fn: string, idArg: string): Family<DebitRequest>["close"] {
  return async (db, charge, _usage, reason) => {
    if (reason === null) return { data: null, error: null, refunded: false, balance: null };
    const r = await db.rpc(fn, { [idArg]: charge.transactionId, p_reason: reason });
    const balance = r.error ? null : Number((r.data as { balance: number | string }).balance);
    return { ...r, refunded: !r.error, balance };
  };
}

const costKeyFamily: Family<CostKeyDebit> = {
  label: "ai-gateway",
  debitFunction: "bill_gateway_action",
  debitArgs: (r) => ({
    p_user_id: r.userId,
    p_action: r.action,
    p_cost_key: r.costKey,
    p_quantity: r.quantity ?? 1,
    p_workspace_id: typeof r.workspaceId === "string" && UUID.test(r.workspaceId) ? r.workspaceId : null,
    p_reference_id: r.referenceId ?? null,
    p_metadata: r.metadata ?? {},
  }),
  action: (r) => r.action,
  insufficient: (r) => ({ what: r.action, costKey: r.costKey, details: { action: r.action } }),
  failed: (r, cause) => `Could not bill ${r.action}: ${cause}`,
  close: refundOnly("refund_gateway_action", "p_transaction_id"),
};

const agentChatFamily: Family<AgentChatDebit> = {
  label: "agent-chat",
  debitFunction: "bill_agent_chat",
  debitArgs: (r) => ({
    p_user_id: r.userId,
    p_agent_id: r.agentId,
    p_model: r.model,
    p_workspace_id: r.workspaceId,
    p_reference_id: r.referenceId,
  }),
  action: () => "agent_chat",
  insufficient: (r) => ({ what: `the ${r.agentId} agent`, costKey: null, details: { agent_id: r.agentId } }),
  failed: (_r, cause) => `Could not bill the request: ${cause}`,
  close: async (db, charge, usage, reason) => {
    const r = await db.rpc("settle_agent_chat", {
      p_usage_log_id: charge.usageLogId,
      p_input_tokens: usage?.input_tokens ?? 0,
      p_output_tokens: usage?.output_tokens ?? 0,
      p_refund_reason: reason,
    });
    const out = (r.data ?? {}) as { refunded?: boolean; balance?: number | string | null };
    return {
      ...r,
      refunded: !r.error && out.refunded === true,
      balance: out.balance === null || out.balance === undefined ? null : Number(out.balance),
    };
  },
};

const amountFamily: Family<AmountDebit> = {
  label: "credits",
  debitFunction: "debit_credits",
  debitArgs: (r) => ({
    p_user_id: r.userId,
    p_amount: r.credits,
    p_action: r.action,
    p_reference_id: r.referenceId ?? null,
    p_metadata: r.metadata ?? {},
  }),
  action: (r) => r.action,
  insufficient: (r) => ({
    what: r.action,
    costKey: null,
    details: { action: r.action, credits: Number(r.credits) },
  }),
  failed: (r, cause) => `Could not bill ${r.action}: ${cause}`,
  close: refundOnly("refund_credits", "p_debit_id"),
};

const FAMILIES: { [F in ChargeFamily]: Family<RequestOf<F>> } = {
  cost_key: costKeyFamily,
  agent_chat: agentChatFamily,
  amount: amountFamily,
};

type RequestOf<F extends ChargeFamily> = F extends "cost_key" ? CostKeyDebit
  : F extends "agent_chat" ? AgentChatDebit
  : AmountDebit;

function familyOf(r: DebitRequest): ChargeFamily {
  if ("agentId" in r) return "agent_chat";
  if ("costKey" in r) return "cost_key";
  return "amount";
}

/** Where a user gets credits: the next step every 402 names. */
export const HOW_TO_GET_CREDITS = "Buy credits with crm-billing-api POST /credits/purchase {package_id} " +
  "(the packages: GET /rest/v1/credit_packages) or upgrade the subscription with crm-billing-api " +
  "POST /subscriptions/create-checkout {plan_id}";

/** debit_credits refuses with "insufficient credits: <amount> required" (20260101000300_credits.sql). */
const REQUIRED = /insufficient credits: ([0-9.]+) required/;

/** The balance the debit was refused against (null, logged, when it cannot be read). */
async function balanceOf(db: SupabaseClient, userId: string): Promise<number | null> {
  const { data, error } = await db.from("user_credits").select("balance").eq("user_id", userId).maybeSingle();
  if (error) console.error(`credits: reading the balance of ${userId} failed: ${error.message}`);
  return error ? null : Number((data as { balance: number | string } | null)?.balance ?? 0);
}

/** The 402 of a refused debit: price, balance and the next step, in the message and the details. */
async function insufficient(
  db: SupabaseClient,
  family: Family<DebitRequest>,
  request: DebitRequest,
  sqlMessage: string,
): Promise<DomainError> {
  const { what, costKey, details } = family.insufficient(request);
  const required = REQUIRED.exec(sqlMessage);
  const price = required ? Number(required[1]) : null;
  const balance = await balanceOf(db, request.userId);
  const figures = [
    price === null ? null : `${what} costs ${price} credit${price === 1 ? "" : "s"}`,
    balance === null ? null : `your balance is ${balance}`,
  ].filter((f) => f !== null).join(" and ");
  return DomainError.insufficientCredits(
    `Insufficient credits for ${what}${figures ? `: ${figures}` : ""}. ${HOW_TO_GET_CREDITS}.`,
    { ...details, price, balance, cost_key: costKey },
  );
}

/** Debits the request's price; see the module doc for the errors. */
export async function debit(db: SupabaseClient, request: DebitRequest): Promise<Charge> {
  const familyName = familyOf(request);
  const family = FAMILIES[familyName] as Family<DebitRequest>;
  const { data, error, status } = await db.rpc(family.debitFunction, family.debitArgs(request));
  if (error) {
    if (error.code === "PT402" || status === 402) {
      throw await insufficient(db, family, request, error.message);
    }
    throw new DomainError("internal", "billing_failed", family.failed(request, error.message));
  }
  const r = data as {
    transaction_id: string;
    balance: number | string;
    credits?: number | string;
    usage_log_id?: string;
  };
  return {
    family: familyName,
    action: family.action(request),
    transactionId: r.transaction_id,
    usageLogId: r.usage_log_id ?? null,
    credits: Number(r.credits ?? (request as AmountDebit).credits),
    balance: Number(r.balance),
  };
}

/**
 * Closes a charge: records `usage` (families whose SQL keeps token usage: agent_chat) and, with
 * `refundReason`, refunds it in full. A failure is logged for operators and returned, never
 * thrown: the caller has usually answered already.
 */
export async function settle(
  db: SupabaseClient,
  charge: Charge,
  outcome: { usage?: TokenUsage | null; refundReason?: string | null },
): Promise<Settlement> {
  const family = FAMILIES[charge.family] as Family<DebitRequest>;
  const reason = outcome.refundReason == null ? null : outcome.refundReason.slice(0, 500);
  let r: Awaited<ReturnType<typeof family.close>>;
  try {
    r = await family.close(db, charge, outcome.usage ?? null, reason);
  } catch (err) {
    r = {
      data: null,
      error: { message: String((err as Error)?.message ?? err) },
      refunded: false,
      balance: null,
    };
  }
  if (r.error) {
    console.error(`${family.label}: settling ${charge.transactionId} failed: ${r.error.message}`);
    return { refunded: false, error: r.error.message };
  }
  return r.refunded ? { refunded: true, balance: r.balance ?? charge.balance } : { refunded: false };
}

/** Refunds a charge in full (once); see settle. */
export async function refund(db: SupabaseClient, charge: Charge, reason: string): Promise<RefundOutcome> {
  const s = await settle(db, charge, { refundReason: reason });
  return s.refunded || s.error !== undefined ? s : { refunded: false, error: "not refunded" };
}

export interface Billed<T> {
  result: T;
  charge: Charge | null;
  refund: RefundOutcome | null;
}

/** Why a call's result counts as failed (and is refunded); null when it succeeded. */
export type FailureOf<T> = (result: T) => string | null;

/** The refund reason recorded when the call throws (default "backend call failed: <message>"). */
export type ThrownReason = (err: Error) => string;
const backendCallFailed: ThrownReason = (err) => `backend call failed: ${err.message}`;

/** An answer with an HTTP status fails unless it is 2xx. */
const non2xx: FailureOf<{ status: number }> = (r) =>
  r.status < 200 || r.status > 299 ? `backend answered ${r.status}` : null;

/**
 * Debits (when `request` is given), runs `call`, and refunds in full when it throws (rethrown)
 * or when `failed` says its result is a failure. For results with a `status` the default rule is
 * non2xx: any answer that is not 2xx gives the caller nothing for its credits, so a 4xx is
 * refunded like a 5xx. Insufficient credits throw before `call` runs. `thrown` words the refund
 * reason the ledger records when `call` throws.
 */
export function runBilled<T extends { status: number }>(
  db: () => SupabaseClient,
  request: DebitRequest | null,
  call: () => Promise<T>,
  failed?: FailureOf<T>,
  thrown?: ThrownReason,
): Promise<Billed<T>>;
export function runBilled<T>(
  db: () => SupabaseClient,
  request: DebitRequest | null,
  call: () => Promise<T>,
  failed: FailureOf<T>,
  thrown?: ThrownReason,
): Promise<Billed<T>>;
export async function runBilled<T>(
  db: () => SupabaseClient,
  request: DebitRequest | null,
  call: () => Promise<T>,
  failed: FailureOf<T> = non2xx as FailureOf<unknown>,
  thrown: ThrownReason = backendCallFailed,
): Promise<Billed<T>> {
  const charge = request ? await debit(db(), request) : null;
  let result: T;
  try {
    result = await call();
  } catch (err) {
    if (charge) await refund(db(), charge, thrown(err as Error));
    throw err;
  }
  const failure = charge ? failed(result) : null;
  if (charge && failure !== null) return { result, charge, refund: await refund(db(), charge, failure) };
  return { result, charge, refund: null };
}
