/**
 * pg_net on the local platform: requests queued by net.http_get/post/delete go out only when
 * the calling transaction commits, exactly once, with the request's timeout, and their outcome
 * (response or error) lands in net._http_response.
 */
import assert from "node:assert/strict";
import { type PGlite, withRequestContext } from "../../stack/db/database.ts";
import { platformTest } from "../helpers/platform.ts";
import { closedPort, responseOf, sleep, startTarget, waitFor } from "./helpers.ts";

const requestId = async (p: { db: PGlite }, sql: string, args: unknown[] = []) =>
  (await p.db.query<{ id: string }>(sql, args)).rows[0].id;

platformTest("a rolled-back transaction sends nothing; a committed one sends", async (p) => {
  const target = startTarget();
  try {
    await assert.rejects(
      p.db.transaction(async (tx) => {
        await tx.query(`select net.http_post(url := $1, body := '{"n":1}'::jsonb)`, [
          `${target.url}/rolled-back`,
        ]);
        throw new Error("abandon the transaction");
      }),
      /abandon the transaction/,
    );
    await p.db.transaction(async (tx) => {
      await tx.query(`select net.http_post(url := $1)`, [`${target.url}/explicit-rollback`]);
      await tx.rollback();
    });
    await p.db.transaction(async (tx) => {
      await tx.query(`select net.http_post(url := $1)`, [`${target.url}/committed`]);
      // Not sent before the commit, even if the worker had a chance to look.
      await sleep(200);
      assert.equal(target.to("/committed").length, 0);
    });
    await waitFor("the committed request", () => target.to("/committed")[0]);
    await sleep(200);
    assert.deepEqual(target.received.map((r) => r.path), ["/committed"]);
    const queued = await p.db.query(`select 1 from net.http_request_queue`);
    assert.equal(queued.rows.length, 0);
  } finally {
    await target.close();
  }
});

platformTest("a closed port is recorded as an error, once", async (p) => {
  const id = await requestId(p, `select net.http_get($1)::text as id`, [
    `http://127.0.0.1:${closedPort()}/x`,
  ]);
  const res = await waitFor("the error row", () => responseOf(p.db, id));
  assert.equal(res.status_code, null);
  assert.equal(res.timed_out, false);
  assert.ok(res.error_msg && res.error_msg.length > 0);
  await sleep(500);
  const rows = await p.db.query(`select 1 from net._http_response where id = $1`, [id]);
  assert.equal(rows.rows.length, 1, "not retried");
  const collected = await p.db.query<{ status: string; message: string }>(
    `select (r).status, (r).message from (select net._http_collect_response($1::bigint) r) s`,
    [id],
  );
  assert.deepEqual(collected.rows[0], { status: "ERROR", message: res.error_msg });
});

platformTest("a server that hangs past timeout_milliseconds is recorded as timed out, once", async (p) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const target = startTarget(() => released.then(() => new Response("too late")));
  try {
    const id = await requestId(
      p,
      `select net.http_post(url := $1, body := '{}'::jsonb, timeout_milliseconds := 300)::text as id`,
      [`${target.url}/slow`],
    );
    const res = await waitFor("the timeout row", () => responseOf(p.db, id), 5000);
    assert.equal(res.timed_out, true);
    assert.match(res.error_msg ?? "", /^Timeout of 300 ms reached/);
    assert.equal(res.status_code, null);
    await sleep(700);
    assert.equal(target.to("/slow").length, 1, "not retried");
  } finally {
    release();
    await target.close();
  }
});

platformTest("http_get sends params and headers; http_delete sends its body", async (p) => {
  const target = startTarget((r) => new Response(`you sent ${r.method}`, { status: 201 }));
  try {
    const getId = await requestId(
      p,
      `select net.http_get($1, params := '{"q":"a b","x":"1&2"}', headers := '{"X-Test":"yes"}')::text as id`,
      [`${target.url}/get?keep=1`],
    );
    const delId = await requestId(
      p,
      `select net.http_delete($1, body := '{"d":1}'::jsonb)::text as id`,
      [`${target.url}/del`],
    );
    const get = await waitFor("the GET", () => target.to("/get")[0]);
    assert.equal(get.method, "GET");
    assert.deepEqual(get.query, { keep: "1", q: "a b", x: "1&2" });
    assert.equal(get.headers["x-test"], "yes");
    const del = await waitFor("the DELETE", () => target.to("/del")[0]);
    assert.equal(del.method, "DELETE");
    assert.deepEqual(JSON.parse(del.body), { d: 1 });

    const res = await waitFor("the GET response", () => responseOf(p.db, getId));
    assert.equal(res.status_code, 201);
    assert.equal(res.content, "you sent GET");
    assert.match(res.content_type ?? "", /^text\/plain/);
    await waitFor("the DELETE response", () => responseOf(p.db, delId));

    const collected = await p.db.query<{ status: string; code: number; body: string }>(
      `select (r).status, ((r).response).status_code as code, ((r).response).body
         from (select net._http_collect_response($1::bigint) r) s`,
      [getId],
    );
    assert.deepEqual(collected.rows[0], { status: "SUCCESS", code: 201, body: "you sent GET" });
  } finally {
    await target.close();
  }
});

platformTest("http_post takes only JSON, as pg_net does", async (p) => {
  await assert.rejects(
    p.db.query(`select net.http_post('http://127.0.0.1:1/', headers := '{"Content-Type":"text/plain"}')`),
    /Content-Type header must be "application\/json"/,
  );
  await assert.rejects(
    p.db.query(`select net.http_post('http://127.0.0.1:1/', body := null)`),
    /body must not be null/,
  );
});

platformTest("_http_collect_response reports unknown ids and refuses to block", async (p) => {
  const r = await p.db.query<{ status: string; message: string }>(
    `select (r).status, (r).message from (select net._http_collect_response(-42) r) s`,
  );
  assert.deepEqual(r.rows[0], { status: "ERROR", message: "request matching request_id not found" });
  await assert.rejects(
    p.db.query(`select net._http_collect_response(-42, async := false)`),
    /cannot wait on the local platform/,
  );
});

platformTest("API roles may queue requests but not read the queue or responses", async (p) => {
  const target = startTarget();
  try {
    for (const role of ["anon", "authenticated", "service_role"]) {
      await withRequestContext(
        p.db,
        { role, claims: {} },
        (tx) => tx.query(`select net.http_post(url := $1, body := '{}'::jsonb)`, [`${target.url}/${role}`]),
      );
      await assert.rejects(
        withRequestContext(p.db, { role, claims: {} }, (tx) => tx.query(`select * from net._http_response`)),
        /permission denied for table _http_response/,
        role,
      );
      await assert.rejects(
        withRequestContext(
          p.db,
          { role, claims: {} },
          (tx) => tx.query(`select * from net.http_request_queue`),
        ),
        /permission denied for table http_request_queue/,
        role,
      );
    }
    await waitFor("the three requests", () => target.received.length === 3);
  } finally {
    await target.close();
  }
});

platformTest("responses older than pg_net.ttl (6 hours) are purged", async (p) => {
  await p.db.query(
    `insert into net._http_response (id, status_code, created)
     values (-1, 200, now() - interval '7 hours'), (-2, 200, now() - interval '5 hours')`,
  );
  await p.db.query(`select net.wake()`);
  await waitFor("the purge", async () => (await responseOf(p.db, -1)) === undefined);
  assert.ok(await responseOf(p.db, -2), "a 5-hour-old response is kept");
  await p.db.query(`delete from net._http_response where id = -2`);
});
