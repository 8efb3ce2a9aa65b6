/** crm-users-api: admin only; user records merged from auth, profiles and credits. */
import assert from "node:assert/strict";
import {
  createUser,
  platformTest,
  serviceClient,
  setPlatformRole,
  type TestUser,
} from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, MISSING_ID } from "../quotes/helpers.ts";
import { sqlAs } from "../helpers/sql.ts";
import { balance, grant } from "../helpers/team.ts";

const FN = "crm-users-api";

async function admin(p: Platform): Promise<TestUser> {
  const u = await createUser(p, "cu-admin");
  await setPlatformRole(p, u.id, "admin");
  return u;
}

const roleId = async (p: Platform, name: string) =>
  (await p.db.query<{ id: string }>(`select id from public.roles where name = $1`, [name])).rows[0].id;

interface UserRecord {
  id: string;
  user_id: string;
  email: string;
  role_id: string;
  subscription_tier: string;
  status: string;
  credits: number;
  created_at: string;
  roles: { id: string; name: string; level: number };
}

platformTest("only platform admins: managers, factory, users 403; no JWT 401", async (p) => {
  const id = MISSING_ID;
  const routes: [string, string, unknown?][] = [
    ["GET", ""],
    ["GET", `/${id}`],
    ["GET", `/${id}/ai-usage`],
    ["PATCH", `/${id}`, { status: "active" }],
    ["DELETE", `/${id}`],
  ];
  const others: TestUser[] = [];
  for (const role of ["manager", "factory", "user"]) {
    const u = await createUser(p, `cu-${role}`);
    await setPlatformRole(p, u.id, role);
    others.push(u);
  }
  for (const [method, path, body] of routes) {
    assert.equal((await call(p, FN, path, { method, token: null, body })).status, 401, `${method} ${path}`);
    assert.equal((await call(p, FN, path, { method, body })).status, 401, `${method} ${path} anon`);
    for (const u of others) {
      assert.equal(
        (await call(p, FN, path, { method, token: u.accessToken, body })).status,
        403,
        `${method} ${path}`,
      );
    }
  }
});

platformTest(
  "GET /: every user record in the spec's shape, with email and credits; 1000/0 default",
  async (p) => {
    const a = await admin(p);
    const u = await createUser(p, "cu-listed");
    await serviceClient(p).rpc("grant_credits", { p_user_id: u.id, p_amount: 42.5 });
    const r = await call(p, FN, "", { token: a.accessToken });
    assert.equal(r.status, 200);
    const data = r.body.data as UserRecord[];
    const total =
      (await p.db.query<{ n: number }>(`select count(*)::int as n from public.user_profiles`)).rows[0].n;
    assert.equal(r.body.count, total);
    assert.equal(data.length, Math.min(total, 1000));
    const rec = data.find((d) => d.user_id === u.id)!;
    assert.deepEqual(Object.keys(rec).sort(), [
      "created_at",
      "credits",
      "email",
      "id",
      "role_id",
      "roles",
      "status",
      "subscription_tier",
      "user_id",
    ]);
    assert.equal(rec.email, u.email);
    assert.equal(rec.credits, 42.5);
    assert.deepEqual([rec.status, rec.subscription_tier], ["active", "free"]);
    assert.deepEqual(rec.roles, { id: await roleId(p, "user"), name: "user", level: 10 });
    const adminRec = data.find((d) => d.user_id === a.id)!;
    assert.equal(adminRec.roles.name, "admin");
    const page = await call(p, FN, "?limit=1&offset=1", { token: a.accessToken });
    assert.equal((page.body.data as unknown[]).length, 1);
    assert.equal(page.body.count, total);
    assert.equal((await call(p, FN, "?limit=1001", { token: a.accessToken })).status, 400);
  },
);

