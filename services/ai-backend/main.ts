/**
 * Production entry of the AI backend: configuration from the environment (SUPABASE_URL,
 * SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY, JWT_SECRET, EMBEDDINGS_*), served on PORT
 * (default 8000).
 *
 *   deno run -A services/ai-backend/main.ts
 */
import { createAiBackendApp } from "./app.ts";
import { configFromEnv } from "./config.ts";

const port = Number(Deno.env.get("PORT") ?? 8000);
const app = createAiBackendApp(configFromEnv());
Deno.serve({ port, hostname: Deno.env.get("HOST") ?? "0.0.0.0" }, app.fetch);
