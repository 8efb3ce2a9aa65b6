/**
 * /functions/v1/quotes-api: quote requests and proposals (spec "Quotes"), plus reads of a quote
 * with its SQL-computed totals and the quote-line price commit.
 *
 * Every query runs as the caller (RLS decides); lists are filtered on the caller's own id from
 * the JWT, and a workspace is trusted only if the database says the caller belongs to it. A quote
 * request is read and moved by its requester and by the workspace's owners and admins, each to
 * the statuses of the role table in packages/shared/quotes/requests.ts (enforced in SQL).
 * Requests and proposals need a user JWT (userOnly); quotes and their lines also take the
 * service-role key (signedIn). Domain: packages/shared/quotes/requests.ts.
 */
import { createRoute as route } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses as errors, jsonBody, okJson } from "@shared/http/openapi.ts";
import { pageRange } from "@shared/http/pagination.ts";
import {
  db,
  MEMBER_ROLES,
  requireUser,
  requireWorkspaceRole,
  signedIn,
  userOnly,
} from "@shared/auth/context.ts";
import { AnswerProposalBody, CreateQuoteRequestBody, IdParam, ListQuery } from "@shared/quotes/mod.ts";
import { UpdateQuoteItemBody, UpdateQuoteRequestBody } from "@shared/quotes/mod.ts";
import * as quotes from "@shared/quotes/requests.ts";
import * as R from "@shared/quotes/responses.ts";

const app = createFunctionApp("quotes-api");
const params = IdParam;
const uid = (c: Parameters<typeof requireUser>[0]) => requireUser(c).userId;

const request = (desc: string, status = 200) => okJson(desc, status, R.dataOf(R.QuoteRequestWithQuote));
const forRequests = { tags: ["Quote requests"], middleware: userOnly };

app.openapi(
  route({
    method: "post",
    path: "/quote-requests",
    ...forRequests,
    summary: "Request a quote of a workspace the caller belongs to",
    request: jsonBody(CreateQuoteRequestBody),
    responses: { ...request("The request", 201), ...errors },
  }),
  async (c) => {
    const body = c.req.valid("json");
    // Membership comes from the database; a workspace the caller is not in is a 404.
    await requireWorkspaceRole(c, body.workspace_id, MEMBER_ROLES);
    return c.json({ data: await quotes.createQuoteRequest(db(c), body) }, 201);
  },
);

app.openapi(
  route({
    method: "get",
    path: "/quote-requests",
    ...forRequests,
    summary: "The caller's own quote requests, newest first",
    request: { query: ListQuery },
    responses: { ...okJson("The requests", 200, R.listOf(R.QuoteRequestWithQuote)), ...errors },
  }),
  async (c) =>
    c.json({ data: await quotes.listQuoteRequests(db(c), uid(c), pageRange(c.req.valid("query"))) }, 200),
);

app.openapi(
  route({
    method: "get",
    path: "/quote-requests/{id}",
    ...forRequests,
    summary: "One quote request: the caller's own, or one of a workspace the caller owns or administers",
    request: { params },
    responses: { ...request("The request"), ...errors },
  }),
  async (c) => c.json({ data: await quotes.quoteRequest(db(c), c.req.valid("param").id) }, 200),
);

app.openapi(
  route({
    method: "patch",
    path: "/quote-requests/{id}",
    ...forRequests,
    summary: "Move a request's status: the requester to pending or updated; the workspace's owners and " +
      "admins (not on their own request) to pending, approved or rejected",
    description: "403 when the caller's role does not allow the status (requests.ts, the role table).",
    request: { params, ...jsonBody(UpdateQuoteRequestBody) },
    responses: { ...request("The request"), ...errors },
  }),
  async (c) =>
    c.json(
      { data: await quotes.setQuoteRequestStatus(db(c), c.req.valid("param").id, c.req.valid("json")) },
      200,
    ),
);

const proposal = okJson("The proposal", 200, R.dataOf(R.ProposalWithRequest));
const forProposals = { tags: ["Proposals"], middleware: userOnly };

app.openapi(
  route({
    method: "get",
    path: "/proposals",
    ...forProposals,
    summary: "Proposals made on the caller's own requests, newest first",
    request: { query: ListQuery },
    responses: { ...okJson("The proposals", 200, R.listOf(R.ProposalWithRequest)), ...errors },
  }),
  async (c) =>
    c.json({ data: await quotes.listProposals(db(c), uid(c), pageRange(c.req.valid("query"))) }, 200),
);

app.openapi(
  route({
    method: "get",
    path: "/proposals/{id}",
    ...forProposals,
    summary: "A proposal on one of the caller's requests",
    request: { params },
    responses: { ...proposal, ...errors },
  }),
  async (c) => c.json({ data: await quotes.proposal(db(c), uid(c), c.req.valid("param").id) }, 200),
);

app.openapi(
  route({
    method: "patch",
    path: "/proposals/{id}",
    ...forProposals,
    summary: "Accept or reject a proposal on one of the caller's requests",
    request: { params, ...jsonBody(AnswerProposalBody) },
    responses: { ...proposal, ...errors },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    return c.json({ data: await quotes.answerProposal(db(c), uid(c), id, c.req.valid("json")) }, 200);
  },
);

const forQuotes = { tags: ["Quotes"], middleware: signedIn };

app.openapi(
  route({
    method: "get",
    path: "/quotes/{id}",
    ...forQuotes,
    summary: "A quote with its lines and SQL-computed totals (the figures its PDF prints)",
    request: { params },
    responses: { ...okJson("The quote document", 200, R.dataOf(R.QuoteDocumentSchema)), ...errors },
  }),
  async (c) => c.json({ data: await quotes.quoteDocument(db(c), c.req.valid("param").id) }, 200),
);

app.openapi(
  route({
    method: "patch",
    path: "/quote-items/{id}",
    ...forQuotes,
    summary: "Commit a quote line's price and edit its other columns (owner, admin or member)",
    request: { params, ...jsonBody(UpdateQuoteItemBody) },
    responses: { ...okJson("The quote line", 200, R.dataOf(R.QuoteItemRow)), ...errors },
  }),
  async (c) =>
    c.json({ data: await quotes.updateQuoteItem(db(c), c.req.valid("param").id, c.req.valid("json")) }, 200),
);

export default app;
