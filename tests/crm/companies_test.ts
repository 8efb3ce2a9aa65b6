/** crm-companies-api, route by route: roles, factory visibility, validation, safe search, contacts. */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, MISSING_ID } from "../quotes/helpers.ts";

const FN = "crm-companies-api";

async function withRole(p: Platform, role: string): Promise<TestUser> {
  const u = await createUser(p, `co-${role}`);
  await setPlatformRole(p, u.id, role);
  return u;
}

async function create(p: Platform, u: TestUser, body: Record<string, unknown>) {
  const r = await call(p, FN, "", { method: "POST", token: u.accessToken, body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as Record<string, unknown> & { id: string };
}

const FULL = {
  name: "Acme Tiles",
  website: "https://acme-tiles.example",
  industry: "Ceramics",
  employee_count: 250,
  annual_revenue: 12500000.5,
  email: "sales@acme-tiles.example",
  phone: "+39 0536 000000",
  address: "Via Emilia 1",
  city: "Sassuolo",
  state: "MO",
  postal_code: "41049",
  country: "IT",
  linkedin: "https://linkedin.example/acme",
  twitter: "@acme",
  facebook: "https://facebook.example/acme",
  description: "Porcelain stoneware",
  notes: "Met at Cersaie",
};

platformTest("POST /: every spec field stored; name required; numbers must be numbers", async (p) => {
  const m = await withRole(p, "manager");
  const c = await create(p, m, FULL);
  for (const [k, v] of Object.entries(FULL)) assert.deepEqual(c[k], v, k);
  assert.equal(c.created_by, m.id);
  for (
    const body of [
      {},
      { name: "" },
      { website: "x.test" },
      { name: "A", employee_count: "many" },
      { name: "A", employee_count: 2.5 },
      { name: "A", annual_revenue: "1e6" },
      { name: "A", annual_revenue: -1 },
      { name: "A", email: "no-at" },
    ]
  ) {
    const r = await call(p, FN, "", { method: "POST", token: m.accessToken, body });
    assert.equal(r.status, 400, JSON.stringify(body));
  }
  const plain = await createUser(p, "co-plain");
  assert.equal(
    (await call(p, FN, "", { method: "POST", token: plain.accessToken, body: { name: "X" } })).status,
    403,
  );
  assert.equal((await call(p, FN, "", { method: "POST", token: null, body: { name: "X" } })).status, 401);
  assert.equal((await call(p, FN, "", { method: "POST", body: { name: "X" } })).status, 401);
});

platformTest("GET /: 50/0 by default, {data, count}; search over name, email, website", async (p) => {
  const m = await withRole(p, "admin");
  for (let i = 0; i < 52; i++) {
    await p.db.query(`insert into public.crm_companies (name, created_by) values ($1, $2)`, [
      `Filler ${i}`,
      m.id,
    ]);
  }
  const byName = await create(p, m, { name: "Zeta Marble" });
  const byEmail = await create(p, m, { name: "Other", email: "info@zeta-stone.example" });
  const byWebsite = await create(p, m, { name: "Third", website: "https://www.ZETA.example" });
  await create(p, m, { name: "Unrelated", notes: "zeta appears only in notes" });
  const list = await call(p, FN, "", { token: m.accessToken });
  assert.equal((list.body.data as unknown[]).length, 50);
  const total =
    (await p.db.query<{ n: number }>(`select count(*)::int as n from public.crm_companies`)).rows[0].n;
  assert.equal(list.body.count, total);

  const found = await call(p, FN, "?search=zeta", { token: m.accessToken });
  assert.equal(found.status, 200);
  assert.deepEqual(
    (found.body.data as { id: string }[]).map((c) => c.id).sort(),
    [byName.id, byEmail.id, byWebsite.id].sort(),
  );
  assert.equal(found.body.count, 3);
  const paged = await call(p, FN, "?search=zeta&limit=2&offset=2", { token: m.accessToken });
  assert.equal((paged.body.data as unknown[]).length, 1);
});

platformTest(
  "search input cannot inject PostgREST filter syntax; every character matches literally",
  async (p) => {
    const m = await withRole(p, "manager");
    const pct = await create(p, m, { name: "100% Stone" });
    const under = await create(p, m, { name: "Under_score Ltd" });
    const quoted = await create(p, m, { name: 'The "Quoted", (Co.)' });
    const thousand = await create(p, m, { name: "1000 Stone" });
    await create(p, m, { name: "UnderXscore Ltd" });
    const search = async (term: string) => {
      const r = await call(p, FN, `?search=${encodeURIComponent(term)}&limit=1000`, { token: m.accessToken });
      assert.equal(r.status, 200, `${term}: ${JSON.stringify(r.body)}`);
      return (r.body.data as { id: string }[]).map((c) => c.id);
    };
    assert.deepEqual(await search("100%"), [pct.id], "% is literal");
    assert.deepEqual(await search("Under_score"), [under.id], "_ is literal");
    assert.deepEqual(await search('"Quoted", (Co.)'), [quoted.id], "quotes, commas, parens are data");
    // Attempts to close the group and add conditions match nothing instead of everything.
    // `*`, `.`, `\\` and friends are characters, not wildcards.
    const star = await create(p, m, { name: "Star* Tiles (v2.0) \\ Co" });
    assert.deepEqual(await search("100* Stone"), []);
    assert.deepEqual(await search("star* tiles (v2.0) \\"), [star.id], "case-insensitive, literal");
    assert.deepEqual(await search("1000"), [thousand.id]);
    assert.deepEqual(await search("v2.0"), [star.id]);
    assert.deepEqual(await search("v2x0"), [], ". is not a wildcard");
    for (const attack of ["x),id.not.is.null,name.eq.(x", 'a",id.not.is.null,name.ilike."', "\\", "%", "_"]) {
      const ids = await search(attack);
      const all =
        (await p.db.query<{ n: number }>(`select count(*)::int as n from public.crm_companies`)).rows[0].n;
      assert.ok(ids.length < all, `${attack} matched everything`);
    }
    assert.equal((await call(p, FN, `?search=${"x".repeat(201)}`, { token: m.accessToken })).status, 400);
  },
);

platformTest("factory users see, edit and delete only their own companies", async (p) => {
  const f1 = await withRole(p, "factory");
  const f2 = await withRole(p, "factory");
  const mgr = await withRole(p, "manager");
  const mine = await create(p, f1, { name: "F1 company" });
  const theirs = await create(p, f2, { name: "F2 company" });
  const list = await call(p, FN, "?limit=1000", { token: f1.accessToken });
  assert.deepEqual((list.body.data as { id: string }[]).map((c) => c.id), [mine.id]);
  assert.equal((await call(p, FN, `/${theirs.id}`, { token: f1.accessToken })).status, 404);
  assert.equal(
    (await call(p, FN, `/${theirs.id}`, { method: "PATCH", token: f1.accessToken, body: { notes: "x" } }))
      .status,
    404,
  );
  assert.equal((await call(p, FN, `/${theirs.id}`, { method: "DELETE", token: f1.accessToken })).status, 404);
  assert.equal(
    (await call(p, FN, `/${theirs.id}`, { token: mgr.accessToken })).status,
    200,
    "managers see all",
  );
});

platformTest("GET/PATCH/DELETE /{id} and company contacts (link, primary, detach)", async (p) => {
  const m = await withRole(p, "manager");
  const f = await withRole(p, "factory");
  const co = await create(p, m, { name: "Linked Co" });
  const contact = async (name: string, u = m) =>
    (await call(p, "crm-contacts-api", "", { method: "POST", token: u.accessToken, body: { name } })).body
      .data as { id: string };
  const [ann, ben] = [await contact("Ann"), await contact("Ben")];
  const factoryContact = await contact("Factory person", f);
  const link = (body: unknown, id = co.id, u = m) =>
    call(p, FN, `/${id}/contacts`, { method: "POST", token: u.accessToken, body });

  const l1 = await link({ contact_id: ann.id, role: "Buyer", is_primary: true, notes: "decides" });
  assert.equal(l1.status, 201);
  const l1d = l1.body.data as { id: string; is_primary: boolean; crm_contacts: { name: string } };
  assert.deepEqual([l1d.is_primary, l1d.crm_contacts.name], [true, "Ann"]);
  const l2 = await link({ contact_id: ben.id, is_primary: true });
  assert.equal(l2.status, 201);
  assert.equal((await link({ contact_id: ann.id })).status, 409, "already linked");
  assert.equal((await link({ role: "x" })).status, 400, "contact_id required");
  assert.equal((await link({ contact_id: "x" })).status, 400);
  assert.equal((await link({ contact_id: MISSING_ID })).status, 404);
  assert.equal((await link({ contact_id: ann.id }, MISSING_ID)).status, 404);
  assert.equal(
    (await link({ contact_id: factoryContact.id }, co.id, f)).status,
    404,
    "not the factory's company",
  );

  const got = await call(p, FN, `/${co.id}`, { token: m.accessToken });
  assert.equal(got.status, 200);
  const links = (got.body.data as {
    crm_company_contacts: { id: string; is_primary: boolean; crm_contacts: { name: string } }[];
  })
    .crm_company_contacts;
  const byName = Object.fromEntries(links.map((l) => [l.crm_contacts.name, l.is_primary]));
  assert.deepEqual(byName, { Ann: false, Ben: true }, "a new primary demotes the previous one");

  const upd = await call(p, FN, `/${co.id}`, {
    method: "PATCH",
    token: m.accessToken,
    body: { employee_count: 12, annual_revenue: 99.99 },
  });
  assert.equal(upd.status, 200);
  assert.deepEqual(
    [
      (upd.body.data as { employee_count: number }).employee_count,
      (upd.body.data as { annual_revenue: number }).annual_revenue,
    ],
    [12, 99.99],
  );
  for (const body of [{}, { name: "" }, { employee_count: "12" }, { annual_revenue: 1.234 }]) {
    const r = await call(p, FN, `/${co.id}`, { method: "PATCH", token: m.accessToken, body });
    assert.equal(r.status, 400, JSON.stringify(body));
  }

  const relId = (l2.body.data as { id: string }).id;
  const detach = (company: string, rel: string, u = m) =>
    call(p, FN, `/${company}/contacts/${rel}`, { method: "DELETE", token: u.accessToken });
  assert.equal((await detach(MISSING_ID, relId)).status, 404, "the link must belong to that company");
  assert.equal((await detach(co.id, relId, f)).status, 404);
  assert.equal((await detach(co.id, "x")).status, 400);
  assert.deepEqual((await detach(co.id, relId)).body, { success: true });
  assert.equal((await detach(co.id, relId)).status, 404);
  const stillThere = await p.db.query(`select count(*)::int as n from public.crm_contacts where id = $1`, [
    ben.id,
  ]);
  assert.deepEqual(stillThere.rows, [{ n: 1 }], "detaching keeps the contact");

  assert.equal((await call(p, FN, `/not-a-uuid`, { token: m.accessToken })).status, 400);
  assert.equal((await call(p, FN, `/${MISSING_ID}`, { token: m.accessToken })).status, 404);
  assert.deepEqual((await call(p, FN, `/${co.id}`, { method: "DELETE", token: m.accessToken })).body, {
    success: true,
  });
  const links2 = await p.db.query(
    `select count(*)::int as n from public.crm_company_contacts where company_id = $1`,
    [
      co.id,
    ],
  );
  assert.deepEqual(links2.rows, [{ n: 0 }]);
});
