/**
 * Horizontal filtering (PostgREST's tables_views.rst "Operators", url_grammar.rst): every
 * operator, negation, quantifiers, logic trees, quoted values, through supabase-js and raw HTTP.
 */
import assert from "node:assert/strict";
import { anonClient } from "../helpers/platform.ts";
import { rest, restTest } from "./helpers.ts";

async function ids(p: Parameters<typeof rest>[0], table: string, query: string): Promise<number[]> {
  const r = await rest(p, `/${table}?select=id&order=id&${query}`);
  assert.equal(r.status, 200, `${query}: ${r.text}`);
  return (r.json as { id: number }[]).map((x) => x.id);
}

restTest("comparison operators and their negation", async (p) => {
  assert.deepEqual(await ids(p, "rt_projects", "id=eq.2"), [2]);
  assert.deepEqual(await ids(p, "rt_projects", "id=neq.2"), [1, 3, 4, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "budget=gt.250"), [1, 3]);
  assert.deepEqual(await ids(p, "rt_projects", "budget=gte.250"), [1, 2, 3]);
  assert.deepEqual(await ids(p, "rt_projects", "budget=lt.250"), [5]);
  assert.deepEqual(await ids(p, "rt_projects", "budget=lte.250"), [2, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "budget=not.gt.250"), [2, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "id=gt.1&id=lt.4"), [2, 3]);
});

restTest("like, ilike with * wildcards; match and imatch; quantifiers any/all", async (p) => {
  assert.deepEqual(await ids(p, "rt_projects", "name=like.*magnet"), [2]);
  assert.deepEqual(await ids(p, "rt_projects", "name=like.*Magnet"), []);
  assert.deepEqual(await ids(p, "rt_projects", "name=ilike.*MAGNET*"), [2]);
  assert.deepEqual(await ids(p, "rt_projects", "name=not.ilike.*A*"), [1]);
  assert.deepEqual(await ids(p, "rt_projects", "name=match.^[RG]"), [1, 2]);
  assert.deepEqual(await ids(p, "rt_projects", "name=imatch.^[rg]"), [1, 2]);
  assert.deepEqual(await ids(p, "rt_projects", "name=like(any).{*sled,*device}"), [1, 3]);
  assert.deepEqual(await ids(p, "rt_projects", "name=ilike(all).{*O*,*e*}"), [1, 3, 4, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "id=eq(any).{1,5}"), [1, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "id=gt(all).{1,3}"), [4, 5]);
  const db = anonClient(p);
  const r = await db.from("rt_projects").select("id").likeAnyOf("name", ["*SLED", "*report*"]).order("id");
  assert.deepEqual(r.data, [{ id: 5 }]);
  const r2 = await db.from("rt_projects").select("id").ilikeAnyOf("name", ["*SLED", "*report*"]).order("id");
  assert.deepEqual(r2.data, [{ id: 1 }, { id: 5 }]);
  const all = await db.from("rt_projects").select("id").likeAllOf("name", ["*e*", "*o*"]).order("id");
  assert.deepEqual(all.data, [{ id: 1 }, { id: 3 }, { id: 5 }]);
});

restTest("is null/not_null/true/false/unknown and isdistinct", async (p) => {
  assert.deepEqual(await ids(p, "rt_projects", "budget=is.null"), [4]);
  assert.deepEqual(await ids(p, "rt_projects", "budget=not.is.null"), [1, 2, 3, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "budget=is.not_null"), [1, 2, 3, 5]);
  assert.deepEqual(await ids(p, "rt_tasks", "done=is.true"), [1, 5]);
  assert.deepEqual(await ids(p, "rt_tasks", "done=is.false"), [2, 3, 4]);
  assert.deepEqual(await ids(p, "rt_tasks", "done=is.unknown"), []);
  // IS UNKNOWN is for booleans; Postgres refuses it on an integer, as it does under PostgREST.
  const unknownInt = await rest(p, "/rt_tasks?priority=is.unknown");
  assert.equal(unknownInt.status, 400);
  assert.equal((unknownInt.json as { code: string }).code, "42804");
  assert.deepEqual(await ids(p, "rt_clients", "tier=isdistinct.gold"), [2, 3]);
  assert.deepEqual(await ids(p, "rt_clients", "tier=not.isdistinct.gold"), [1]);
  const bad = await rest(p, "/rt_projects?budget=is.maybe");
  assert.equal(bad.status, 400);
  assert.equal((bad.json as { code: string }).code, "PGRST100");
});

