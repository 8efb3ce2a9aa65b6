/**
 * Production entry of the AI backend: configuration from the environment (SUPABASE_URL,
 * SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY, JWT_SECRET, EMBEDDINGS_*), served on PORT
 * (default 8000). The job runner starts with the server: it processes accepted uploads and, at
 * once and every 30 s, takes up queued jobs a crash or a restart left behind (pipeline/runner.ts).
 *
 *   deno run -A services/ai-backend/main.ts
 */
import { createAiBackendApp, jobRunnerOf } from "./app.ts";
import { configFromEnv } from "./config.ts";

const port = Number(Deno.env.get("PORT") ?? 8000);
const app = createAiBackendApp(configFromEnv());
jobRunnerOf(app).start();
Deno.serve({ port, hostname: Deno.env.get("HOST") ?? "0.0.0.0" }, app.fetch);
