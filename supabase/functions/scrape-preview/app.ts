/**
 * /functions/v1/scrape-preview (spec "Scraping"): POST {url} -> 200 {success, url, finalUrl,
 * httpStatus, title, description, language, products (structured data: JSON-LD, microdata,
 * OpenGraph), structuredData {jsonLd, microdata, openGraph}, links {total, sameHost[]}, textSample}.
 * No language model, no credits. Signed-in users; 400 unsafe_url, 422 robots_disallowed, 502
 * fetch_failed.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb, userOnly } from "@shared/auth/context.ts";
import { previewPage, runnerDeps } from "@shared/scraping/pages.ts";

const app = createFunctionApp("scrape-preview");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Scraping"],
    summary: "What a page offers: title, structured products, links",
    request: jsonBody(z.object({ url: z.url({ protocol: /^https?$/ }) }).strict()),
    responses: {
      ...okJson("{success, url, finalUrl, httpStatus, title, description, language, products, ...}"),
      ...errorResponses,
      422: errorResponse("robots.txt disallows the page"),
      502: errorResponse("The page could not be fetched"),
    },
  }),
  async (c) => {
    const { url } = c.req.valid("json");
    return c.json(await previewPage(url, runnerDeps(serviceDb(c))), 200);
  },
);

export default app;
