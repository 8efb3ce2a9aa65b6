/**
 * POST /object/list-v2/{bucket}: storage-js `listV2()`, as Storage's listObjectsV2 route
 * (supabase/storage src/http/routes/object/listObjectsV2.ts) and ObjectStorage.listObjectsV2
 * (src/storage/object.ts) answer it:
 * - `prefix` is a plain string prefix of the key (not assumed to be a folder);
 * - without `with_delimiter`, every object under the prefix, flat (storage.objects read directly,
 *   src/storage/database/knex.ts listObjectsV2), with `{id, name, metadata, updated_at,
 *   created_at, last_accessed_at}` and no folders;
 * - with `with_delimiter`, one level: sub-folders (as `{key, name: "full/path/", id: null, ...}`,
 *   their created_at/updated_at the oldest created_at inside, as storage.search_by_timestamp)
 *   and files (with `key`, the last path segment at that level, as storage.search_v2);
 * - sorted by name (bytewise, COLLATE "C") or by created_at / updated_at with the name breaking
 *   ties, ascending or descending;
 * - `limit` (default and maximum 1000) per page; `hasNext` and an opaque `nextCursor` (Storage's
 *   continuation token: base64 of `l:<last name>\no:<order>\nc:<column>\na:<last timestamp>`)
 *   that fetches the next page, keeping the first page's sort.
 * Queries run as the caller, so RLS on storage.objects decides what is listed.
 */
import { z } from "zod";
import { asCaller, type Caller, type StorageContext } from "./context.ts";
import { StorageError } from "./errors.ts";
import { findBucketLimits } from "./objects.ts";

const MAX_KEYS = 1000;

export const ListV2Body = z.object({
  prefix: z.string().optional(),
  limit: z.number().int().min(1).optional(),
  cursor: z.string().optional(),
  with_delimiter: z.boolean().optional(),
  sortBy: z.object({
    column: z.enum(["name", "updated_at", "created_at"]),
    order: z.enum(["asc", "desc"]).optional(),
  }).optional(),
});

type SortColumn = "name" | "updated_at" | "created_at";
type SortOrder = "asc" | "desc";

interface Cursor {
  startAfter: string;
  sortOrder?: string;
  sortColumn?: string;
  sortColumnAfter?: string;
}

const CURSOR_PARTS: [string, keyof Cursor][] = [
  ["l", "startAfter"],
  ["o", "sortOrder"],
  ["c", "sortColumn"],
  ["a", "sortColumnAfter"],
];

const invalidCursor = () =>
  new StorageError(400, "InvalidParameter", "Invalid Parameter continuation token", "Invalid Parameter");

function encodeCursor(cursor: Cursor): string {
  const lines = CURSOR_PARTS.filter(([, field]) => cursor[field]).map(([k, field]) =>
    `${k}:${cursor[field]}`
  );
  const bytes = new TextEncoder().encode(lines.join("\n"));
  return btoa(String.fromCharCode(...bytes));
}

function decodeCursor(token: string): Cursor {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(token), (ch) => ch.charCodeAt(0)),
    );
  } catch {
    throw invalidCursor();
  }
  const cursor: Cursor = { startAfter: "", sortOrder: "asc" };
  for (const line of text.split("\n")) {
    const m = /^(\S):(.*)$/s.exec(line);
    const part = m && CURSOR_PARTS.find(([k]) => k === m[1]);
    if (!m || !part) throw invalidCursor();
    cursor[part[1]] = m[2];
  }
  return cursor;
}

interface Row {
  key?: string;
  name: string;
  id: string | null;
  updated_at: Date | null;
  created_at: Date | null;
  last_accessed_at: Date | null;
  metadata: Record<string, unknown> | null;
}

export interface ListV2Result {
  hasNext: boolean;
  nextCursor?: string;
  nextCursorKey?: string;
  folders: Row[];
  objects: Row[];
}

