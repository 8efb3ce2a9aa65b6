/**
 * A workspace catalogue with every kind of row a merge has to carry: products of one factory,
 * and rows pointing at them from the real quote_items plus test tables created here (as the
 * migration owner would create a later feature's tables): a plain reference with an updated_at
 * trigger, an identity-keyed one, a (workspace_id, product_id) unique key, a table with two
 * product references and a no-self-relation check, and a table referencing a per-product row.
 */
import type { Platform } from "../../stack/platform.ts";
import { createTeam as makeTeam, type Team } from "../helpers/team.ts";

const schemaReady = new WeakMap<Platform, Promise<void>>();

export function ensureTestTables(p: Platform): Promise<void> {
  let ready = schemaReady.get(p);
  if (!ready) {
    ready = p.db.exec(`
      create table public.test_images (
        id uuid primary key default gen_random_uuid(),
        product_id uuid not null references public.products (id) on delete cascade,
        url text not null,
        updated_at timestamptz not null default now()
      );
      create trigger test_images_touch before update on public.test_images
        for each row execute function public.touch_updated_at();
      create table public.test_chunks (
        id bigint generated always as identity primary key,
        product_id uuid references public.products (id) on delete set null,
        content text not null
      );
      create table public.test_product_settings (
        id uuid primary key default gen_random_uuid(),
        workspace_id uuid not null,
        product_id uuid not null,
        settings jsonb not null default '{}'::jsonb,
        unique (workspace_id, product_id),
        foreign key (product_id, workspace_id) references public.products (id, workspace_id) on delete cascade
      );
      create table public.test_setting_notes (
        id uuid primary key default gen_random_uuid(),
        setting_id uuid not null references public.test_product_settings (id) on delete cascade,
        note text
      );
      create table public.test_related (
        id uuid primary key default gen_random_uuid(),
        product_a uuid not null references public.products (id) on delete cascade,
        product_b uuid not null references public.products (id) on delete cascade,
        check (product_a <> product_b)
      );
      alter table public.test_images enable row level security;
      alter table public.test_chunks enable row level security;
      alter table public.test_product_settings enable row level security;
      alter table public.test_setting_notes enable row level security;
      alter table public.test_related enable row level security;
    `).then(() => undefined);
    schemaReady.set(p, ready);
  }
  return ready;
}

/** Every table a merge touches, each dumped in a stable order. */
export const DUMPED_TABLES = [
  "public.products",
  "public.quote_items",
  "public.duplicate_detection_cache",
  "public.test_images",
  "public.test_chunks",
  "public.test_product_settings",
  "public.test_setting_notes",
  "public.test_related",
];

/** Full row images (to_jsonb) of every row of DUMPED_TABLES: compare two dumps with deepEqual. */
export async function dumpRows(p: Platform): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of DUMPED_TABLES) {
    const r = await p.db.query<{ rows: unknown[] }>(
      `select coalesce(jsonb_agg(to_jsonb(t) order by to_jsonb(t)::text), '[]') as rows from ${table} t`,
    );
    out[table] = r.rows[0].rows;
  }
  return out;
}

export type { Team } from "../helpers/team.ts";

export function createTeam(p: Platform): Promise<Team> {
  return makeTeam(p, { prefix: "dup", names: ["Flooring", "Elsewhere"] });
}

export interface ProductInput {
  name: string;
  description?: string | null;
  sku?: string | null;
  metadata?: Record<string, unknown>;
}

export async function insertProduct(p: Platform, workspaceId: string, input: ProductInput): Promise<string> {
  const r = await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name, description, sku, metadata)
     values ($1, $2, $3, $4, $5) returning id`,
    [
      workspaceId,
      input.name,
      input.description ?? null,
      input.sku ?? null,
      JSON.stringify(input.metadata ?? {}),
    ],
  );
  return r.rows[0].id;
}

/** A cache row for the pair, stored in id order as the table requires. */
export async function insertDetection(
  p: Platform,
  workspaceId: string,
  a: string,
  b: string,
  score: number,
): Promise<string> {
  const [first, second] = a < b ? [a, b] : [b, a];
  const r = await p.db.query<{ id: string }>(
    `insert into public.duplicate_detection_cache (workspace_id, product_id_1, product_id_2,
       overall_similarity_score, name_similarity, description_similarity, metadata_similarity, confidence_level)
     select $1, $2, $3, s, s, s, s, case when s >= 0.85 then 'high' when s >= 0.7 then 'medium' else 'low' end
       from (select $4::double precision as s) x
     returning id`,
    [workspaceId, first, second, score],
  );
  return r.rows[0].id;
}

export interface Catalogue {
  target: string;
  source1: string;
  source2: string;
  other: string;
}

/**
 * Target T, sources S1 and S2 (to merge into T), and an unrelated product X, all of factory
 * Acme, with rows that exercise every merge rule: moves, a unique-key collision (S2's settings
 * after S1's moved), a self-relation ((T, S2) and (S1, S2) would become (T, T)), a quote line,
 * and pair detections that go with the sources while (T, X) stays.
 */
export async function createCatalogue(p: Platform, workspaceId: string): Promise<Catalogue> {
  await ensureTestTables(p);
  const target = await insertProduct(p, workspaceId, {
    name: "Oak Floor Plank",
    metadata: { factory: "Acme", color: "natural", finish: "" },
  });
  const source1 = await insertProduct(p, workspaceId, {
    name: "Oak Floor Plank 20mm",
    description: "Solid oak plank",
    sku: `OAK-20-${crypto.randomUUID().slice(0, 8)}`,
    metadata: { factory: "Acme", color: "brown", finish: "matte", size: "20mm" },
  });
  const source2 = await insertProduct(p, workspaceId, {
    name: "Oak Floorplank",
    description: "Oak plank, brushed",
    metadata: { factory: "Acme", grade: "A" },
  });
  const other = await insertProduct(p, workspaceId, { name: "Walnut Board", metadata: { factory: "Acme" } });
  await p.db.query(
    `insert into public.test_images (product_id, url)
     select x.product_id, x.url from unnest($1::uuid[], $2::text[]) as x(product_id, url)`,
    [[target, source1, source1, source2, other], ["t.jpg", "s1a.jpg", "s1b.jpg", "s2.jpg", "x.jpg"]],
  );
  await p.db.query(
    `insert into public.test_chunks (product_id, content)
     select x.product_id, x.content from unnest($1::uuid[], $2::text[]) as x(product_id, content)`,
    [[source1, source2, null], ["chunk of S1", "chunk of S2", "chunk of nothing"]],
  );
  await p.db.query(
    `insert into public.test_product_settings (workspace_id, product_id, settings)
     values ($1, $2, '{"a": 1}'), ($1, $3, '{"b": 2}')`,
    [workspaceId, source1, source2],
  );
  await p.db.query(
    `insert into public.test_related (product_a, product_b) values ($1, $2), ($3, $4), ($1, $4)`,
    [source1, other, target, source2],
  );
  const quote = await p.db.query<{ id: string }>(
    `insert into public.quotes (workspace_id, title) values ($1, 'Flooring job') returning id`,
    [workspaceId],
  );
  await p.db.query(
    `insert into public.quote_items (quote_id, workspace_id, product_id, quantity, unit_price)
     values ($1, $2, $3, 10, 25), ($1, $2, $4, 5, 30)`,
    [quote.rows[0].id, workspaceId, source1, target],
  );
  await insertDetection(p, workspaceId, target, source1, 0.91);
  await insertDetection(p, workspaceId, source1, source2, 0.74);
  await insertDetection(p, workspaceId, target, other, 0.62);
  return { target, source1, source2, other };
}
