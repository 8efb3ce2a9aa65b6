/**
 * Reading through /rest/v1: columns, aliases, casts, JSON paths and every kind of embedding, as
 * PostgREST documents them (references/api/tables_views.rst, resource_embedding.rst), through
 * supabase-js and raw HTTP.
 */
import assert from "node:assert/strict";
import { anonClient } from "../helpers/platform.ts";
import { rest, restTest } from "./helpers.ts";

restTest("columns, aliases, casts and JSON paths (supabase-js)", async (p) => {
  const db = anonClient(p);
  const { data, error, status } = await db.from("rt_projects")
    .select("id,title:name,budget::text,owner:meta->owner->>name,meta->size,tags")
    .lte("id", 2)
    .order("id");
  assert.equal(error, null);
  assert.equal(status, 200);
  assert.deepEqual(data, [
    { id: 1, title: "Rocket sled", budget: "1000.50", owner: "Wile", size: 3, tags: ["fast", "red"] },
    { id: 2, title: "Giant magnet", budget: "250.00", owner: "Wile", size: 1, tags: ["metal"] },
  ]);
});

restTest("select=* and the default select return every column; quoted identifiers work", async (p) => {
  const all = await rest(p, "/rt_clients?id=eq.3");
  assert.equal(all.status, 200);
  assert.deepEqual(all.json, [{ id: 3, name: "Initech", tier: null }]);
  assert.equal(all.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(all.headers.get("content-profile"), "public");
  const weird = await rest(
    p,
    `/${encodeURIComponent('rt weird "names"')}?select=${encodeURIComponent('"the id","a,b(c)"')}&order=${
      encodeURIComponent('"the id"')
    }`,
  );
  assert.equal(weird.status, 200);
  assert.deepEqual(weird.json, [{ "the id": 1, "a,b(c)": "x" }, { "the id": 2, "a,b(c)": "y" }]);
});

restTest("many-to-one gives an object, one-to-many an array, nested and aliased", async (p) => {
  const { data, error } = await anonClient(p).from("rt_clients")
    .select("name, projects:rt_projects(name, rt_tasks(title), client:rt_clients(name))")
    .eq("id", 1)
    .order("id", { referencedTable: "rt_projects" })
    .order("id", { referencedTable: "rt_projects.rt_tasks" });
  assert.equal(error, null);
  assert.deepEqual(data, [{
    name: "Acme",
    projects: [
      {
        name: "Rocket sled",
        rt_tasks: [{ title: "Buy rockets" }, { title: "Paint red" }, { title: "Test run" }],
        client: { name: "Acme" },
      },
      { name: "Giant magnet", rt_tasks: [{ title: "Find magnet" }], client: { name: "Acme" } },
    ],
  }]);
  const orphan = await rest(p, "/rt_projects?select=name,rt_clients(name)&id=eq.4");
  assert.deepEqual(orphan.json, [{ name: "Orphan idea", rt_clients: null }]);
});

restTest("many-to-many through a junction table, one-to-one both ways, view embedding", async (p) => {
  const m2m = await rest(
    p,
    "/rt_projects?select=id,rt_people(name)&id=in.(1,4)&order=id&rt_people.order=name.desc",
  );
  assert.deepEqual(m2m.json, [{ id: 1, rt_people: [{ name: "Brian" }, { name: "Ada" }] }, {
    id: 4,
    rt_people: [],
  }]);
  // The junction's foreign keys both sit in its primary key; its own columns stay reachable.
  const junction = await rest(p, "/rt_project_members?select=rt_people(name)&project_id=eq.3");
  assert.deepEqual(junction.json, [{ rt_people: { name: "Cleo" } }]);
  const o2o = await rest(p, "/rt_people?select=name,rt_person_profiles(bio)&id=in.(1,3)&order=id");
  assert.deepEqual(o2o.json, [{ name: "Ada", rt_person_profiles: { bio: "Boss" } }, {
    name: "Cleo",
    rt_person_profiles: null,
  }]);
  const back = await rest(p, "/rt_person_profiles?select=bio,rt_people(name)&person_id=eq.2");
  assert.deepEqual(back.json, [{ bio: "Engineer", rt_people: { name: "Brian" } }]);
  // The view exposes rt_projects.id and client_id, so it inherits their relationships.
  const view = await rest(p, "/rt_project_summaries?select=title,rt_clients(name),rt_tasks(title)&id=eq.2");
  assert.deepEqual(view.json, [{
    title: "Giant magnet",
    rt_clients: { name: "Acme" },
    rt_tasks: [{ title: "Find magnet" }],
  }]);
  const toView = await rest(p, "/rt_clients?select=name,rt_project_summaries(title)&id=eq.2");
  assert.deepEqual(toView.json, [{ name: "Globex", rt_project_summaries: [{ title: "Doomsday device" }] }]);
});

restTest("ambiguous embeds: 300 PGRST201 with PostgREST's details; hints resolve them", async (p) => {
  const r = await rest(p, "/rt_people?select=name,rt_messages(body)");
  assert.equal(r.status, 300);
  assert.deepEqual(r.json, {
    code: "PGRST201",
    details: [
      {
        cardinality: "one-to-many",
        embedding: "rt_people with rt_messages",
        relationship: "rt_messages_sender_id_fkey using rt_people(id) and rt_messages(sender_id)",
      },
      {
        cardinality: "one-to-many",
        embedding: "rt_people with rt_messages",
        relationship: "rt_messages_receiver_id_fkey using rt_people(id) and rt_messages(receiver_id)",
      },
    ],
    hint:
      "Try changing 'rt_messages' to one of the following: 'rt_messages!rt_messages_sender_id_fkey', 'rt_messages!rt_messages_receiver_id_fkey'. Find the desired relationship in the 'details' key.",
    message: "Could not embed because more than one relationship was found for 'rt_people' and 'rt_messages'",
  });
  const hinted = await rest(
    p,
    "/rt_people?select=name,sent:rt_messages!rt_messages_sender_id_fkey(body),received:rt_messages!receiver_id(body)&id=eq.1",
  );
  assert.deepEqual(hinted.json, [{
    name: "Ada",
    sent: [{ body: "hi Brian" }],
    received: [{ body: "hi Ada" }],
  }]);
  // Many-to-one the other way: the foreign-key column as target, or the constraint as hint.
  const m2o = await rest(
    p,
    "/rt_messages?select=body,from:sender_id(name),to:rt_people!rt_messages_receiver_id_fkey(name)&order=id",
  );
  assert.deepEqual(m2o.json, [
    { body: "hi Brian", from: { name: "Ada" }, to: { name: "Brian" } },
    { body: "hi Ada", from: { name: "Brian" }, to: { name: "Ada" } },
  ]);
});

restTest("recursive relationships: self reference picks one-to-many; computed relationships", async (p) => {
  const reports = await rest(p, "/rt_people?select=name,rt_people(name)&id=eq.1&rt_people.order=id");
  assert.deepEqual(reports.json, [{ name: "Ada", rt_people: [{ name: "Brian" }, { name: "Cleo" }] }]);
  const computed = await rest(p, "/rt_people?select=name,rt_manager(name),rt_reports(name)&id=eq.2");
  assert.deepEqual(computed.json, [{
    name: "Brian",
    rt_manager: { name: "Ada" },
    rt_reports: [{ name: "Dmitri" }],
  }]);
});

restTest("!inner filters the top level; embedded filters alone do not", async (p) => {
  const db = anonClient(p);
  const loose = await db.from("rt_clients").select("name, rt_projects(name)").eq(
    "rt_projects.status",
    "active",
  ).order("id");
  assert.deepEqual(loose.data, [
    { name: "Acme", rt_projects: [{ name: "Rocket sled" }] },
    { name: "Globex", rt_projects: [{ name: "Doomsday device" }] },
    { name: "Initech", rt_projects: [] },
  ]);
  const inner = await db.from("rt_clients").select("name, rt_projects!inner(name)").eq(
    "rt_projects.status",
    "active",
  )
    .order("id");
  assert.deepEqual(inner.data, [
    { name: "Acme", rt_projects: [{ name: "Rocket sled" }] },
    { name: "Globex", rt_projects: [{ name: "Doomsday device" }] },
  ]);
  const count = await rest(p, "/rt_clients?select=name,rt_projects!inner()&rt_projects.status=eq.done", {
    headers: { Prefer: "count=exact" },
  });
  assert.deepEqual(count.json, [{ name: "Initech" }]);
  assert.equal(count.headers.get("content-range"), "0-0/1");
});

restTest("rel=is.null is an anti-join, rel=not.is.null an inner join, also inside or=()", async (p) => {
  const none = await rest(p, "/rt_projects?select=id,rt_tasks()&rt_tasks=is.null&order=id");
  assert.deepEqual(none.json, [{ id: 4 }, { id: 5 }]);
  const some = await rest(
    p,
    "/rt_projects?select=id,rt_tasks(title)&rt_tasks.done=eq.true&rt_tasks=not.is.null&order=id",
  );
  assert.deepEqual(some.json, [{ id: 1, rt_tasks: [{ title: "Buy rockets" }] }, {
    id: 3,
    rt_tasks: [{ title: "Evil plan" }],
  }]);
  const noClient = await rest(p, "/rt_projects?select=id,rt_clients()&rt_clients=is.null");
  assert.deepEqual(noClient.json, [{ id: 4 }]);
  const either = await rest(
    p,
    "/rt_projects?select=id,rt_clients(),rt_tasks()&rt_clients.tier=eq.silver&rt_tasks.priority=eq.1&or=(rt_clients.not.is.null,rt_tasks.not.is.null)&order=id",
  );
  assert.deepEqual(either.json, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  const bad = await rest(p, "/rt_projects?select=id,rt_tasks()&rt_tasks=eq.1");
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.json, {
    code: "PGRST120",
    details: "Only is null or not is null filters are allowed on embedded resources",
    hint: null,
    message: "Bad operator on the 'rt_tasks' embedded resource",
  });
});

restTest("embedded order, limit, offset and or; ordering by a to-one column", async (p) => {
  const r = await rest(
    p,
    "/rt_projects?select=id,rt_tasks(id)&id=eq.1&rt_tasks.order=id.desc&rt_tasks.limit=2&rt_tasks.offset=1",
  );
  assert.deepEqual(r.json, [{ id: 1, rt_tasks: [{ id: 2 }, { id: 1 }] }]);
  const ored = await rest(
    p,
    "/rt_projects?select=id,rt_tasks(id)&id=eq.1&rt_tasks.or=(id.eq.1,priority.is.null)&rt_tasks.order=id",
  );
  assert.deepEqual(ored.json, [{ id: 1, rt_tasks: [{ id: 1 }, { id: 3 }] }]);
  const byClient = await rest(
    p,
    "/rt_projects?select=id,rt_clients(name)&client_id=not.is.null&order=rt_clients(name).desc,id",
  );
  assert.deepEqual((byClient.json as { id: number }[]).map((x) => x.id), [5, 3, 1, 2]);
  const toMany = await rest(p, "/rt_clients?select=id,rt_projects(name)&order=rt_projects(name)");
  assert.equal(toMany.status, 400);
  assert.equal((toMany.json as { code: string }).code, "PGRST118");
  const notEmbedded = await rest(p, "/rt_clients?select=id&rt_projects.name=eq.x");
  assert.equal(notEmbedded.status, 400);
  assert.deepEqual(notEmbedded.json, {
    code: "PGRST108",
    details: null,
    hint: "Verify that 'rt_projects' is included in the 'select' query parameter.",
    message: "'rt_projects' is not an embedded resource in this request",
  });
});

restTest("spread: to-one lifts columns, to-many gives arrays, through a junction", async (p) => {
  const one = await rest(p, "/rt_projects?select=name,...rt_clients(client:name,tier)&id=eq.3");
  assert.deepEqual(one.json, [{ name: "Doomsday device", client: "Globex", tier: "silver" }]);
  const many = await rest(
    p,
    "/rt_clients?select=name,...rt_projects(project_names:name)&id=eq.1&rt_projects.order=id",
  );
  assert.deepEqual(many.json, [{ name: "Acme", project_names: ["Rocket sled", "Giant magnet"] }]);
  const junction = await rest(
    p,
    "/rt_projects?select=id,members:rt_project_members(...rt_people(name))&id=eq.1&members.order=person_id",
  );
  assert.deepEqual(junction.json, [{ id: 1, members: [{ name: "Ada" }, { name: "Brian" }] }]);
});

restTest("missing relationship, table and column: PostgREST's codes", async (p) => {
  const rel = await rest(p, "/rt_clients?select=*,rt_slots(*)");
  assert.equal(rel.status, 400);
  const { hint: _hint, ...body } = rel.json as Record<string, unknown>;
  assert.deepEqual(body, {
    code: "PGRST200",
    details:
      "Searched for a foreign key relationship between 'rt_clients' and 'rt_slots' in the schema 'public', but no matches were found.",
    message: "Could not find a relationship between 'rt_clients' and 'rt_slots' in the schema cache",
  });
  const typo = await rest(p, "/rt_clients?select=*,rt_project(*)");
  assert.equal(
    (typo.json as { hint: string }).hint,
    "Perhaps you meant 'rt_projects' instead of 'rt_project'.",
  );
  const table = await rest(p, "/rt_projectz");
  assert.equal(table.status, 404);
  assert.deepEqual(table.json, {
    code: "PGRST205",
    details: null,
    hint: "Perhaps you meant the table 'public.rt_projects'",
    message: "Could not find the table 'public.rt_projectz' in the schema cache",
  });
  const column = await rest(p, "/rt_clients?select=nope");
  assert.equal(column.status, 400);
  assert.equal((column.json as { code: string }).code, "42703");
  assert.equal((column.json as { message: string }).message, "column rt_clients.nope does not exist");
  const privateTable = await rest(p, "/rt_secrets");
  assert.equal(privateTable.status, 404);
});

restTest("aggregates are refused as on hosted Supabase (db-aggregates-enabled off)", async (p) => {
  const r = await rest(p, "/rt_projects?select=budget.sum()");
  assert.equal(r.status, 400);
  assert.deepEqual(r.json, {
    code: "PGRST123",
    details: null,
    hint: null,
    message: "Use of aggregate functions is not allowed",
  });
  const count = await rest(p, "/rt_projects?select=count()");
  assert.equal((count.json as { code: string }).code, "PGRST123");
});

restTest("single object, CSV, stripped nulls and HEAD", async (p) => {
  const db = anonClient(p);
  const single = await db.from("rt_clients").select("name").eq("id", 2).single();
  assert.deepEqual(single.data, { name: "Globex" });
  const none = await db.from("rt_clients").select("name").eq("id", 99).single();
  assert.equal(none.status, 406);
  assert.deepEqual(none.error, {
    code: "PGRST116",
    details: "The result contains 0 rows",
    hint: null,
    message: "Cannot coerce the result to a single JSON object",
  });
  const many = await rest(p, "/rt_clients?select=name", {
    headers: { Accept: "application/vnd.pgrst.object+json" },
  });
  assert.equal(many.status, 406);
  assert.equal((many.json as { details: string }).details, "The result contains 3 rows");
  const maybe = await db.from("rt_clients").select("name").eq("id", 99).maybeSingle();
  assert.equal(maybe.error, null);
  assert.equal(maybe.data, null);
  const obj = await rest(p, "/rt_clients?select=name&id=eq.1", {
    headers: { Accept: "application/vnd.pgrst.object+json" },
  });
  assert.equal(obj.headers.get("content-type"), "application/vnd.pgrst.object+json; charset=utf-8");
  assert.equal(obj.text, '{"name":"Acme"}');

  const csv = await db.from("rt_projects").select("id,name,budget").in("id", [4, 5]).order("id").csv();
  assert.equal(csv.data, 'id,name,budget\n4,"Orphan idea",\n5,"TPS reports, v2 (final)",10.00');
  const stripped = await db.from("rt_clients").select("name,tier").eq("id", 3).stripNulls();
  assert.deepEqual(stripped.data, [{ name: "Initech" }]);

  const head = await db.from("rt_projects").select("*", { count: "exact", head: true });
  assert.equal(head.status, 200);
  assert.equal(head.count, 5);
  assert.equal(head.data, null);
  const rawHead = await fetch(`${p.url}/rest/v1/rt_clients`, {
    method: "HEAD",
    headers: { apikey: p.config.anonKey },
  });
  assert.equal(rawHead.status, 200);
  assert.equal(await rawHead.text(), "");
  assert.equal(rawHead.headers.get("content-range"), "0-2/*");
});

restTest(
  "Accept that cannot be produced is 406 PGRST107; explain() is off as on hosted Supabase",
  async (p) => {
    const r = await rest(p, "/rt_clients", { headers: { Accept: "text/html" } });
    assert.equal(r.status, 406);
    assert.deepEqual(r.json, {
      code: "PGRST107",
      details: null,
      hint: null,
      message: "None of these media types are available: text/html",
    });
    const plan = await anonClient(p).from("rt_clients").select("*").explain();
    assert.equal(plan.status, 406);
    const q = await rest(p, "/rt_clients?select=id&order=id", {
      headers: { Accept: "text/html;q=0.5, application/json;q=0.9" },
    });
    assert.equal(q.status, 200);
  },
);

restTest("Content-Location echoes the canonical query", async (p) => {
  const r = await rest(p, "/rt_clients?select=id&id=eq.1");
  assert.equal(r.headers.get("content-location"), "/rt_clients?id=eq.1&select=id");
});