platformTest("GET /{userId}: one record; unknown and malformed ids refused", async (p) => {
  const a = await admin(p);
  const u = await createUser(p, "cu-one");
  const r = await call(p, FN, `/${u.id}`, { token: a.accessToken });
  assert.equal(r.status, 200);
  const rec = r.body.data as UserRecord;
  assert.deepEqual([rec.user_id, rec.email, rec.credits, rec.roles.name], [u.id, u.email, 0, "user"]);
  assert.equal((await call(p, FN, `/${MISSING_ID}`, { token: a.accessToken })).status, 404);
  assert.equal((await call(p, FN, `/nope`, { token: a.accessToken })).status, 400);
});

platformTest("GET /{userId}/ai-usage: latest rows (limit 50), totals over all rows, per model", async (p) => {
  const a = await admin(p);
  const u = await createUser(p, "cu-usage");
  for (let i = 0; i < 55; i++) {
    const model = i % 5 === 0 ? "vendor-haiku-4-5" : "vendor-sonnet-4-5";
    await p.db.query(
      `insert into public.ai_usage_logs (user_id, action, model, input_tokens, output_tokens, raw_cost_usd,
         billed_cost_usd, credits_debited, created_at)
       values ($1, 'agent-chat', $2, 100, 50, 0.001, 0.002, 0.5, now() - make_interval(mins => $3))`,
      [u.id, model, i],
    );
  }
  const r = await call(p, FN, `/${u.id}/ai-usage`, { token: a.accessToken });
  assert.equal(r.status, 200);
  const d = r.body.data as {
    usage: { created_at: string; user_id: string }[];
    totals: Record<string, number>;
    byModel: { model: string; calls: number; cost: number; credits: number }[];
  };
  assert.equal(d.usage.length, 50);
  assert.ok(d.usage.every((x) => x.user_id === u.id));
  const times = d.usage.map((x) => Date.parse(x.created_at));
  assert.deepEqual(times, [...times].sort((x, y) => y - x), "newest first");
  assert.deepEqual(d.totals, {
    total_calls: 55,
    total_input_tokens: 5500,
    total_output_tokens: 2750,
    total_raw_cost_usd: 0.055,
    total_billed_cost_usd: 0.11,
    total_credits_debited: 27.5,
    total_credits_refunded: 0,
    refunded_calls: 0,
  });
  assert.deepEqual(d.byModel, [
    { model: "vendor-sonnet-4-5", calls: 44, cost: 0.088, credits: 22, refunded: 0 },
    { model: "vendor-haiku-4-5", calls: 11, cost: 0.022, credits: 5.5, refunded: 0 },
  ]);
  const few = await call(p, FN, `/${u.id}/ai-usage?limit=3`, { token: a.accessToken });
  assert.equal((few.body.data as { usage: unknown[] }).usage.length, 3);
  const none = await call(p, FN, `/${a.id}/ai-usage`, { token: a.accessToken });
  assert.deepEqual(none.body.data, {
    usage: [],
    totals: {
      total_calls: 0,
      total_input_tokens: 0,
      total_output_tokens: 0,
      total_raw_cost_usd: 0,
      total_billed_cost_usd: 0,
      total_credits_debited: 0,
      total_credits_refunded: 0,
      refunded_calls: 0,
    },
    byModel: [],
  });
  assert.equal((await call(p, FN, `/${MISSING_ID}/ai-usage`, { token: a.accessToken })).status, 404);
  assert.equal((await call(p, FN, `/${u.id}/ai-usage?limit=x`, { token: a.accessToken })).status, 400);
});

