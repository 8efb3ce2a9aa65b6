/**
 * Ordering, limits, offsets, Range headers, counts and their statuses (PostgREST's
 * pagination_count.rst, RangeQuery.hs): Content-Range, 206 and 416 exactly as PostgREST sends them.
 */
import assert from "node:assert/strict";
import { anonClient, serviceClient } from "../helpers/platform.ts";
import { rest, restTest } from "./helpers.ts";

restTest("order: asc/desc, nullsfirst/nullslast, several columns, JSON paths", async (p) => {
  const r = await rest(p, "/rt_tasks?select=id&order=priority.desc.nullsfirst,id");
  assert.deepEqual((r.json as { id: number }[]).map((x) => x.id), [3, 5, 2, 1, 4]);
  const last = await rest(p, "/rt_tasks?select=id&order=priority.asc.nullslast,id.desc");
  assert.deepEqual((last.json as { id: number }[]).map((x) => x.id), [4, 1, 2, 5, 3]);
  const json = await rest(p, "/rt_projects?select=id&meta->size=not.is.null&order=meta->size.desc");
  assert.deepEqual((json.json as { id: number }[]).map((x) => x.id), [3, 1, 2]);
  const { data } = await anonClient(p).from("rt_tasks").select("id").order("priority", {
    ascending: false,
    nullsFirst: false,
  })
    .order("id");
  assert.deepEqual(data?.map((x) => x.id), [5, 2, 1, 4, 3]);
  const bad = await rest(p, "/rt_tasks?order=id.sideways");
  assert.equal(bad.status, 400);
  assert.equal((bad.json as { code: string }).code, "PGRST100");
});

restTest("limit and offset; supabase-js range(); Content-Range without a count", async (p) => {
  const r = await rest(p, "/rt_projects?select=id&order=id&limit=2&offset=1");
  assert.equal(r.status, 200);
  assert.deepEqual(r.json, [{ id: 2 }, { id: 3 }]);
  assert.equal(r.headers.get("content-range"), "1-2/*");
  const { data } = await anonClient(p).from("rt_projects").select("id").order("id").range(3, 10);
  assert.deepEqual(data, [{ id: 4 }, { id: 5 }]);
  const beyond = await rest(p, "/rt_projects?select=id&offset=10");
  assert.equal(beyond.status, 200);
  assert.deepEqual(beyond.json, []);
  assert.equal(beyond.headers.get("content-range"), "*/*");
  const zero = await rest(p, "/rt_projects?select=id&limit=0");
  assert.deepEqual(zero.json, []);
  const negative = await rest(p, "/rt_projects?limit=-1");
  assert.equal(negative.status, 416);
  assert.equal((negative.json as { code: string }).code, "PGRST103");
  const ignored = await rest(p, "/rt_projects?select=id&limit=abc&order=id");
  assert.equal((ignored.json as unknown[]).length, 5);
});

restTest("Range and Range-Unit headers, open ranges, and a malformed range", async (p) => {
  const r = await rest(p, "/rt_projects?select=id&order=id", {
    headers: { Range: "1-2", "Range-Unit": "items" },
  });
  assert.deepEqual(r.json, [{ id: 2 }, { id: 3 }]);
  assert.equal(r.headers.get("content-range"), "1-2/*");
  const open = await rest(p, "/rt_projects?select=id&order=id", { headers: { Range: "3-" } });
  assert.deepEqual(open.json, [{ id: 4 }, { id: 5 }]);
  const both = await rest(p, "/rt_projects?select=id&order=id&limit=2", { headers: { Range: "0-3" } });
  assert.deepEqual(both.json, [{ id: 1 }, { id: 2 }]);
  const inverted = await rest(p, "/rt_projects", { headers: { Range: "5-2" } });
  assert.equal(inverted.status, 416);
  assert.deepEqual(inverted.json, {
    code: "PGRST103",
    details: "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
    hint: null,
    message: "Requested range not satisfiable",
  });
});

