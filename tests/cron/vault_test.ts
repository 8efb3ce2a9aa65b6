/**
 * Vault on the local platform: secrets encrypted at rest, decrypted_secrets for the privileged
 * roles only, and Supabase's documented "invoke an edge function every minute" migration
 * (cron + pg_net + vault) reaching the platform's own /functions/v1.
 */
import assert from "node:assert/strict";
import { type RequestContext, withRequestContext } from "../../stack/db/database.ts";
import { platformTest } from "../helpers/platform.ts";
import { sleep, waitFor } from "./helpers.ts";

const as = (role: string): RequestContext => ({
  role,
  claims: role === "anon" ? {} : { sub: crypto.randomUUID() },
});

platformTest(
  "create_secret stores the secret encrypted; decrypted_secrets shows it to the superuser",
  async (p) => {
    const plaintext = `s3cret-${crypto.randomUUID()}`;
    const { rows } = await p.db.query<{ id: string }>(
      `select vault.create_secret($1, 'first_secret', 'a description') as id`,
      [plaintext],
    );
    const id = rows[0].id;
    assert.match(id, /^[0-9a-f-]{36}$/);
    const stored = await p.db.query<{ secret: string; description: string }>(
      `select secret, description from vault.secrets where id = $1`,
      [id],
    );
    assert.equal(stored.rows[0].description, "a description");
    assert.ok(!stored.rows[0].secret.includes(plaintext), "the table alone does not reveal the secret");
    assert.ok(!atob(stored.rows[0].secret).includes(plaintext));
    const dec = await p.db.query<{ decrypted_secret: string; name: string }>(
      `select name, decrypted_secret from vault.decrypted_secrets where id = $1`,
      [id],
    );
    assert.deepEqual(dec.rows[0], { name: "first_secret", decrypted_secret: plaintext });
  },
);

platformTest("the same secret encrypts differently each time", async (p) => {
  await p.db.query(`select vault.create_secret('same', 'same_a'), vault.create_secret('same', 'same_b')`);
  const r = await p.db.query<{ secret: string }>(
    `select secret from vault.secrets where name in ('same_a', 'same_b')`,
  );
  assert.equal(r.rows.length, 2);
  assert.notEqual(r.rows[0].secret, r.rows[1].secret);
});

platformTest("service_role may create and read secrets", async (p) => {
  const read = await withRequestContext(p.db, as("service_role"), async (tx) => {
    await tx.query(`select vault.create_secret('from-service-role', 'service_secret')`);
    return (await tx.query<{ decrypted_secret: string }>(
      `select decrypted_secret from vault.decrypted_secrets where name = 'service_secret'`,
    )).rows;
  });
  assert.deepEqual(read, [{ decrypted_secret: "from-service-role" }]);
  await assert.rejects(
    withRequestContext(p.db, as("service_role"), (tx) => tx.query(`select * from vault._root_key`)),
    /permission denied for table _root_key/,
  );
});

platformTest("anon and authenticated are refused every part of vault", async (p) => {
  await p.db.query(`select vault.create_secret('not-for-users', 'user_refused')`);
  for (const role of ["anon", "authenticated"]) {
    for (
      const sql of [
        `select decrypted_secret from vault.decrypted_secrets`,
        `select secret from vault.secrets`,
        `select vault.create_secret('x', 'by_${role}')`,
        `select key from vault._root_key`,
      ]
    ) {
      await assert.rejects(
        withRequestContext(p.db, as(role), (tx) => tx.query(sql)),
        /permission denied for schema vault/,
        `${role}: ${sql}`,
      );
    }
  }
});

