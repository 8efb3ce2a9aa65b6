/**
 * Choosing the relationship an embed means (PostgREST's Plan.hs findRel): the target may be a
 * table or view name, a foreign-key constraint name or a single foreign-key column; the hint
 * (`rel!hint`) may be a constraint, a column on either side or a junction table. No match is 400
 * PGRST200 and more than one is 300 PGRST201, with PostgREST's details and hints.
 */
import { closest, Errors } from "./errors.ts";
import { qualified, type Relationship, type SchemaCache, type Table } from "./schema-cache.ts";

function matchConstraint(rel: Relationship, name: string): boolean {
  return !rel.computed && !rel.junction && rel.constraint === name;
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

/**
 * Plan.hs findRel's filter. A self-referencing foreign key gives a one-to-many (reached by the
 * table's name, with the child's column as the only hint accepted) and a many-to-one (reached by
 * the column's name, no hint). Otherwise the target is the foreign table, or (without a hint and
 * only towards a table, not a view) a constraint or a single foreign-key column of the origin; a
 * hint names a constraint, a single column on either side or the junction of a many-to-many.
 */
function matches(rel: Relationship, schema: string, target: string, hint: string | undefined): boolean {
  if (rel.computed) return rel.computed.name === target && rel.computed.schema === schema;
  if (rel.foreignTable.schema !== schema) return false;
  const isTarget = rel.foreignTable.name === target;
  if (rel.table === rel.foreignTable && !rel.junction) {
    if (hint === undefined) {
      return (isTarget && rel.cardinality === "o2m") ||
        (singleCol(rel, 0, target) && rel.cardinality === "m2o");
    }
    return isTarget && rel.cardinality === "o2m" && singleCol(rel, 1, hint);
  }
  if (hint === undefined) {
    return isTarget ||
      (!rel.foreignTable.isView && (matchConstraint(rel, target) || singleCol(rel, 0, target)));
  }
  return isTarget &&
    (matchConstraint(rel, hint) || singleCol(rel, 0, hint) || singleCol(rel, 1, hint) ||
      rel.junction?.table.name === hint);
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
  const rels = all.filter((rel) => matches(rel, schema, target, hint));
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
  throw Errors.ambiguousRel(
    originName,
    target,
    rels.map(describe),
    rels.map((r) => `'${r.foreignTable.name}!${r.junction ? r.junction.table.name : r.constraint}'`),
  );
}