platformTest(
  "PATCH /{userId}: role_id, status, subscription_tier validated; admins cannot lock themselves out",
  async (p) => {
    const a = await admin(p);
    const u = await createUser(p, "cu-patch");
    const patch = (id: string, body: unknown) =>
      call(p, FN, `/${id}`, { method: "PATCH", token: a.accessToken, body });
    const manager = await roleId(p, "manager");
    const r = await patch(u.id, { role_id: manager, status: "suspended", subscription_tier: "pro" });
    assert.equal(r.status, 200);
    const rec = r.body.data as UserRecord;
    assert.deepEqual([rec.role_id, rec.roles.name, rec.status, rec.subscription_tier], [
      manager,
      "manager",
      "suspended",
      "pro",
    ]);
    assert.equal(rec.email, u.email);
    for (
      const body of [
        {},
        { status: "banned" },
        { subscription_tier: "gold" },
        { role_id: "admin" },
        { role_id: MISSING_ID },
        { credits: 5 },
      ]
    ) {
      assert.equal((await patch(u.id, body)).status, 400, JSON.stringify(body));
    }
    assert.equal((await patch(MISSING_ID, { status: "active" })).status, 404);
    assert.equal((await patch("x", { status: "active" })).status, 400);
    assert.equal((await patch(a.id, { status: "suspended" })).status, 409);
    assert.equal((await patch(a.id, { role_id: manager })).status, 409);
    assert.equal(
      (await patch(a.id, { subscription_tier: "enterprise" })).status,
      200,
      "other fields are fine",
    );
    const row = await p.db.query(
      `select status, subscription_tier from public.user_profiles where user_id = $1`,
      [u.id],
    );
    assert.deepEqual(row.rows, [{ status: "suspended", subscription_tier: "pro" }]);
  },
);

platformTest("DELETE /{userId}: profile and credits go, the auth account stays", async (p) => {
  const a = await admin(p);
  const u = await createUser(p, "cu-del");
  await serviceClient(p).rpc("grant_credits", { p_user_id: u.id, p_amount: 5 });
  const r = await call(p, FN, `/${u.id}`, { method: "DELETE", token: a.accessToken });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { success: true, data: { profile_deleted: true, credits_deleted: true } });
  const left = await p.db.query(
    `select (select count(*)::int from public.user_profiles where user_id = $1) as profiles,
            (select count(*)::int from public.user_credits where user_id = $1) as credits,
            (select count(*)::int from auth.users where id = $1) as auth_users`,
    [u.id],
  );
  assert.deepEqual(left.rows, [{ profiles: 0, credits: 0, auth_users: 1 }]);
  const signIn = await u.client.auth.signInWithPassword({ email: u.email, password: u.password });
  assert.equal(signIn.error, null, "the account still signs in");
  assert.equal((await call(p, FN, `/${u.id}`, { token: a.accessToken })).status, 404);
  assert.equal((await call(p, FN, `/${u.id}`, { method: "DELETE", token: a.accessToken })).status, 404);
  assert.equal((await call(p, FN, `/${a.id}`, { method: "DELETE", token: a.accessToken })).status, 409);
  assert.equal((await call(p, FN, `/zzz`, { method: "DELETE", token: a.accessToken })).status, 400);
});

platformTest("ai-usage: refunded charges are not counted as debited; refunds are shown apart", async (p) => {
  const a = await admin(p);
  const u = await createUser(p, "cu-refund");
  await grant(p, u.id, 10);
  const bill = async () =>
    (await sqlAs<{ tx: string }>(
      p,
      { role: "service_role" },
      `select (public.bill_gateway_action($1, 'kb_search', 'document_processing', 1, null, null, '{}'::jsonb)
         ->> 'transaction_id') as tx`,
      [u.id],
    ))[0].tx;
  await bill();
  const refunded = await bill();
  await sqlAs(
    p,
    { role: "service_role" },
    `select public.refund_gateway_action($1, 'backend answered 500')`,
    [
      refunded,
    ],
  );
  const r = await call(p, FN, `/${u.id}/ai-usage`, { token: a.accessToken });
  assert.equal(r.status, 200);
  const d = r.body.data as { totals: Record<string, number>; byModel: Record<string, unknown>[] };
  const charged = 10 - await balance(p, u.id);
  assert.equal(d.totals.total_calls, 2);
  assert.equal(d.totals.refunded_calls, 1);
  assert.equal(d.totals.total_credits_debited, charged, "what the balance moved");
  assert.equal(d.totals.total_credits_refunded, charged, "one of two equal charges came back");
  assert.equal((d.byModel as { credits: number }[]).reduce((s, m) => s + m.credits, 0), charged);
});
