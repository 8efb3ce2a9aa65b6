/** GET /health, /settings and /.well-known/jwks.json: what a client reads before signing in. */
import type { Hono } from "hono";
import { publishedJwks } from "@shared/auth/jwks.ts";
import type { AuthContext } from "../context.ts";

export function settingsRoutes(app: Hono, ctx: AuthContext): void {
  const { cfg } = ctx;
  app.get(
    "/health",
    (c) =>
      c.json({
        version: "local",
        name: "GoTrue",
        description: "GoTrue-compatible auth for the local platform",
      }),
  );

  app.get("/settings", (c) =>
    c.json({
      external: {
        anonymous_users: cfg.enableAnonymousSignIns ?? false,
        email: true,
        phone: false,
      },
      disable_signup: !(cfg.enableSignup ?? true),
      mailer_autoconfirm: !cfg.enableConfirmations,
      phone_autoconfirm: false,
      sms_provider: "",
      saml_enabled: false,
    }));

  app.get("/.well-known/jwks.json", (c) => c.json(publishedJwks(ctx.jwtSecret)));
}
