/**
 * Choosing the relationship an embed means (PostgREST's Plan.hs findRel): the target may be a
 * table or view name, a foreign-key constraint name or a single foreign-key column; the hint
 * (`rel!hint`) may be a constraint, a column on either side or a junction table. No match is 400
 * PGRST200 and more than one is 300 PGRST201, with PostgREST's details and hints.
 */
import { closest, Errors } from "./errors.ts";
import { qualified, type Relationship, type SchemaCache, type Table } from "./schema-cache.ts";

function matchConstraint(rel: Relationship, name: string): boolean {
  if (rel.computed) return false;
  return rel.junction
    ? rel.junction.constraint1 === name || rel.junction.constraint2 === name
    : rel.constraint === name;
}

const singleCol = (rel: Relationship, side: 0 | 1, name: string) =>
  !rel.junction && rel.columns.length === 1 && rel.columns[0][side] === name;

function describe(rel: Relationship): Record<string, string> {
  const cols = (cs: string[]) => `(${cs.join(", ")})`;
  const cardinality = { m2o: "many-to-one", o2m: "one-to-many", o2o: "one-to-one", m2m: "many-to-many" }[
    rel.cardinality
  ];
  const relationship = rel.junction
    ? `${rel.junction.table.name} using ${rel.junction.constraint1}${
      cols(rel.junction.sourceCols.map((c) => c[1]))
    } and ${rel.junction.constraint2}${cols(rel.junction.targetCols.map((c) => c[0]))}`
    : `${rel.constraint} using ${rel.table.name}${
      cols(rel.columns.map((c) => c[0]))
    } and ${rel.foreignTable.name}${cols(rel.columns.map((c) => c[1]))}`;
  return { cardinality, embedding: `${rel.table.name} with ${rel.foreignTable.name}`, relationship };
}

export function findRelationship(
  cache: SchemaCache,
  schema: string,
  origin: Table | null,
  originName: string,
  target: string,
  hint: string | undefined,
): Relationship {
  const all = origin ? cache.relationships.get(qualified(origin.schema, origin.name)) ?? [] : [];
  const rels = all.filter((rel) =>
    rel.computed
      ? rel.computed.name === target && rel.computed.schema === schema && hint === undefined
      : rel.foreignTable.schema === schema &&
        (rel.foreignTable.name === target || matchConstraint(rel, target) || singleCol(rel, 0, target)) &&
        (hint === undefined || matchConstraint(rel, hint) || singleCol(rel, 0, hint) ||
          singleCol(rel, 1, hint) ||
          rel.junction?.table.name === hint)
  );
  if (rels.length === 1) return rels[0];
  if (rels.length === 0) {
    // Suggest a parent when the origin has no relationships at all, else a child.
    let suggestion: string | null;
    if (all.length === 0) {
      const parents = [...cache.relationships.keys()].filter((k) => k.startsWith(`${schema}.`))
        .map((k) => k.slice(schema.length + 1));
      const s = closest(originName, parents, 0.33);
      suggestion = s && s !== originName ? `Perhaps you meant '${s}' instead of '${originName}'.` : null;
    } else {
      const s = closest(target, all.map((r) => r.foreignTable.name), 0.33);
      suggestion = s && s !== target ? `Perhaps you meant '${s}' instead of '${target}'.` : null;
    }
    throw Errors.noRelBetween(originName, target, hint, schema, suggestion);
  }
  // A self-referencing foreign key gives a many-to-one and a one-to-many with the same constraint:
  // PostgREST takes the one-to-many; the other is reachable with the column as hint.
  if (
    rels.length === 2 && rels[0].constraint === rels[1].constraint && !rels[0].junction && !rels[1].junction
  ) {
    const o2m = rels.find((r) => r.cardinality === "o2m");
    if (o2m && rels.some((r) => r.cardinality === "m2o")) return o2m;
  }
  throw Errors.ambiguousRel(
    originName,
    target,
    rels.map(describe),
    rels.map((r) => `'${r.foreignTable.name}!${r.junction ? r.junction.table.name : r.constraint}'`),
  );
}
