/**
 * Writes packages/shared/gateway/payloads.json: each ai-gateway action's payload schema, derived
 * from the AI backend's OpenAPI document (packages/shared/gateway/payloads.ts). Run it after
 * changing a backend route's body, query or path, or the action map:
 *
 *   deno run -A scripts/gateway_payloads.ts
 *
 * tests/foundation/gateway_openapi_test.ts fails while the file is out of date.
 */
import { createAiBackendApp } from "../services/ai-backend/mod.ts";
import { LocalHashEmbeddings } from "../packages/shared/embeddings/local.ts";
import { GATEWAY_ACTIONS } from "../packages/shared/gateway/actions.ts";
import { derivePayloadSchemas } from "../packages/shared/gateway/payloads.ts";

export const PAYLOADS_FILE = new URL("../packages/shared/gateway/payloads.json", import.meta.url);

/** The backend's document: describing routes needs no database, so the app gets placeholders. */
export function backendDocument() {
  const app = createAiBackendApp({
    supabase: { url: "http://127.0.0.1:1", anonKey: "-", serviceRoleKey: "-", jwtSecret: "-".repeat(32) },
    embeddings: new LocalHashEmbeddings(),
  });
  return app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "AI backend", version: "1.0.0" } });
}

export function currentPayloadSchemas() {
  return derivePayloadSchemas(backendDocument(), GATEWAY_ACTIONS);
}

if (import.meta.main) {
  await Deno.writeTextFile(PAYLOADS_FILE, JSON.stringify(currentPayloadSchemas(), null, 2) + "\n");
  console.log(`wrote ${PAYLOADS_FILE.pathname}`);
}
