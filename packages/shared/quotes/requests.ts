/**
 * The reads and writes behind quotes-api, as the caller (`client`: RLS decides). Lists are the
 * caller's own (a filter on the caller's id from the JWT, `userId`); one request is read by those
 * who may act on it (RLS); what the caller may not see is a 404.
 */
import type { z } from "zod";
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { one, rows } from "../supabase/postgrest.ts";
import type { QuoteDocument } from "./types.ts";
import type { AnswerProposalBody, UpdateQuoteItemBody, UpdateQuoteRequestBody } from "./schemas.ts";
import type { ProposalWithRequest, QuoteItemRow, QuoteRequestWithQuote } from "./responses.ts";

export type QuoteRequest = z.infer<typeof QuoteRequestWithQuote>;
export type Proposal = z.infer<typeof ProposalWithRequest>;
export type QuoteItem = z.infer<typeof QuoteItemRow>;
type Range = [number, number];

const REQUEST = "id, quote_id, workspace_id, user_id, notes, status, created_at, updated_at, " +
  "quotes(id, quote_number, title, customer_name, currency, status)";
const PROPOSAL = "id, quote_request_id, workspace_id, created_by, message, amount, currency, valid_until, " +
  "status, responded_at, created_at, updated_at";
// !inner plus a filter on the embed keeps only proposals of the caller's own requests.
const PROPOSAL_WITH_REQUEST = `${PROPOSAL}, ` +
  "quote_requests!inner(id, quote_id, workspace_id, user_id, notes, status, created_at, updated_at)";

const newestFirst = { ascending: false };

/**
 * A request for a quote of the workspace (the caller's membership is checked by the caller of
 * this function); a quote outside that workspace is a 404.
 */
export async function createQuoteRequest(
  client: SupabaseClient,
  body: { quote_id: string; workspace_id: string; notes?: string | null },
): Promise<QuoteRequest> {
  one(
    await client.from("quotes").select("id").eq("id", body.quote_id).eq("workspace_id", body.workspace_id)
      .maybeSingle(),
    "Quote",
  );
  return one(
    await client.from("quote_requests")
      .insert({ quote_id: body.quote_id, workspace_id: body.workspace_id, notes: body.notes ?? null })
      .select(REQUEST).single(),
    "Quote request",
  ) as QuoteRequest;
}

/** The caller's own requests, newest first. */
export async function listQuoteRequests(client: SupabaseClient, userId: string, [from, to]: Range) {
  return rows(
    await client.from("quote_requests").select(REQUEST).eq("user_id", userId)
      .order("created_at", newestFirst).order("id", newestFirst).range(from, to),
  ) as unknown as QuoteRequest[];
}

/**
 * One request, for those who may act on it: its requester and the workspace's owners and admins
 * who handle it (the read policy, the same people as the update policy); anyone else gets a 404.
 * Reads and writes agree: whoever can PATCH a request can GET it.
 */
export async function quoteRequest(client: SupabaseClient, id: string) {
  return one(
    await client.from("quote_requests").select(REQUEST).eq("id", id).maybeSingle(),
    "Quote request",
  ) as QuoteRequest;
}

/**
 * Moves a request's status. Who may set which status is decided once, in SQL
 * (public.may_set_quote_request_status, migration 20260124000141_quote_request_roles.sql):
 *
 *   new status | the requester (own request) | owner/admin of the workspace (not the requester)
 *   pending    | yes                         | yes
 *   updated    | yes                         | no
 *   approved   | no                          | yes
 *   rejected   | no                          | yes
 *
 * A status the caller's role does not allow is a 403; a request the caller cannot see, a 404.
 */
export async function setQuoteRequestStatus(
  client: SupabaseClient,
  id: string,
  { status }: z.infer<typeof UpdateQuoteRequestBody>,
) {
  return one(
    await client.from("quote_requests").update({ status }).eq("id", id).select(REQUEST).maybeSingle(),
    "Quote request",
  ) as QuoteRequest;
}

/** Proposals made on the caller's own requests, newest first. */
export async function listProposals(client: SupabaseClient, userId: string, [from, to]: Range) {
  return rows(
    await client.from("proposals").select(PROPOSAL_WITH_REQUEST).eq("quote_requests.user_id", userId)
      .order("created_at", newestFirst).order("id", newestFirst).range(from, to),
  ) as unknown as Proposal[];
}

export async function proposal(client: SupabaseClient, userId: string, id: string) {
  return one(
    await client.from("proposals").select(PROPOSAL_WITH_REQUEST).eq("id", id)
      .eq("quote_requests.user_id", userId).maybeSingle(),
    "Proposal",
  ) as unknown as Proposal;
}

/** The requester accepts or rejects a proposal on their own request. */
export async function answerProposal(
  client: SupabaseClient,
  userId: string,
  id: string,
  { status }: z.infer<typeof AnswerProposalBody>,
) {
  // Ownership of the linked request first: a proposal the caller merely administers is a 404.
  await proposal(client, userId, id);
  return one(
    await client.from("proposals").update({ status }).eq("id", id).select(PROPOSAL_WITH_REQUEST)
      .maybeSingle(),
    "Proposal",
  ) as unknown as Proposal;
}

/** The quote with its lines and the SQL-computed totals: the figures its PDF prints. */
export async function quoteDocument(client: SupabaseClient, quoteId: string): Promise<QuoteDocument> {
  const r = await client.rpc("quote_document", { p_quote_id: quoteId });
  return one<QuoteDocument>({ ...r, data: r.data as QuoteDocument | null }, "Quote");
}

/**
 * The quote-line commit (same columns as PATCH /rest/v1/quote_items). Lines the caller cannot
 * see are a 404; a viewer's edit or a member's commit of a looked-up price is a 403.
 */
export async function updateQuoteItem(
  client: SupabaseClient,
  id: string,
  body: z.infer<typeof UpdateQuoteItemBody>,
): Promise<QuoteItem> {
  one(await client.from("quote_items").select("id").eq("id", id).maybeSingle(), "Quote item");
  const r = await client.from("quote_items").update(body).eq("id", id).select("*").maybeSingle();
  if (!r.error && r.data === null) {
    throw DomainError.forbidden("Editing quote lines needs the owner, admin or member role in the workspace");
  }
  return one(r, "Quote item") as QuoteItem;
}
