/** POST /logout (GoTrue logout.go): ends the caller's sessions, by scope global, local or others. */
import type { Hono } from "hono";
import type { AuthContext } from "../context.ts";
import { Errors } from "../errors.ts";
import { currentUser } from "../guards.ts";

export function logoutRoutes(app: Hono, ctx: AuthContext): void {
  const { db } = ctx;
  app.post("/logout", async (c) => {
    const scope = c.req.query("scope") ?? "global";
    if (!["global", "local", "others"].includes(scope)) {
      throw Errors.validation(`Unsupported logout scope "${scope}"`);
    }
    const { user, claims } = await currentUser(ctx, c);
    const sessionId = typeof claims.session_id === "string" ? claims.session_id : null;
    if (scope === "global") await db.query(`delete from auth.sessions where user_id = $1`, [user.id]);
    else if (scope === "local") await db.query(`delete from auth.sessions where id = $1`, [sessionId]);
    else {await db.query(`delete from auth.sessions where user_id = $1 and id is distinct from $2`, [
        user.id,
        sessionId,
      ]);}
    return c.body(null, 204);
  });
}
