import { platformTest, createUser, createWorkspace } from "../helpers/platform.ts";
import { grant } from "./helpers.ts";
import { createAiBackendApp } from "../../services/ai-backend/app.ts";
import { type EmbeddingInputType, LocalHashEmbeddings } from "../../packages/shared/embeddings/mod.ts";
class CountingEmbeddings extends LocalHashEmbeddings {
  calls: number[] = [];
  override embed(texts: readonly string[], inputType: EmbeddingInputType) {
    this.calls.push(texts.length);
    return super.embed(texts, inputType);
  }
}
platformTest("probe", async (p) => {
  const embeddings = new CountingEmbeddings();
  const app = createAiBackendApp({ supabase: { url: p.url, anonKey: p.config.anonKey, serviceRoleKey: p.config.serviceRoleKey, jwtSecret: p.config.jwtSecret }, embeddings });
  const u = await createUser(p, "probe");
  const ws = await createWorkspace(p, u.id);
  await grant(p, u.id, 100);
  for (const title of [`12" tiles, grey`, `back\\slash, x`, `plain "quoted"`, `a.b*c`, `in.(x)`, `x"y`, `A,B`]) {
    for (let k = 0; k < 2; k++) {
      const res = await app.request(`/api/kb/documents/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${u.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ workspace_id: ws, documents: [{ title, content: "hello " + title }] }),
      });
      const b = await res.json();
      console.log("PROBE", JSON.stringify(title), k, res.status, b.error ?? JSON.stringify(b.documents.map((d: any) => [d.created, d.re_embedded])), embeddings.calls.length);
    }
  }
});
