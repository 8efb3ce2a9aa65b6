/**
 * CRM lists as a frontend pages through them: an offset at or past the last row is an empty
 * page (200, `data: []`) with the right `count`, for contacts, companies and users, never an
 * error (PostgREST answers such a range 416; the functions turn it into the empty page).
 */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { call } from "../quotes/helpers.ts";

platformTest(
  "an offset at or past the end is an empty page with the total, for every CRM list",
  async (p) => {
    const admin = await createUser(p, "pages-admin");
    await setPlatformRole(p, admin.id, "admin");
    for (
      const [fn, body] of [
        ["crm-contacts-api", { name: "Page Contact" }],
        ["crm-companies-api", { name: "Page Company" }],
      ] as const
    ) {
      for (let i = 0; i < 3; i++) {
        const r = await call(p, fn, "", {
          method: "POST",
          token: admin.accessToken,
          body: { name: `${body.name} ${i}` },
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
    }
    for (const fn of ["crm-contacts-api", "crm-companies-api", "crm-users-api"]) {
      const all = await call(p, fn, "?limit=1000", { token: admin.accessToken });
      assert.equal(all.status, 200, `${fn}: ${JSON.stringify(all.body)}`);
      const total = all.body.count as number;
      assert.ok(total >= 1, fn);
      for (const offset of [total, total + 1, total + 500]) {
        const r = await call(p, fn, `?limit=10&offset=${offset}`, { token: admin.accessToken });
        assert.equal(r.status, 200, `${fn} offset ${offset}: ${JSON.stringify(r.body)}`);
        assert.deepEqual(r.body.data, [], `${fn} offset ${offset}`);
        assert.equal(r.body.count, total, `${fn} offset ${offset}: the total`);
      }
    }
  },
);
