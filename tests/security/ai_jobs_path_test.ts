/** ai_jobs rows may only name the caller's own uploads: no job can point at someone else's file. */
import assert from "node:assert/strict";
import { createUser, platformTest } from "../helpers/platform.ts";

platformTest("a job naming another user's file, another bucket or a bare path is refused", async (p) => {
  const [victim, attacker] = [await createUser(p, "job-victim"), await createUser(p, "job-attacker")];
  const jobs = attacker.client.from("ai_jobs");
  const attempts = [
    { storage_bucket: "ai-documents", storage_path: `${victim.id}/x/secret.pdf` },
    { storage_bucket: "quote-pdfs", storage_path: `${attacker.id}/x/q.pdf` },
    { storage_bucket: null, storage_path: `${attacker.id}/x/a.pdf` },
    { storage_bucket: "ai-documents", storage_path: "../x.pdf" },
  ];
  for (const target of attempts) {
    const { error } = await jobs.insert({ job_type: "document_upload", ...target });
    assert.equal(error?.code, "42501", JSON.stringify(target));
  }
  const own = await jobs.insert({
    job_type: "document_upload",
    storage_bucket: "ai-documents",
    storage_path: `${attacker.id}/job-1/file.pdf`,
  });
  assert.equal(own.error, null);
  const rows = await p.db.query(`select 1 from public.ai_jobs where user_id = $1`, [attacker.id]);
  assert.equal(rows.rows.length, 1);
});