restTest("in and not.in with quoted values holding commas, parentheses, quotes", async (p) => {
  assert.deepEqual(await ids(p, "rt_projects", "id=in.(1,3)"), [1, 3]);
  assert.deepEqual(await ids(p, "rt_projects", "id=not.in.(1,3)"), [2, 4, 5]);
  assert.deepEqual(await ids(p, "rt_projects", `name=in.("TPS reports, v2 (final)","Giant magnet")`), [2, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "id=in.()"), []);
  const db = anonClient(p);
  const r = await db.from("rt_projects").select("id").in("name", ["TPS reports, v2 (final)", 'say "hi"']);
  assert.deepEqual(r.data, [{ id: 5 }]);
  const n = await db.from("rt_projects").select("id").not("id", "in", "(1,2,3)").order("id");
  assert.deepEqual(n.data, [{ id: 4 }, { id: 5 }]);
});

restTest("array, JSON and range operators: cs cd ov sl sr nxl nxr adj", async (p) => {
  assert.deepEqual(await ids(p, "rt_projects", "tags=cs.{red}"), [1, 3]);
  assert.deepEqual(await ids(p, "rt_projects", "tags=cd.{red,fast,metal}"), [1, 2, 4]);
  assert.deepEqual(await ids(p, "rt_projects", "tags=ov.{metal,paper}"), [2, 5]);
  assert.deepEqual(await ids(p, "rt_projects", `meta=cs.{"owner":{"name":"Hank"}}`), [3]);
  assert.deepEqual(await ids(p, "rt_slots", "during=sl.[6,8)"), [1]);
  assert.deepEqual(await ids(p, "rt_slots", "during=sr.[6,8)"), [2]);
  assert.deepEqual(await ids(p, "rt_slots", "during=nxr.[1,9)"), [1]);
  assert.deepEqual(await ids(p, "rt_slots", "during=nxl.[2,30)"), [2]);
  assert.deepEqual(await ids(p, "rt_slots", "during=adj.[5,10)"), [1, 2]);
  const db = anonClient(p);
  const c = await db.from("rt_projects").select("id").contains("tags", ["big", "red"]);
  assert.deepEqual(c.data, [{ id: 3 }]);
  const o = await db.from("rt_projects").select("id").overlaps("tags", ["paper", "fast"]).order("id");
  assert.deepEqual(o.data, [{ id: 1 }, { id: 5 }]);
  const cd = await db.from("rt_projects").select("id").containedBy("tags", ["metal"]).order("id");
  assert.deepEqual(cd.data, [{ id: 2 }, { id: 4 }]);
  const rg = await db.from("rt_slots").select("id").rangeGt("during", "[6,8)");
  assert.deepEqual(rg.data, [{ id: 2 }]);
  const ra = await db.from("rt_slots").select("id").rangeAdjacent("during", "[20,25)");
  assert.deepEqual(ra.data, [{ id: 2 }]);
  const json = await db.from("rt_projects").select("id").contains("meta", { owner: { name: "Wile" } }).order(
    "id",
  );
  assert.deepEqual(json.data, [{ id: 1 }, { id: 2 }]);
});

restTest(
  "full-text search: fts, plfts, phfts, wfts, with a configuration, on tsvector and text",
  async (p) => {
    assert.deepEqual(await ids(p, "rt_projects", "search=fts.rocket"), [1]);
    assert.deepEqual(await ids(p, "rt_projects", "search=fts(english).rockets"), [1]);
    assert.deepEqual(await ids(p, "rt_projects", "search=plfts.giant magnet"), [2]);
    assert.deepEqual(await ids(p, "rt_projects", "search=phfts(english).magnet giant"), []);
    assert.deepEqual(await ids(p, "rt_projects", "search=wfts(english).device -rocket"), [3]);
    assert.deepEqual(await ids(p, "rt_projects", "search=not.fts.rocket"), [2, 3, 4, 5]);
    assert.deepEqual(await ids(p, "rt_projects", "name=fts(english).devices"), [3]);
    const db = anonClient(p);
    const r = await db.from("rt_projects").select("id").textSearch("search", "'giant' & 'magnet'");
    assert.deepEqual(r.data, [{ id: 2 }]);
    const w = await db.from("rt_projects").select("id").textSearch("search", "doomsday", {
      type: "websearch",
      config: "english",
    });
    assert.deepEqual(w.data, [{ id: 3 }]);
  },
);

restTest("JSON path filters use -> and ->> like the select", async (p) => {
  assert.deepEqual(await ids(p, "rt_projects", "meta->owner->>name=eq.Wile"), [1, 2]);
  assert.deepEqual(await ids(p, "rt_projects", "meta->size=gt.2"), [1, 3]);
  assert.deepEqual(await ids(p, "rt_projects", "meta->>size=is.null"), [4, 5]);
});