platformTest("update_secret re-encrypts and renames", async (p) => {
  const { rows } = await p.db.query<{ id: string }>(`select vault.create_secret('v1', 'rotating') as id`);
  const id = rows[0].id;
  const before = (await p.db.query<{ secret: string; updated_at: Date }>(
    `select secret, updated_at from vault.secrets where id = $1`,
    [id],
  )).rows[0];
  await sleep(10);
  await p.db.query(`select vault.update_secret($1, 'v2', 'rotated', 'new description')`, [id]);
  const after = (await p.db.query<Record<string, unknown>>(
    `select name, description, decrypted_secret, secret, updated_at from vault.decrypted_secrets where id = $1`,
    [id],
  )).rows[0];
  assert.equal(after.name, "rotated");
  assert.equal(after.description, "new description");
  assert.equal(after.decrypted_secret, "v2");
  assert.notEqual(after.secret, before.secret);
  assert.ok((after.updated_at as Date) > before.updated_at);
  // Omitted arguments leave their fields alone.
  await p.db.query(`select vault.update_secret($1, new_description := 'only this')`, [id]);
  const kept = (await p.db.query<Record<string, unknown>>(
    `select name, decrypted_secret from vault.decrypted_secrets where id = $1`,
    [id],
  )).rows[0];
  assert.deepEqual(kept, { name: "rotated", decrypted_secret: "v2" });
});

/** supabase.com/docs/guides/functions/schedule-functions, with a seconds schedule. */
const docsSnippet = (functionName: string, schedule: string) => `
select cron.schedule(
  'invoke-function-every-minute',
  '${schedule}',
  $$
  select
    net.http_post(
        url:= (select decrypted_secret from vault.decrypted_secrets where name = 'project_url') || '/functions/v1/${functionName}',
        headers:=jsonb_build_object(
          'Content-type', 'application/json',
          'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'anon_key')
        ),
        body:=concat('{"time": "', now(), '"}')::jsonb
    ) as request_id;
  $$
);`;

platformTest("Supabase's scheduled-function migration reaches /functions/v1/health-check", async (p) => {
  // As the migration would run: secrets first, then the job, in one transaction. project_url is
  // there already: the platform writes it at every start (stack/cron/secrets.ts).
  assert.deepEqual(
    (await p.db.query(`select decrypted_secret from vault.decrypted_secrets where name = 'project_url'`))
      .rows,
    [{ decrypted_secret: p.url }],
  );
  await p.db.transaction((tx) =>
    tx.exec(`
      select vault.create_secret('${p.config.anonKey}', 'anon_key');
      ${docsSnippet("health-check", "1 second")}
    `)
  );
  try {
    // health-check answers GET only, so the docs' POST gets the function's own 404: proof that
    // the request passed the gateway and verify_jwt (else 401) and reached the function.
    const res = await waitFor(
      "the function's answer",
      async () =>
        (await p.db.query<{ status_code: number; content: string }>(
          `select status_code, content from net._http_response where content like '%/health-check%' limit 1`,
        )).rows[0],
    );
    assert.equal(res.status_code, 404);
    assert.match(res.content, /No route for POST \/health-check/);
    const runs = await p.db.query<{ status: string; return_message: string }>(
      `select d.status, d.return_message from cron.job_run_details d join cron.job j using (jobid)
        where j.jobname = 'invoke-function-every-minute' and d.status = 'succeeded' limit 1`,
    );
    assert.deepEqual(runs.rows[0], { status: "succeeded", return_message: "SELECT 1" });

    // The same secrets with net.http_get get the function's real answer.
    const { rows } = await p.db.query<{ id: string }>(
      `select net.http_get(
         (select decrypted_secret from vault.decrypted_secrets where name = 'project_url') || '/functions/v1/health-check',
         headers := jsonb_build_object('Authorization',
           'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'anon_key'))
       )::text as id`,
    );
    const ok = await waitFor(
      "the GET answer",
      async () =>
        (await p.db.query<{ status_code: number; content: string }>(
          `select status_code, content from net._http_response where id = $1`,
          [rows[0].id],
        )).rows[0],
    );
    assert.equal(ok.status_code, 200);
    assert.equal(JSON.parse(ok.content).status, "healthy");
  } finally {
    await p.db.query(`select cron.unschedule('invoke-function-every-minute')`);
  }
});