restTest("count=exact: 200 for a full page, 206 for a partial one, */0 when empty", async (p) => {
  const all = await rest(p, "/rt_projects?select=id", { headers: { Prefer: "count=exact" } });
  assert.equal(all.status, 200);
  assert.equal(all.headers.get("content-range"), "0-4/5");
  assert.equal(all.headers.get("preference-applied"), "count=exact");
  const page = await rest(p, "/rt_projects?select=id&limit=2&offset=2", {
    headers: { Prefer: "count=exact" },
  });
  assert.equal(page.status, 206);
  assert.equal(page.headers.get("content-range"), "2-3/5");
  const empty = await rest(p, "/rt_projects?select=id&id=gt.100", { headers: { Prefer: "count=exact" } });
  assert.equal(empty.status, 200);
  assert.equal(empty.headers.get("content-range"), "*/0");
  // An offset equal to the total is not out of bounds, but the page is short: 206 (RangeQuery.hs).
  const last = await rest(p, "/rt_projects?select=id&offset=5", { headers: { Prefer: "count=exact" } });
  assert.equal(last.status, 206);
  assert.equal(last.headers.get("content-range"), "*/5");
  const { count, data } = await anonClient(p).from("rt_projects").select("id", { count: "exact" }).eq(
    "status",
    "active",
  );
  assert.equal(count, 2);
  assert.equal(data?.length, 2);
});

restTest("an offset past the total is 416 PGRST103 with the row count", async (p) => {
  const r = await rest(p, "/rt_projects?select=id&offset=7", { headers: { Prefer: "count=exact" } });
  assert.equal(r.status, 416);
  assert.equal(r.headers.get("content-range"), "*/5");
  assert.deepEqual(r.json, {
    code: "PGRST103",
    details: "An offset of 7 was requested, but there are only 5 rows.",
    hint: null,
    message: "Requested range not satisfiable",
  });
});

restTest("count=planned and count=estimated give a number in Content-Range", async (p) => {
  const planned = await rest(p, "/rt_projects?select=id&limit=1", { headers: { Prefer: "count=planned" } });
  assert.equal(planned.headers.get("preference-applied"), "count=planned");
  const [, total] = (planned.headers.get("content-range") ?? "").split("/");
  assert.match(total, /^\d+$/);
  const estimated = await rest(p, "/rt_projects?select=id&limit=1", {
    headers: { Prefer: "count=estimated" },
  });
  // Below max-rows the estimate is the exact count.
  assert.equal(estimated.headers.get("content-range"), "0-0/5");
  assert.equal(estimated.status, 206);
  const { count } = await anonClient(p).from("rt_projects").select("*", { count: "planned", head: true });
  assert.equal(typeof count, "number");
});

restTest("max rows 1000: a read returns at most 1000 rows, with the real total", async (p) => {
  await p.db.exec(`create table public.rt_many (id int primary key);
    insert into public.rt_many select generate_series(1, 1005);
    grant select on public.rt_many to anon, service_role;
    notify pgrst, 'reload schema';`);
  const r = await rest(p, "/rt_many?select=id&order=id", { headers: { Prefer: "count=exact" } });
  assert.equal(r.status, 206);
  assert.equal((r.json as unknown[]).length, 1000);
  assert.equal(r.headers.get("content-range"), "0-999/1005");
  const tail = await rest(p, "/rt_many?select=id&order=id&offset=1000&limit=10", {
    headers: { Prefer: "count=exact" },
  });
  assert.deepEqual(tail.json, [{ id: 1001 }, { id: 1002 }, { id: 1003 }, { id: 1004 }, { id: 1005 }]);
  assert.equal(tail.headers.get("content-range"), "1000-1004/1005");
  const svc = await serviceClient(p).from("rt_many").select("id", { count: "exact", head: true });
  assert.equal(svc.count, 1005);
});
