/**
 * /functions/v1/scrape-single-page (spec "Scraping"): POST {pageUrl, sessionId, pageId, options
 * {prompt, systemPrompt, schema, timeout}} -> 200 {success, pageId, materialsFound,
 * processingTimeMs, error, productsCreated, method}. Processes one page of a session now (structured
 * data first, then the language model), stores its materials and creates their products.
 *
 * The caller must be an owner, admin or member of the session's workspace; the page must belong to
 * the session and pageUrl must be the page's URL (400 otherwise). A page the site or robots.txt
 * refuses is a 200 with success false and the error (the page is marked failed); a URL that is
 * not on the public internet is 400 unsafe_url; a page being processed is 409.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { db, requireWorkspaceRole, serviceDb, signedIn, WRITER_ROLES } from "@shared/auth/context.ts";
import { HttpError } from "@shared/http/errors.ts";
import { ExtractOptionsSchema, sessionForCaller } from "@shared/scraping/sessions.ts";
import { runnerDeps, scrapeSinglePage } from "@shared/scraping/pages.ts";
import { allowedHost, checkUrl, UnsafeUrlError } from "@shared/net/safe_fetch.ts";

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
    const { pageUrl, sessionId, pageId, options } = c.req.valid("json");
    const session = await sessionForCaller(db(c), sessionId);
    await requireWorkspaceRole(c, session.workspace_id, WRITER_ROLES, "Scraping a page");
    const { data: page, error } = await db(c).from("scraping_pages").select("id, session_id, url")
      .eq("id", pageId).eq("session_id", sessionId).maybeSingle();
    if (error) throw new HttpError(500, "db_error", error.message);
    if (!page) throw HttpError.notFound("Page not found in this session");
    if (new URL(pageUrl).toString() !== new URL(page.url).toString()) {
      throw HttpError.badRequest("pageUrl: is not the URL of this page");
    }
    const deps = runnerDeps(serviceDb(c));
    if (!allowedHost(page.url, deps.cfg.allowHosts)) {
      await checkUrl(page.url).catch((err) => {
        if (err instanceof UnsafeUrlError) throw new HttpError(400, "unsafe_url", err.message);
        throw err;
      });
    }
    const out = await scrapeSinglePage(deps, page, options);
    return c.json({
      success: out.ok,
      pageId,
      materialsFound: out.materialsFound,
      processingTimeMs: out.processingTimeMs,
      error: out.error,
      productsCreated: out.productsCreated,
      method: out.method,
    }, 200);
  },
);

export default app;
