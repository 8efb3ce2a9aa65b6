/**
 * Collaborative filtering over the weighted preference matrix r (user x material, 0 <= r <= 10,
 * the sums of interaction weights in supabase/migrations/20260204000100_recommendations.sql).
 * Pure functions: the database hands over a neighbourhood (sparse dot products and norms, the
 * candidates ranked by cosine); this module turns it into scored recommendations.
 *
 * Similarity is the cosine of the preference vectors: cos(a, b) = a.b / (|a| |b|), in [0, 1]
 * because preferences are never negative.
 *
 * user_user, for user u with top-k neighbours N (cosine > 0), N_i those who chose material i:
 *   score(i)      = sum_{v in N_i} cos(u,v) r_vi / (10 * sum_{v in N} cos(u,v))
 *   confidence(i) = sum_{v in N_i} cos(u,v)      / sum_{v in N} cos(u,v)
 * item_item, over u's (at most ITEM_SOURCES strongest) materials J, with J_i those j that have i
 * among their top-k neighbours:
 *   score(i)      = sum_{j in J_i} cos(i,j) r_uj / sum_{j in J} r_uj
 *   confidence(i) = sum_{j in J_i} r_uj          / sum_{j in J} r_uj
 * similar materials of s (item-item):
 *   score(i)      = cos(s, i)
 *   confidence(i) = share of s's preference mass from users who also chose i
 * popularity (cold start): score = mass(i) / max mass, confidence = users(i) / active users,
 *   where mass(i) = sum_u r_ui.
 *
 * So confidence is always "the share of the evidence that supports this item": 1 when every
 * neighbour (or every material of the user) backs it, and score <= confidence for CF.
 */

/** The cap on a preference (the sum of a user's interaction weights for one material). */
export const PREFERENCE_MAX = 10;
/** Neighbours kept per user (user_user) or per material (item_item). */
export const NEIGHBOURS = 50;
/** item_item works from the user's strongest materials (preference, then material id): at most this many. */
export const ITEM_SOURCES = 50;

export type Algorithm = "user_user" | "item_item";
export type ResultAlgorithm = Algorithm | "popularity";

export interface Recommendation {
  material_id: string;
  score: number;
  confidence: number;
  algorithm: ResultAlgorithm;
}

/** One cell of the matrix. */
export interface Preference {
  user_id: string;
  material_id: string;
  r: number;
  purchased: boolean;
}

/** The caller's own row: [material_id, r, purchased]. */
export type Mine = [string, number, boolean];

export interface UserNeighbourhood {
  mine: Mine[];
  /** Top-k neighbours: [user_id, dot with the caller, norm]. */
  neighbours: [string, number, number][];
  /** The neighbours' cells: [user_id, material_id, r]. */
  rows: [string, string, number][];
}

export interface ItemNeighbourhood {
  /** Each source material: [material_id, norm, preference mass]. */
  sources: [string, number, number][];
  /** Top-k neighbours of each source: [source, material_id, dot, norm, support mass]. */
  neighbours: [string, string, number, number, number][];
}

export interface Popularity {
  max_mass: number;
  users: number;
  /** [material_id, mass, users], best first. */
  items: [string, number, number][];
}

const clamp01 = (x: number) => (x > 1 ? 1 : x > 0 ? x : 0);

export function cosine(dot: number, normA: number, normB: number): number {
  return normA > 0 && normB > 0 ? clamp01(dot / (normA * normB)) : 0;
}

export function norm(values: Iterable<number>): number {
  let s = 0;
  for (const v of values) s += v * v;
  return Math.sqrt(s);
}

/** Best first: score, then confidence, then material id (a stable order for equal scores). */
export function byRank(a: Recommendation, b: Recommendation): number {
  return b.score - a.score || b.confidence - a.confidence ||
    (a.material_id < b.material_id ? -1 : a.material_id > b.material_id ? 1 : 0);
}

/** The materials item_item works from: the user's ITEM_SOURCES strongest (ties: material id). */
export function itemSources(mine: Mine[]): Mine[] {
  return mine.filter(([, r]) => r > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, ITEM_SOURCES);
}

/** Materials the caller purchased: never recommended unless asked for. */
export function purchasedOf(mine: Mine[]): Set<string> {
  return new Set(mine.filter(([, , p]) => p).map(([m]) => m));
}

export function userUserScores(n: UserNeighbourhood, exclude: Set<string>, limit: number): Recommendation[] {
  const normU = norm(n.mine.map(([, r]) => r));
  const sim = new Map<string, number>();
  let mass = 0;
  for (const [v, dot, normV] of n.neighbours) {
    const s = cosine(dot, normU, normV);
    if (s > 0) {
      sim.set(v, s);
      mass += s;
    }
  }
  if (mass === 0) return [];
  const acc = new Map<string, { num: number; sup: number }>();
  for (const [v, m, r] of n.rows) {
    const s = sim.get(v);
    if (!s || r <= 0 || exclude.has(m)) continue;
    const a = acc.get(m) ?? { num: 0, sup: 0 };
    a.num += s * Math.min(r, PREFERENCE_MAX);
    a.sup += s;
    acc.set(m, a);
  }
  const out: Recommendation[] = [];
  for (const [m, a] of acc) {
    out.push({
      material_id: m,
      score: clamp01(a.num / (PREFERENCE_MAX * mass)),
      confidence: clamp01(a.sup / mass),
      algorithm: "user_user",
    });
  }
  return out.sort(byRank).slice(0, limit);
}

