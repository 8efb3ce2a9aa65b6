/**
 * docs/deploy.md's table of secrets and settings stays in step with the code: every variable the
 * functions and the AI backend read is listed in SETTINGS (packages/shared/env.ts), and the
 * table between the settings markers is exactly what `deno task secrets-doc` generates from it.
 */
import assert from "node:assert/strict";
import { SETTINGS } from "../../packages/shared/env.ts";
import { DOC, scanEnvReads, settingsReport, withTable } from "../../scripts/secrets_doc.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const doc = () => Deno.readTextFile(`${ROOT}/${DOC}`);

Deno.test("every variable the code reads is listed in SETTINGS, and every listed one is read", async () => {
  const report = await settingsReport();
  assert.deepEqual(report.unlisted, [], "read by the code, missing from SETTINGS in packages/shared/env.ts");
  assert.deepEqual(report.unread, [], "in SETTINGS but read by no code");
  // The scan sees the readers the code uses: a plain env(), a backend setting, an agent's model.
  const reads = await scanEnvReads();
  assert.ok(reads.get("STRIPE_WEBHOOK_SECRET")?.has("packages/shared/payments/provider.ts"));
  assert.ok(reads.get("RAG_MODEL")?.has("services/ai-backend/routes/rag_search.ts"));
  assert.ok(reads.get("AGENT_MODEL_MAIN")?.has("packages/shared/agent/agents.ts"));
});

Deno.test("docs/deploy.md documents every setting, in the table deno task secrets-doc generates", async () => {
  const text = await doc();
  const missing = SETTINGS.filter((s) => !text.includes(`\`${s.name}\``)).map((s) => s.name);
  assert.deepEqual(missing, [], `not documented in ${DOC}`);
  const report = await settingsReport();
  assert.equal(await withTable(text, report.table), text, `${DOC} is out of date: run deno task secrets-doc`);
  // Who reads what comes from the imports: the webhook secret from the payments function.
  const row = text.split("\n").find((l) => l.startsWith("| `STRIPE_WEBHOOK_SECRET`"));
  assert.match(row ?? "", /`payments-webhook`/);
  assert.match(text.split("\n").find((l) => l.startsWith("| `RAG_MODEL`")) ?? "", /\*\*AI backend\*\*/);
});

Deno.test("a secret added to SETTINGS but not to the guide fails the check", async () => {
  const text = await doc();
  const added = [...SETTINGS, { name: "NEW_PROVIDER_API_KEY", kind: "secret" as const, about: "A new one." }];
  const report = await settingsReport(added);
  assert.deepEqual(report.unread, ["NEW_PROVIDER_API_KEY"]);
  const regenerated = await withTable(text, report.table);
  assert.notEqual(regenerated, text);
  assert.ok(!text.includes("NEW_PROVIDER_API_KEY") && regenerated.includes("`NEW_PROVIDER_API_KEY`"));
});
