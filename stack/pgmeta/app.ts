/**
 * /pg: the part of postgres-meta that admins and Studio-style tools use to run SQL,
 * `POST /pg/query {query}` -> the rows of the last statement as a JSON array (pg-meta's shape;
 * errors 400 `{error}`). Locally Kong exposes pg-meta without auth; here it demands the
 * service-role key, since the SQL runs as the database superuser. Statements run in one
 * transaction, so a failing script leaves nothing behind.
 */
import { bearerToken, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import type { PGlite } from "../db/database.ts";
import { refusal } from "./guard.ts";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export function createPgMeta(opts: { db: PGlite; jwtSecret: string }) {
  return async (req: Request, path: string): Promise<Response> => {
    if (path !== "/query") return json(404, { error: `no route ${path}` });
    if (req.method !== "POST") return json(405, { error: "use POST /pg/query {query}" });
    const token = bearerToken(req.headers.get("authorization"));
    if (!token) return json(401, { error: "the service-role key is required" });
    try {
      const claims = await verifyJwt(token, opts.jwtSecret);
      if (claims.role !== "service_role") return json(403, { error: "the service-role key is required" });
    } catch (err) {
      if (err instanceof JwtError) return json(401, { error: `invalid JWT: ${err.message}` });
      throw err;
    }
    let query: unknown;
    try {
      query = (await req.json())?.query;
    } catch {
      return json(400, { error: "body must be JSON {query}" });
    }
    if (typeof query !== "string" || query.trim() === "") {
      return json(400, { error: "query must be a non-empty string" });
    }
    // Statements the single embedded connection cannot survive are refused (./guard.ts).
    const refused = refusal(query);
    if (refused) return json(400, { error: `refused: ${refused}`, code: "0A000" });
    try {
      const results = await opts.db.transaction((tx) => tx.exec(query as string));
      return json(200, results.at(-1)?.rows ?? []);
    } catch (err) {
      const e = err as { message?: string; code?: string; detail?: string; hint?: string };
      return json(400, { error: e.message ?? String(err), code: e.code, detail: e.detail, hint: e.hint });
    }
  };
}
