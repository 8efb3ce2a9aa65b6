/**
 * /functions/v1/parse-sitemap (spec "Scraping"): POST {url, maxUrls? (1-50000, default 5000)} ->
 * 200 {success, url, urls: [{loc, lastmod?, changefreq?, priority?}], totalUrls, sitemaps (files
 * read), truncated, errors: [{url, error}]}. Follows sitemap indexes (3 levels, 50 files) and
 * inflates .xml.gz. Signed-in users. A URL off the public internet is 400 unsafe_url, one robots.txt
 * disallows 422, an unreachable or non-sitemap root 502 / 400.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb, userOnly } from "@shared/auth/context.ts";
import { parseSitemap } from "@shared/scraping/sitemap.ts";
import { runnerDeps } from "@shared/scraping/pages.ts";

const app = createFunctionApp("parse-sitemap");
app.use("*", userOnly);

const Body = z.object({
  url: z.url({ protocol: /^https?$/ }),
  maxUrls: z.number().int().min(1).max(50_000).optional(),
}).strict();

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Scraping"],
    summary: "Read a sitemap (urlset, sitemapindex, .xml.gz) into page URLs",
    request: jsonBody(Body),
    responses: {
      ...okJson("{success, url, urls, totalUrls, sitemaps, truncated, errors}"),
      ...errorResponses,
      422: errorResponse("robots.txt disallows the sitemap"),
      502: errorResponse("The sitemap could not be fetched"),
    },
  }),
  async (c) => {
    const { url, maxUrls } = c.req.valid("json");
    const result = await parseSitemap(url, runnerDeps(serviceDb(c)).cfg, { maxUrls });
    return c.json({ success: true, ...result }, 200);
  },
);

export default app;
