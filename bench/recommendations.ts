/**
 * recommendations-api GET /for-user latency on a realistic workspace, cold and cached, against
 * the exhaustive computation (every user of the matrix scanned, in this process) on the same
 * data, which must give the same recommendations.
 *
 *   npx -y deno@2.9.6 run -A bench/recommendations.ts [--users 10000] [--materials 5000]
 *     [--interactions 200000] [--samples 100]
 *
 * One workspace, users x materials, interactions drawn from a seeded generator: material
 * popularity Zipf-like (rank^-0.8), user activity skewed (a few heavy buyers, a long tail), the
 * seven types in catalogue-like proportions. Each sampled user's first request is cold (nothing
 * cached), the second is served from the cache; item_item's first pass also starts with an
 * empty item model (material_neighbours), a last pass shows it warm. Requests go over loopback
 * through the gateway and the functions router with a user JWT, as a client's would. The
 * baseline gets the whole matrix in memory for free (its load time is not counted).
 */
import { parseArgs } from "node:util";
import { startEphemeralPlatform } from "../fixtures/platform.ts";
import { seededRandom } from "../fixtures/random.ts";
import { signJwt } from "@shared/auth/jwt.ts";
import {
  exhaustiveItemNeighbourhood,
  exhaustiveUserNeighbourhood,
  itemItemScores,
  itemSources,
  NEIGHBOURS,
  type Preference,
  purchasedOf,
  type Recommendation,
  userUserScores,
} from "@shared/recommendations/cf.ts";
import { percentile } from "./lib.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    users: { type: "string", default: "10000" },
    materials: { type: "string", default: "5000" },
    interactions: { type: "string", default: "200000" },
    samples: { type: "string", default: "100" },
  },
});
const USERS = Number(values.users);
const MATERIALS = Number(values.materials);
const INTERACTIONS = Number(values.interactions);
const SAMPLES = Number(values.samples);
const LIMIT = 20;

const rnd = seededRandom(20);
const uuid = (prefix: string, i: number) => `${prefix}${i.toString(16).padStart(12, "0")}`;
const userId = (i: number) => uuid("b0000000-0000-4000-8000-", i);
const materialId = (i: number) => uuid("b0000000-0000-4000-9000-", i);

