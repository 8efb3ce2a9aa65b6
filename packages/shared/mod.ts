/** The typed core every edge function and service imports. */
export * from "./http/errors.ts";
export * from "./http/cors.ts";
export * from "./http/validate.ts";
export * from "./http/app.ts";
export * from "./auth/jwt.ts";
export * from "./auth/context.ts";
export * from "./supabase/clients.ts";
export * from "./env.ts";
