/**
 * The data of a successful gateway answer. The spec's success shape is {success: true, data:
 * object} and clients read the object's fields from data (data.id, data.title). A backend route
 * that answers its object one level down ({document: {...}, re_embedded, warnings}) is declared
 * with `unwrap` in the action map; the gateway then answers the object itself, with the answer's
 * other members beside its fields (the object's own fields win a clash). Lists stay under their
 * name ({categories: [...]}, {chunks: [...]}): data is an object.
 */

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The object under `member` with the answer's other members beside it; null when there is none. */
export function unwrapObject(json: unknown, member: string): Record<string, unknown> | null {
  if (!isObject(json) || !isObject(json[member])) return null;
  const object = json[member];
  const beside = Object.entries(json).filter(([k]) => k !== member && !(k in object));
  return { ...object, ...Object.fromEntries(beside) };
}
