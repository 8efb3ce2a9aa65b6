/**
 * POST /object/list/{bucket}: one folder level, through storage.search() (SECURITY INVOKER, so
 * the caller sees only rows RLS lets them select). Folders come back with id null.
 */
import { z } from "zod";
import { asCaller, type Caller, type StorageContext } from "./context.ts";

const lower = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : v);

export const ListBody = z.object({
  prefix: z.string().default(""),
  limit: z.number().int().min(0).default(100),
  offset: z.number().int().min(0).default(0),
  sortBy: z.object({
    column: z.preprocess(lower, z.enum(["name", "updated_at", "created_at", "last_accessed_at"])).default(
      "name",
    ),
    order: z.preprocess(lower, z.enum(["asc", "desc"])).default("asc"),
  }).default({ column: "name", order: "asc" }),
  search: z.string().nullish(),
});

export interface ListedItem {
  name: string;
  id: string | null;
  updated_at: Date | null;
  created_at: Date | null;
  last_accessed_at: Date | null;
  metadata: Record<string, unknown> | null;
}

export async function listObjects(
  ctx: StorageContext,
  caller: Caller,
  bucket: string,
  body: z.infer<typeof ListBody>,
): Promise<ListedItem[]> {
  // A prefix always names a folder (Storage's searchObjects adds the trailing slash).
  const prefix = body.prefix.length > 0 && !body.prefix.endsWith("/") ? `${body.prefix}/` : body.prefix;
  const r = await asCaller(
    ctx,
    caller,
    (tx) =>
      tx.query<ListedItem>(
        `select name, id, updated_at, created_at, last_accessed_at, metadata
           from storage.search($1, $2, $3, $4, $5, $6, $7)`,
        [prefix, bucket, body.limit, body.offset, body.search ?? "", body.sortBy.column, body.sortBy.order],
      ),
    { readOnly: true },
  );
  return r.rows;
}
