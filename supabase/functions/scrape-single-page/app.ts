/**
 * /functions/v1/scrape-single-page (spec "Scraping"): POST {pageUrl, sessionId, pageId, options
 * {prompt, systemPrompt, schema, timeout}} -> 200 {success, pageId, materialsFound,
 * processingTimeMs, error, productsCreated, method}. Processes one page of a session now (structured
 * data first, then the language model), stores its materials and creates their products.
 *
 * The caller must be an owner, admin or member of the session's workspace; the page must belong to
 * the session and pageUrl must be the page's URL (400 otherwise). A page the site or robots.txt
 * refuses is a 200 with success false and the error (the page is marked failed); a URL that is
 * not on the public internet is 400 unsafe_url; a page being processed is 409; an unknown body
 * key (options' included) is 400 naming it.
 *
 * Billing: a page whose structured data yields products is free; a page that needs the model
 * costs the caller 1 credit (cost key scraping_llm, packages/shared/scraping/billing.ts), debited
 * before the model is called. A short balance is 402 insufficient_credits: no model call, and the
 * page is left as it was. A failed model call is refunded (the answer is 200 success false with
 * the error, the page failed).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { caller, db, requireWorkspaceRole, serviceDb, signedIn, WRITER_ROLES } from "@shared/auth/context.ts";
import { payerOf } from "@shared/scraping/billing.ts";
import { ExtractOptionsSchema, sessionForCaller } from "@shared/scraping/sessions.ts";
import { scrapeSessionPage } from "@shared/scraping/single_page.ts";

const app = createFunctionApp("scrape-single-page");
app.use("*", signedIn);

const Body = z.object({
  pageUrl: z.url({ protocol: /^https?$/ }),
  sessionId: z.uuid(),
  pageId: z.uuid(),
  options: ExtractOptionsSchema.default({}),
}).strict();
const Answer = z.object({
  success: z.boolean(),
  pageId: z.uuid(),
  materialsFound: z.number(),
  processingTimeMs: z.number(),
  error: z.string().nullable(),
  productsCreated: z.number(),
  method: z.string(),
});

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Scraping"],
    summary: "Scrape one page of a session now",
    request: jsonBody(Body),
    responses: {
      ...okJson(
        "{success, pageId, materialsFound, processingTimeMs, error, productsCreated, method}",
        200,
        Answer,
      ),
      ...errorResponses,
      409: errorResponse("The page is being processed"),
    },
  }),
  async (c) => {
    const req = c.req.valid("json");
    const session = await sessionForCaller(db(c), req.sessionId);
    await requireWorkspaceRole(c, session.workspace_id, WRITER_ROLES, "Scraping a page");
    const deps = { db: db(c), service: serviceDb(c), payer: payerOf(caller(c), session.workspace_id) };
    return c.json(await scrapeSessionPage(deps, req), 200);
  },
);

export default app;
