/** ai_jobs rows may only name the caller's own uploads: no job can point at someone else's file. */
import assert from "node:assert/strict";
import { createUser, platformTest, serviceClient } from "../helpers/platform.ts";

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

platformTest(
  "dot segments, encoded or not, never reach a stored path: jobs, the storage API and the service role",
  async (p) => {
    const [victim, attacker] = [await createUser(p, "dot-victim"), await createUser(p, "dot-attacker")];
    const secret = `${victim.id}/doc/secret.pdf`;
    const put = await victim.client.storage.from("ai-documents").upload(secret, new Blob(["victim bytes"]), {
      contentType: "application/pdf",
    });
    assert.equal(put.error, null);

    const a = attacker.id;
    const escapes = [
      `${a}/../${secret}`,
      `${a}/%2e%2e/${secret}`,
      `${a}/%2E%2E/${secret}`,
      `${a}/..%2F${secret}`,
      `${a}/%2e%2e%2f${secret}`,
      `${a}/%252e%252e/${secret}`,
      `${a}\\..\\${secret}`,
      `${a}/./x.pdf`,
      `${a}//x.pdf`,
      `${a}/..`,
    ];
    for (const storage_path of escapes) {
      const { error } = await attacker.client.from("ai_jobs").insert({
        job_type: "document_upload",
        storage_bucket: "ai-documents",
        storage_path,
      });
      assert.equal(error?.code, "42501", storage_path);
    }
    // The service role cannot record such a path either (the table's check constraint).
    const svc = await serviceClient(p).from("ai_jobs").insert({
      user_id: a,
      job_type: "document_upload",
      storage_bucket: "ai-documents",
      storage_path: `${a}/../${secret}`,
    });
    assert.equal(svc.error?.code, "23514");
    const jobs = await p.db.query(`select 1 from public.ai_jobs where user_id = $1`, [a]);
    assert.equal(jobs.rows.length, 0);

    // The storage API refuses object names that decode into dot segments. (A bare `%2e%2e`
    // segment is resolved by URL parsing itself, so it names the victim's folder: RLS refuses it.)
    const headers = { Authorization: `Bearer ${attacker.accessToken}`, apikey: p.config.anonKey };
    const upload = async (raw: string) => {
      const res = await fetch(`${p.url}/storage/v1/object/ai-documents/${raw}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/pdf" },
        body: "attacker bytes",
      });
      return [res.status, (await res.json()).error];
    };
    for (
      const raw of [`${a}/..%2F${secret}`, `${a}/%2e%2e%2f${victim.id}%2fdoc%2fsecret.pdf`, `${a}/.%2Fx.pdf`]
    ) {
      assert.deepEqual(await upload(raw), [400, "InvalidKey"], raw);
    }
    assert.deepEqual(await upload(`${a}/%2E%2E/${secret}`), [400, "Unauthorized"]);
    const own = `${a}/mine.pdf`;
    assert.equal(
      (await attacker.client.storage.from("ai-documents").upload(own, new Blob(["mine"]))).error,
      null,
    );
    for (const destinationKey of [`${a}/../${victim.id}/doc/secret.pdf`, `${a}/./copy.pdf`]) {
      const moved = await fetch(`${p.url}/storage/v1/object/copy`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ bucketId: "ai-documents", sourceKey: own, destinationKey }),
      });
      const body = await moved.json();
      assert.deepEqual([moved.status, body.error], [400, "InvalidKey"], destinationKey);
    }
    const names = await p.db.query<{ name: string }>(
      `select name from storage.objects where bucket_id = 'ai-documents' and name like $1 order by name`,
      [`${a}/%`],
    );
    assert.deepEqual(names.rows.map((r) => r.name), [own]);
    // The victim's file is untouched.
    const back = await victim.client.storage.from("ai-documents").download(secret);
    assert.equal(await back.data?.text(), "victim bytes");
  },
);