restTest("or/and trees, nested and negated, with quoted values; supabase-js or()", async (p) => {
  assert.deepEqual(await ids(p, "rt_projects", "or=(id.eq.1,id.eq.4)"), [1, 4]);
  assert.deepEqual(await ids(p, "rt_projects", "or=(id.eq.5,and(budget.gt.200,status.eq.draft))"), [2, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "not.or=(id.lt.3,budget.is.null)"), [3, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "and=(id.gt.1,or(status.eq.done,tags.cs.{metal}))"), [2, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "not.and=(id.gt.1,id.lt.5)"), [1, 5]);
  assert.deepEqual(await ids(p, "rt_projects", `or=(name.eq."TPS reports, v2 (final)",id.in.(1,2))`), [
    1,
    2,
    5,
  ]);
  assert.deepEqual(await ids(p, "rt_projects", "or=(budget.not.is.null,id.eq.4)&id=gt.2"), [3, 4, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "or=(tags.cs.{fast,red},tags.cs.{paper})"), [1, 5]);
  assert.deepEqual(await ids(p, "rt_projects", "or=(meta->owner->>name.eq.Hank,name.ilike.*sled)"), [1, 3]);
  const db = anonClient(p);
  const r = await db.from("rt_projects").select("id").or("status.eq.done,name.ilike.*magnet*").order("id");
  assert.deepEqual(r.data, [{ id: 2 }, { id: 5 }]);
  const bad = await rest(p, "/rt_projects?or=(id.eq.1,xor(id.eq.2))");
  assert.equal(bad.status, 400);
  assert.equal((bad.json as { code: string }).code, "PGRST100");
});

restTest("match(), filter() and not() from supabase-js", async (p) => {
  const db = anonClient(p);
  const m = await db.from("rt_projects").select("id").match({ status: "active", client_id: 2 });
  assert.deepEqual(m.data, [{ id: 3 }]);
  const f = await db.from("rt_projects").select("id").filter("tags", "cs", "{red}").order("id");
  assert.deepEqual(f.data, [{ id: 1 }, { id: 3 }]);
  const n = await db.from("rt_projects").select("id").not("budget", "is", null).order("id");
  assert.deepEqual(n.data, [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 5 }]);
});

restTest("malformed filters are 400 PGRST100; a value of the wrong type is 400 22P02", async (p) => {
  const unknownOp = await rest(p, "/rt_projects?id=foo.1");
  assert.equal(unknownOp.status, 400);
  assert.equal((unknownOp.json as { code: string }).code, "PGRST100");
  assert.match(
    (unknownOp.json as { message: string }).message,
    /^"failed to parse filter \(foo\.1\)" \(line 1, column 1\)$/,
  );
  const emptyValue = await rest(p, "/rt_projects?id=");
  assert.equal(emptyValue.status, 400);
  const badList = await rest(p, "/rt_projects?id=in.1,2");
  assert.equal(badList.status, 400);
  const wrongType = await rest(p, "/rt_projects?id=eq.abc");
  assert.equal(wrongType.status, 400);
  assert.deepEqual(wrongType.json, {
    code: "22P02",
    details: null,
    hint: null,
    message: 'invalid input syntax for type integer: "abc"',
  });
  const likeOnInt = await rest(p, "/rt_projects?id=like.1*");
  assert.equal(likeOnInt.status, 404);
  assert.equal((likeOnInt.json as { code: string }).code, "42883");
});

restTest("filter values are bound parameters: SQL in a value or identifier cannot escape", async (p) => {
  const injection = await rest(p, `/rt_projects?select=id&name=eq.${encodeURIComponent("x' or '1'='1")}`);
  assert.deepEqual(injection.json, []);
  const inList = await rest(
    p,
    `/rt_projects?select=id&name=in.(${encodeURIComponent(`"a\\"); drop table rt_tasks; --"`)})`,
  );
  assert.deepEqual(inList.json, []);
  const ident = await rest(p, `/rt_projects?select=${encodeURIComponent('id,"x\\" from rt_tasks; --"')}`);
  assert.equal(ident.status, 400);
  assert.equal((ident.json as { code: string }).code, "42703");
  // As in PostgREST, the select parser stops at the unmatched ")" and ignores the rest.
  const castInjection = await rest(
    p,
    `/rt_projects?select=${encodeURIComponent("id::int); drop table rt_tasks; --")}&id=eq.1`,
  );
  assert.deepEqual(castInjection.json, [{ id: 1 }]);
  const tasks = await rest(p, "/rt_tasks?select=id&limit=1");
  assert.equal(tasks.status, 200);
});
