/** The AI backend's API description (its OpenAPI document is served at /openapi.json). */
export const API_INFO = {
  title: "AI backend",
  version: "1.0.0",
  description:
    "Knowledge base (categories, documents, hybrid search, Pricing quick pick), async document uploads, " +
    "duplicate detection, monitoring. Reached directly or through the ai-gateway edge function. " +
    "Authenticate with a user JWT (RLS applies) or the service-role key.",
};