export async function listObjectsV2(
  ctx: StorageContext,
  caller: Caller,
  bucket: string,
  body: z.infer<typeof ListV2Body>,
): Promise<ListV2Result> {
  // Storage resolves the bucket first: an unknown one is NoSuchBucket, not an empty page.
  await findBucketLimits(ctx, bucket);
  const limit = Math.min(body.limit ?? MAX_KEYS, MAX_KEYS);
  const prefix = body.prefix ?? "";
  const cursor = body.cursor ? decodeCursor(body.cursor) : undefined;
  const column: SortColumn =
    (["name", "updated_at", "created_at"] as const).find((c) =>
      c === (cursor?.sortColumn ?? body.sortBy?.column)
    ) ?? "name";
  const order: SortOrder = (cursor?.sortOrder ?? body.sortBy?.order) === "desc" ? "desc" : "asc";
  const startAfter = cursor?.startAfter ?? "";
  const after = cursor?.sortColumnAfter ?? "";
  const delimited = body.with_delimiter === true;

  const op = order === "asc" ? ">" : "<";
  // The page filter: past the cursor in the sort order (name, or timestamp then name).
  // ($4, the timestamp part of the cursor, is only read when sorting by a timestamp.)
  // By name, a folder sits where its objects do ("a.txt" < "a/x"), so it sorts as "a/"; a cursor
  // that names a folder resumes past all of it (storage.list_objects_with_delimiter's seek).
  const seekKey = delimited
    ? `case when $3 <> '' and exists (select 1 from storage.objects o
                                      where o.bucket_id = $2 and starts_with(o.name, $3 || '/'))
            then $3 || '/' else $3 end`
    : "$3";
  const seek = column === "name"
    ? `($3 = '' or i.sort_name collate "C" ${op} ${seekKey}) and $4::text is not null`
    : `($3 = '' or row(date_trunc('milliseconds', i.${column}), i.name collate "C") ${op}
         row(coalesce(nullif($4, '')::timestamptz, 'epoch'::timestamptz), $3))`;
  const orderBy = column === "name"
    ? `i.sort_name collate "C" ${order}`
    : `coalesce(date_trunc('milliseconds', i.${column}), 'epoch'::timestamptz) ${order}, i.name collate "C" ${order}`;
  // Objects under the prefix; with the delimiter, everything below the next '/' collapses into
  // one folder row named by its path up to (without) that '/', as storage.search_by_timestamp.
  const items = delimited
    ? `select rtrim(common, '/') as name, common as sort_name, null::uuid as id, min(created_at) as updated_at,
              min(created_at) as created_at, null::timestamptz as last_accessed_at, null::jsonb as metadata
         from (select o.*, case when strpos(substr(o.name, length($1) + 1), '/') > 0
                                then left(o.name, length($1) + strpos(substr(o.name, length($1) + 1), '/'))
                           end as common
                 from storage.objects o
                where o.bucket_id = $2 and starts_with(o.name, $1)) m
        where common is not null group by common
       union all
       select o.name, o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata
         from storage.objects o
        where o.bucket_id = $2 and starts_with(o.name, $1)
          and strpos(substr(o.name, length($1) + 1), '/') = 0`
    : `select o.name, o.name as sort_name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata
         from storage.objects o where o.bucket_id = $2 and starts_with(o.name, $1)`;
  const levels = prefix === "" ? 1 : prefix.split("/").length;
  const r = await asCaller(
    ctx,
    caller,
    (tx) =>
      tx.query<Row>(
        `select ${delimited ? `split_part(i.name, '/', $6::int) as key,` : ""}
                i.name, i.id, i.updated_at, i.created_at, i.last_accessed_at, i.metadata
           from (${items}) i
          where ${seek}
          order by ${orderBy}
          limit $5`,
        [prefix, bucket, startAfter, after, limit + 1, ...(delimited ? [levels] : [])],
      ),
    { readOnly: true },
  );

  const hasNext = r.rows.length > limit;
  const page = r.rows.slice(0, limit);
  const folders: Row[] = [];
  const objects: Row[] = [];
  for (const row of page) {
    if (row.id === null) folders.push({ ...row, name: row.name.endsWith("/") ? row.name : `${row.name}/` });
    else objects.push(row);
  }
  const result: ListV2Result = { hasNext, folders, objects };
  if (hasNext) {
    const last = page[page.length - 1];
    const lastAt = column !== "name" ? last[column] : null;
    result.nextCursor = encodeCursor({
      startAfter: last.name,
      sortOrder: cursor?.sortOrder ?? body.sortBy?.order,
      sortColumn: cursor?.sortColumn ?? body.sortBy?.column,
      sortColumnAfter: lastAt ? new Date(lastAt).toISOString() : undefined,
    });
    result.nextCursorKey = last.name;
  }
  return result;
}
