/**
 * /functions/v1/quotes-api: quote requests and proposals (spec "Quotes"), plus reads of a quote
 * with its SQL-computed totals and the quote-line price commit.
 *
 * Every query runs as the caller (RLS decides); ownership is a filter on the caller's own id from
 * the JWT, and a workspace is trusted only if the database says the caller belongs to it.
 */
import { createFunctionApp } from "@shared/http/app.ts";
import { HttpError } from "@shared/http/errors.ts";
import { parseJson, parseParams, parseQuery } from "@shared/http/validate.ts";
import { db, requireAuthenticated, requireUser, requireWorkspaceRole } from "@shared/auth/context.ts";
import { one, rows } from "@shared/supabase/postgrest.ts";
import { pageRange } from "@shared/http/pagination.ts";
import {
  AnswerProposalBody,
  CreateQuoteRequestBody,
  IdParam,
  ListQuery,
  type QuoteDocument,
  UpdateQuoteItemBody,
  UpdateQuoteRequestBody,
} from "@shared/quotes/mod.ts";

const app = createFunctionApp("quotes-api");

const REQUEST = "id, quote_id, workspace_id, user_id, notes, status, created_at, updated_at, " +
  "quotes(id, quote_number, title, customer_name, currency, status)";
const PROPOSAL = "id, quote_request_id, workspace_id, created_by, message, amount, currency, valid_until, " +
  "status, responded_at, created_at, updated_at";
// !inner plus a filter on the embed keeps only proposals of the caller's own requests.
const PROPOSAL_WITH_REQUEST = `${PROPOSAL}, ` +
  "quote_requests!inner(id, quote_id, workspace_id, user_id, notes, status, created_at, updated_at)";

// ---- quote requests ----

app.post("/quote-requests", async (c) => {
  requireUser(c);
  const body = await parseJson(c, CreateQuoteRequestBody);
  // Membership comes from the database; a workspace the caller is not in is a 404.
  await requireWorkspaceRole(c, body.workspace_id, ["owner", "admin", "member", "viewer"]);
  const client = db(c);
  one(
    await client.from("quotes").select("id").eq("id", body.quote_id).eq("workspace_id", body.workspace_id)
      .maybeSingle(),
    "Quote",
  );
  const data = one(
    await client.from("quote_requests")
      .insert({ quote_id: body.quote_id, workspace_id: body.workspace_id, notes: body.notes ?? null })
      .select(REQUEST).single(),
    "Quote request",
  );
  return c.json({ data }, 201);
});

app.get("/quote-requests", async (c) => {
  const who = requireUser(c);
  const [from, to] = pageRange(parseQuery(c, ListQuery));
  const data = rows(
    await db(c).from("quote_requests").select(REQUEST).eq("user_id", who.userId)
      .order("created_at", { ascending: false }).order("id", { ascending: false }).range(from, to),
  );
  return c.json({ data });
});

app.get("/quote-requests/:id", async (c) => {
  const who = requireUser(c);
  const { id } = parseParams(c, IdParam);
  const data = one(
    await db(c).from("quote_requests").select(REQUEST).eq("id", id).eq("user_id", who.userId)
      .maybeSingle(),
    "Quote request",
  );
  return c.json({ data });
});

// The requester, and the workspace's owners and admins who handle requests, move the status
// (the update policy); anyone else gets a 404.
app.patch("/quote-requests/:id", async (c) => {
  requireUser(c);
  const { id } = parseParams(c, IdParam);
  const { status } = await parseJson(c, UpdateQuoteRequestBody);
  const data = one(
    await db(c).from("quote_requests").update({ status }).eq("id", id).select(REQUEST).maybeSingle(),
    "Quote request",
  );
  return c.json({ data });
});

// ---- proposals ----

app.get("/proposals", async (c) => {
  const who = requireUser(c);
  const [from, to] = pageRange(parseQuery(c, ListQuery));
  const data = rows(
    await db(c).from("proposals").select(PROPOSAL_WITH_REQUEST).eq("quote_requests.user_id", who.userId)
      .order("created_at", { ascending: false }).order("id", { ascending: false }).range(from, to),
  );
  return c.json({ data });
});

app.get("/proposals/:id", async (c) => {
  const who = requireUser(c);
  const { id } = parseParams(c, IdParam);
  const data = one(
    await db(c).from("proposals").select(PROPOSAL_WITH_REQUEST).eq("id", id)
      .eq("quote_requests.user_id", who.userId).maybeSingle(),
    "Proposal",
  );
  return c.json({ data });
});

app.patch("/proposals/:id", async (c) => {
  const who = requireUser(c);
  const { id } = parseParams(c, IdParam);
  const { status } = await parseJson(c, AnswerProposalBody);
  const client = db(c);
  // Ownership of the linked request first: a proposal the caller merely administers is a 404.
  one(
    await client.from("proposals").select("id, quote_requests!inner(user_id)").eq("id", id)
      .eq("quote_requests.user_id", who.userId).maybeSingle(),
    "Proposal",
  );
  const data = one(
    await client.from("proposals").update({ status }).eq("id", id).select(PROPOSAL_WITH_REQUEST)
      .maybeSingle(),
    "Proposal",
  );
  return c.json({ data });
});

// ---- quotes and their lines ----

/** The quote with its lines and the SQL-computed totals: the figures its PDF prints. */
app.get("/quotes/:id", async (c) => {
  requireAuthenticated(c);
  const { id } = parseParams(c, IdParam);
  const r = await db(c).rpc("quote_document", { p_quote_id: id });
  const data = one<QuoteDocument>({ ...r, data: r.data as QuoteDocument | null }, "Quote");
  return c.json({ data });
});

/**
 * The quote-line commit (same columns as PATCH /rest/v1/quote_items). Lines the caller cannot
 * see are a 404; a viewer's edit or a member's commit of a looked-up price is a 403.
 */
app.patch("/quote-items/:id", async (c) => {
  requireAuthenticated(c);
  const { id } = parseParams(c, IdParam);
  const body = await parseJson(c, UpdateQuoteItemBody);
  const client = db(c);
  one(await client.from("quote_items").select("id").eq("id", id).maybeSingle(), "Quote item");
  const r = await client.from("quote_items").update(body).eq("id", id).select("*").maybeSingle();
  if (!r.error && r.data === null) {
    throw HttpError.forbidden("Editing quote lines needs the owner, admin or member role in the workspace");
  }
  return c.json({ data: one(r, "Quote item") });
});

export default app;
