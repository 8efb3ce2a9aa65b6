/**
 * The schema cache: read at start, reloaded on `NOTIFY pgrst, 'reload schema'` and by
 * reloadSchemaCache(); views inherit relationships from the base columns they expose.
 */
import assert from "node:assert/strict";
import { reloadSchemaCache } from "../../stack/rest/part.ts";
import { viewColumnOrigins } from "../../stack/rest/schema-cache.ts";
import { rest, restTest } from "./helpers.ts";

restTest("a table created later is found after NOTIFY pgrst, 'reload schema'", async (p) => {
  await p.db.exec(`create table public.rt_later (id int primary key, label text);
    insert into public.rt_later values (1, 'one');
    grant select on public.rt_later to anon;`);
  const before = await rest(p, "/rt_later");
  assert.equal(before.status, 404);
  assert.equal((before.json as { code: string }).code, "PGRST205");
  await p.db.exec(`notify pgrst, 'reload schema'`);
  const after = await rest(p, "/rt_later");
  assert.equal(after.status, 200);
  assert.deepEqual(after.json, [{ id: 1, label: "one" }]);
});

restTest("reloadSchemaCache() picks up new relationships; prepared statements follow DDL", async (p) => {
  await p.db.exec(`create table public.rt_later_child (id int primary key, client_id int);
    insert into public.rt_later_child values (1, 2);
    grant select on public.rt_later_child to anon;`);
  await reloadSchemaCache(p.db);
  const none = await rest(p, "/rt_later_child?select=id,rt_clients(name)");
  assert.equal(none.status, 400);
  assert.equal((none.json as { code: string }).code, "PGRST200");
  await p.db.exec(
    `alter table public.rt_later_child add foreign key (client_id) references public.rt_clients (id)`,
  );
  await reloadSchemaCache(p.db);
  const joined = await rest(p, "/rt_later_child?select=id,rt_clients(name)");
  assert.deepEqual(joined.json, [{ id: 1, rt_clients: { name: "Globex" } }]);
  // The same request again after a column is added: the cached statement re-plans itself.
  await p.db.exec(`alter table public.rt_later_child add column extra text default 'x'`);
  const star = await rest(p, "/rt_later_child?select=*");
  assert.deepEqual(star.json, [{ id: 1, client_id: 2, extra: "x" }]);
  await p.db.exec(`alter table public.rt_later_child drop column extra`);
  const again = await rest(p, "/rt_later_child?select=*");
  assert.deepEqual(again.json, [{ id: 1, client_id: 2 }]);
});

restTest("a view over a join keeps the foreign keys of the base columns it exposes", async (p) => {
  await p.db.exec(`create view public.rt_task_board as
      select t.id as task_id, t.title, pr.id as project_ref, pr.client_id
        from public.rt_tasks t join public.rt_projects pr on pr.id = t.project_id;
    grant select on public.rt_task_board to anon;
    notify pgrst, 'reload schema';`);
  // client_id comes from rt_projects.client_id (many-to-one); project_ref is rt_projects.id, which
  // rt_project_members references (one-to-many).
  const r = await rest(
    p,
    "/rt_task_board?select=title,rt_clients(name),rt_project_members(person_id)&task_id=eq.5",
  );
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, [{
    title: "Evil plan",
    rt_clients: { name: "Globex" },
    rt_project_members: [{ person_id: 3 }],
  }]);
});

Deno.test("view column origins come from the top-level target list only", () => {
  const tree = `({QUERY :commandType 1 :rtable ({RANGETBLENTRY :relid 100} {RANGETBLENTRY :subquery ` +
    `{QUERY :targetList ({TARGETENTRY :expr {VAR :varno 1} :resno 1 :resname inner :resorigtbl 999 :resorigcol 9 :resjunk false})}}) ` +
    `:jointree {FROMEXPR :quals {SUBLINK :subselect {QUERY :targetList ({TARGETENTRY :resname nope :resorigtbl 5 :resorigcol 5 :resjunk false})}}} ` +
    `:targetList ({TARGETENTRY :expr {VAR :varno 1 :varattno 1} :resno 1 :resname id :ressortgroupref 0 :resorigtbl 100 :resorigcol 1 :resjunk false} ` +
    `{TARGETENTRY :expr {OPEXPR :args ({VAR :varno 1} {CONST :constvalue 4 [ 0 0 0 0 ]})} :resno 2 :resname computed :resorigtbl 0 :resorigcol 0 :resjunk false} ` +
    `{TARGETENTRY :expr {VAR :varno 1 :varattno 2} :resno 3 :resname my\\ name :resorigtbl 100 :resorigcol 2 :resjunk false})` +
    ` :onConflict <>})`;
  assert.deepEqual([...viewColumnOrigins(tree)], [["id", [100, 1]], ["my name", [100, 2]]]);
});