export function itemItemScores(
  mine: Mine[],
  n: ItemNeighbourhood,
  exclude: Set<string>,
  limit: number,
): Recommendation[] {
  const ruj = new Map(mine.filter(([, r]) => r > 0).map(([m, r]) => [m, Math.min(r, PREFERENCE_MAX)]));
  let total = 0;
  for (const r of ruj.values()) total += r;
  if (total === 0) return [];
  const normOf = new Map(n.sources.map(([m, nm]) => [m, nm]));
  const acc = new Map<string, { num: number; sup: number }>();
  for (const [j, i, dot, normI] of n.neighbours) {
    const r = ruj.get(j);
    if (!r || exclude.has(i)) continue;
    const s = cosine(dot, normOf.get(j) ?? 0, normI);
    if (s <= 0) continue;
    const a = acc.get(i) ?? { num: 0, sup: 0 };
    a.num += s * r;
    a.sup += r;
    acc.set(i, a);
  }
  const out: Recommendation[] = [];
  for (const [m, a] of acc) {
    out.push({
      material_id: m,
      score: clamp01(a.num / total),
      confidence: clamp01(a.sup / total),
      algorithm: "item_item",
    });
  }
  return out.sort(byRank).slice(0, limit);
}

export function similarScores(source: string, n: ItemNeighbourhood, limit: number): Recommendation[] {
  const src = n.sources.find(([m]) => m === source);
  if (!src) return [];
  const [, normS, massS] = src;
  const out: Recommendation[] = [];
  for (const [j, i, dot, normI, support] of n.neighbours) {
    if (j !== source) continue;
    const s = cosine(dot, normS, normI);
    if (s <= 0) continue;
    out.push({
      material_id: i,
      score: s,
      confidence: massS > 0 ? clamp01(support / massS) : 0,
      algorithm: "item_item",
    });
  }
  return out.sort(byRank).slice(0, limit);
}

export function popularityScores(p: Popularity, exclude: Set<string>, limit: number): Recommendation[] {
  if (p.max_mass <= 0 || p.users <= 0) return [];
  return p.items.filter(([m]) => !exclude.has(m)).map(([m, mass, users]): Recommendation => ({
    material_id: m,
    score: clamp01(mass / p.max_mass),
    confidence: clamp01(users / p.users),
    algorithm: "popularity",
  })).sort(byRank).slice(0, limit);
}

/** CF results first; popularity fills what is left of the page (cold start: all of it). */
export function withFallback(cf: Recommendation[], popular: Recommendation[], limit: number) {
  const seen = new Set(cf.map((r) => r.material_id));
  return [...cf, ...popular.filter((r) => !seen.has(r.material_id))].slice(0, limit);
}

// ---- the exhaustive computation over a whole matrix (tests and the bench's baseline) ----

function rowsByUser(matrix: Preference[]) {
  const by = new Map<string, Preference[]>();
  for (const p of matrix) {
    if (p.r <= 0) continue;
    const rows = by.get(p.user_id);
    if (rows) rows.push(p);
    else by.set(p.user_id, [p]);
  }
  return by;
}

const byRatio = (a: [string, number, number], b: [string, number, number]) =>
  b[1] / b[2] - a[1] / a[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** The user-user neighbourhood the database returns, by scanning every user of the matrix. */
export function exhaustiveUserNeighbourhood(
  matrix: Preference[],
  user: string,
  k: number,
): UserNeighbourhood {
  const by = rowsByUser(matrix);
  const mineRows = by.get(user) ?? [];
  const mineR = new Map(mineRows.map((p) => [p.material_id, p.r]));
  const all: [string, number, number][] = [];
  for (const [v, rows] of by) {
    if (v === user) continue;
    let dot = 0;
    for (const p of rows) dot += p.r * (mineR.get(p.material_id) ?? 0);
    if (dot > 0) all.push([v, dot, norm(rows.map((p) => p.r))]);
  }
  const neighbours = all.sort(byRatio).slice(0, Math.max(k, 0));
  return {
    mine: mineRows.map((p) => [p.material_id, p.r, p.purchased]),
    neighbours,
    rows: neighbours.flatMap(([v]) =>
      (by.get(v) ?? []).map((p): [string, string, number] => [v, p.material_id, p.r])
    ),
  };
}

/** The item-item neighbourhood of `sources`, by scanning every material of the matrix. */
export function exhaustiveItemNeighbourhood(
  matrix: Preference[],
  sources: string[],
  k: number,
): ItemNeighbourhood {
  const byMaterial = new Map<string, Map<string, number>>();
  for (const p of matrix) {
    if (p.r <= 0) continue;
    const col = byMaterial.get(p.material_id) ?? new Map<string, number>();
    col.set(p.user_id, p.r);
    byMaterial.set(p.material_id, col);
  }
  const out: ItemNeighbourhood = { sources: [], neighbours: [] };
  for (const s of sources) {
    const col = byMaterial.get(s);
    if (!col) continue;
    let mass = 0;
    for (const r of col.values()) mass += r;
    out.sources.push([s, norm(col.values()), mass]);
    const cands: [string, number, number, number][] = [];
    for (const [m, other] of byMaterial) {
      if (m === s) continue;
      let dot = 0, support = 0;
      // Every material is compared; each comparison walks the shorter of the two columns.
      const [small, large, smallIsSource] = col.size <= other.size ? [col, other, true] : [other, col, false];
      for (const [u, a] of small) {
        const b = large.get(u);
        if (b) {
          dot += a * b;
          support += smallIsSource ? a : b;
        }
      }
      if (dot > 0) cands.push([m, dot, norm(other.values()), support]);
    }
    cands.sort((a, b) => byRatio([a[0], a[1], a[2]], [b[0], b[1], b[2]]));
    for (const [m, dot, nm, support] of cands.slice(0, Math.max(k, 0))) {
      out.neighbours.push([s, m, dot, nm, support]);
    }
  }
  return out;
}