/** Inverse-CDF sampling of rank^-s. */
function zipf(n: number, s: number): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) cdf[i] = acc += 1 / Math.pow(i + 1, s);
  return () => {
    const x = rnd() * acc;
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
const TYPES: [string, number][] = [
  ["view", 0.5],
  ["click", 0.2],
  ["save", 0.1],
  ["add_to_quote", 0.07],
  ["purchase", 0.05],
  ["share", 0.04],
  ["rate", 0.04],
];
function type(): string {
  let x = rnd();
  for (const [t, p] of TYPES) if ((x -= p) < 0) return t;
  return "view";
}

const platform = await startEphemeralPlatform();
const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50=${percentile(s, 50).toFixed(1)}ms p90=${percentile(s, 90).toFixed(1)}ms p99=${
    percentile(s, 99).toFixed(1)
  }ms max=${s[s.length - 1].toFixed(1)}ms`;
};
try {
  const db = platform.db;
  const t0 = performance.now();
  await db.query(
    `insert into auth.users (id, aud, role, email, email_confirmed_at)
     select ('b0000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'authenticated', 'authenticated',
            'bench-' || g || '@example.com', now()
       from generate_series(0, $1 - 1) g`,
    [USERS],
  );
  const ws = (await db.query<{ id: string }>(
    `insert into public.workspaces (name, owner_id) values ('Bench', $1) returning id`,
    [userId(0)],
  )).rows[0].id;
  await db.query(
    `insert into public.workspace_members (workspace_id, user_id, role)
     select $1, ('b0000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'member'
       from generate_series(1, $2 - 1) g`,
    [ws, USERS],
  );
  await db.query(
    `insert into public.products (id, workspace_id, name)
     select ('b0000000-0000-4000-9000-' || lpad(to_hex(g), 12, '0'))::uuid, $1, 'Material ' || g
       from generate_series(0, $2 - 1) g`,
    [ws, MATERIALS],
  );
  const pickMaterial = zipf(MATERIALS, 0.8);
  const pickUser = zipf(USERS, 0.5);
  // Users are shuffled so that activity does not follow the id order.
  const perm = Array.from({ length: USERS }, (_, i) => i).sort(() => rnd() - 0.5);
  const CHUNK = 20_000;
  for (let done = 0; done < INTERACTIONS; done += CHUNK) {
    const n = Math.min(CHUNK, INTERACTIONS - done);
    const us: string[] = [], ms: string[] = [], ts: string[] = [], vs: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = type();
      us.push(userId(perm[pickUser()]));
      ms.push(materialId(pickMaterial()));
      ts.push(t);
      vs.push(t === "rate" ? 1 + Math.floor(rnd() * 5) : 1);
    }
    await db.query(
      `insert into public.material_interactions (workspace_id, user_id, material_id, interaction_type,
         interaction_value)
       select $1, u, m, t, v from unnest($2::uuid[], $3::uuid[], $4::text[], $5::float8[]) as x(u, m, t, v)`,
      [ws, us, ms, ts, vs],
    );
  }
  await db.exec(
    `analyze public.material_preferences; analyze public.products; analyze public.material_interactions;`,
  );
  const cells =
    (await db.query<{ user_id: string; material_id: string; preference: number; purchased: boolean }>(
      `select user_id, material_id, preference, purchased from public.material_preferences
      where workspace_id = $1 and preference > 0`,
      [ws],
    )).rows;
  const matrix: Preference[] = cells.map((c) => ({
    user_id: c.user_id,
    material_id: c.material_id,
    r: c.preference,
    purchased: c.purchased,
  }));
  console.log(
    `workspace: ${USERS} users x ${MATERIALS} materials, ${INTERACTIONS} interactions -> ${matrix.length} ` +
      `non-zero preferences (${((performance.now() - t0) / 1000).toFixed(1)} s to load)`,
  );

  // Sampled users: those with interactions, spread over activity levels.
  const active = [...new Set(matrix.map((c) => c.user_id))].sort();
  const sample = Array.from({ length: SAMPLES }, () => active[Math.floor(rnd() * active.length)]);
  const secret = platform.config.jwtSecret;
  const now = Math.floor(Date.now() / 1000);
  const tokens = new Map<string, string>();
  for (const u of new Set(sample)) {
    tokens.set(
      u,
      await signJwt({ sub: u, role: "authenticated", aud: "authenticated", exp: now + 3600 }, secret),
    );
  }
  const forUser = async (u: string, algorithm: string) => {
    const s = performance.now();
    const r = await fetch(
      `${platform.url}/functions/v1/recommendations-api/for-user?workspace_id=${ws}&algorithm=${algorithm}`,
      { headers: { apikey: platform.config.anonKey, Authorization: `Bearer ${tokens.get(u)}` } },
    );
    const body = await r.json();
    if (r.status !== 200) throw new Error(`for-user ${r.status}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - s, data: body.data as Recommendation[], cached: body.cached as boolean };
  };

  // Warm-up (JIT, plan caches) on users outside the sample.
  for (const u of active.slice(0, 5)) {
    tokens.set(
      u,
      await signJwt({ sub: u, role: "authenticated", aud: "authenticated", exp: now + 3600 }, secret),
    );
    await forUser(u, "user_user");
    await forUser(u, "item_item");
  }

  let mismatches = 0;
  const same = (a: Recommendation[], b: Recommendation[]) =>
    a.length === b.length &&
    a.every((x, i) => x.material_id === b[i].material_id && Math.abs(x.score - b[i].score) < 1e-9);
  for (const algorithm of ["user_user", "item_item"]) {
    const cold: number[] = [], cachedMs: number[] = [], baseline: number[] = [];
    await db.query(`delete from public.recommendation_cache where workspace_id = $1`, [ws]);
    const seen = new Set<string>();
    for (const u of sample) {
      if (seen.has(u)) continue;
      seen.add(u);
      const first = await forUser(u, algorithm);
      const second = await forUser(u, algorithm);
      if (first.cached || !second.cached) throw new Error(`cache states: ${first.cached} ${second.cached}`);
      cold.push(first.ms);
      cachedMs.push(second.ms);
      // The baseline: the exhaustive computation over the whole matrix, in this process.
      const s = performance.now();
      let expected: Recommendation[];
      if (algorithm === "user_user") {
        const n = exhaustiveUserNeighbourhood(matrix, u, NEIGHBOURS);
        expected = userUserScores(n, purchasedOf(n.mine), LIMIT);
      } else {
        const mine = exhaustiveUserNeighbourhood(matrix, u, 0).mine;
        const sources = itemSources(mine);
        const n = exhaustiveItemNeighbourhood(matrix, sources.map(([m]) => m), NEIGHBOURS);
        expected = itemItemScores(sources, n, purchasedOf(mine), LIMIT);
      }
      baseline.push(performance.now() - s);
      const cf = first.data.filter((r) => r.algorithm !== "popularity");
      if (!same(cf, expected)) mismatches++;
    }
    console.log(`for-user ${algorithm.padEnd(9)} cold   (HTTP)          n=${cold.length} ${fmt(cold)}`);
    console.log(
      `for-user ${algorithm.padEnd(9)} cached (HTTP)          n=${cachedMs.length} ${fmt(cachedMs)}`,
    );
    console.log(
      `baseline ${algorithm.padEnd(9)} exhaustive, in-process n=${baseline.length} ${fmt(baseline)}`,
    );
  }
  // item_item again with the users' lists dropped but the shared item model (material_neighbours)
  // kept: the steady state, where other users' requests have already computed most item lists.
  await db.query(`delete from public.recommendation_cache where workspace_id = $1`, [ws]);
  const warm: number[] = [];
  for (const u of new Set(sample)) {
    const r = await forUser(u, "item_item");
    if (r.cached) throw new Error("expected a cold list");
    warm.push(r.ms);
  }
  console.log(`for-user item_item cold list, item model warm (HTTP) n=${warm.length} ${fmt(warm)}`);
  if (mismatches) {
    console.error(`MISMATCH: ${mismatches} lists differ from the exhaustive computation`);
    Deno.exit(1);
  }
  console.log("identical results: every sampled list equals the exhaustive computation's");
} finally {
  await platform.stop();
}
