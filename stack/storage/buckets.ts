/**
 * /bucket: storage.buckets under the caller's RLS (service_role bypasses it), so without bucket
 * policies only the service role manages buckets, as on hosted Supabase.
 */
import { z } from "zod";
import { asCaller, type Caller, type StorageContext } from "./context.ts";
import { Errors, sqlState } from "./errors.ts";
import { mustBeValidBucketName, parseAllowedMimeTypes, parseFileSizeLimit } from "./limits.ts";
import { dropBytes } from "./objects.ts";

const BUCKET_COLUMNS =
  `id, name, owner, public, file_size_limit::float8 as file_size_limit, allowed_mime_types,
  created_at, updated_at, type`;

export interface BucketRow {
  id: string;
  name: string;
  owner: string | null;
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
  created_at: Date;
  updated_at: Date;
  type: string;
}

const sizeLimit = z.union([z.number(), z.string()]).nullish();
const mimeTypes = z.array(z.string()).nullish();

export const CreateBucketBody = z.object({
  id: z.string().nullish(),
  name: z.string(),
  public: z.boolean().nullish(),
  file_size_limit: sizeLimit,
  allowed_mime_types: mimeTypes,
  type: z.string().nullish(),
  versioning_status: z.string().nullish(),
});

export const UpdateBucketBody = z.object({
  public: z.boolean().nullish(),
  file_size_limit: sizeLimit,
  allowed_mime_types: mimeTypes,
  versioning_status: z.string().nullish(),
});

export interface ListBucketsQuery {
  limit: number | null;
  offset: number;
  search: string | null;
  sortColumn: "id" | "name" | "created_at" | "updated_at";
  sortOrder: "asc" | "desc";
}

export function parseListBucketsQuery(q: URLSearchParams): ListBucketsQuery {
  const int = (name: string): number | null => {
    const v = q.get(name);
    if (v === null || v === "") return null;
    if (!/^\d+$/.test(v)) throw Errors.invalidRequest(`querystring/${name} must be a non-negative integer`);
    return Number(v);
  };
  const sortColumn = q.get("sortColumn") ?? "name";
  if (!["id", "name", "created_at", "updated_at"].includes(sortColumn)) {
    throw Errors.invalidRequest("querystring/sortColumn must be one of id, name, created_at, updated_at");
  }
  const sortOrder = (q.get("sortOrder") ?? "asc").toLowerCase();
  if (sortOrder !== "asc" && sortOrder !== "desc") {
    throw Errors.invalidRequest("querystring/sortOrder must be asc or desc");
  }
  return {
    limit: int("limit"),
    offset: int("offset") ?? 0,
    search: q.get("search"),
    sortColumn: sortColumn as ListBucketsQuery["sortColumn"],
    sortOrder,
  };
}

export async function listBuckets(
  ctx: StorageContext,
  caller: Caller,
  q: ListBucketsQuery,
): Promise<BucketRow[]> {
  // sortColumn and sortOrder are checked against fixed lists above, so they are safe to inline.
  const r = await asCaller(
    ctx,
    caller,
    (tx) =>
      tx.query<BucketRow>(
        `select ${BUCKET_COLUMNS} from storage.buckets
          where $1::text is null or strpos(lower(name), lower($1)) > 0
          order by ${q.sortColumn} ${q.sortOrder}, id
          limit $2 offset $3`,
        [q.search, q.limit, q.offset],
      ),
    { readOnly: true },
  );
  return r.rows;
}

export async function getBucket(ctx: StorageContext, caller: Caller, id: string): Promise<BucketRow> {
  const r = await asCaller(
    ctx,
    caller,
    (tx) => tx.query<BucketRow>(`select ${BUCKET_COLUMNS} from storage.buckets where id = $1`, [id]),
    { readOnly: true },
  );
  if (r.rows.length === 0) throw Errors.noSuchBucket();
  return r.rows[0];
}

function refuseVersioning(status: string | null | undefined): void {
  if (status) throw Errors.notSupported("bucket versioning");
}

export async function createBucket(
  ctx: StorageContext,
  caller: Caller,
  body: z.infer<typeof CreateBucketBody>,
): Promise<{ name: string }> {
  const name = mustBeValidBucketName(body.name);
  const id = body.id ? mustBeValidBucketName(body.id) : name;
  if (body.type && body.type.toUpperCase() !== "STANDARD") throw Errors.notSupported(`${body.type} buckets`);
  refuseVersioning(body.versioning_status);
  const owner = caller.owner;
  // No RETURNING: creating a bucket needs an INSERT policy only, as documented by Supabase.
  await asCaller(ctx, caller, (tx) =>
    tx.query(
      `insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types)
       values ($1, $2, case when $3::text ~* '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$' then $3::uuid end,
               $3, $4, $5, $6)`,
      [
        id,
        name,
        owner,
        body.public ?? false,
        parseFileSizeLimit(body.file_size_limit),
        parseAllowedMimeTypes(body.allowed_mime_types),
      ],
    ));
  return { name: id };
}

export async function updateBucket(
  ctx: StorageContext,
  caller: Caller,
  id: string,
  body: z.infer<typeof UpdateBucketBody>,
): Promise<{ message: string }> {
  refuseVersioning(body.versioning_status);
  const sets: string[] = [];
  const params: unknown[] = [id];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  // Absent fields stay as they are; null clears a limit (JSON drops storage-js's undefineds).
  if (body.public !== undefined && body.public !== null) set("public", body.public);
  if (body.file_size_limit !== undefined) set("file_size_limit", parseFileSizeLimit(body.file_size_limit));
  if (body.allowed_mime_types !== undefined) {
    set("allowed_mime_types", parseAllowedMimeTypes(body.allowed_mime_types));
  }
  sets.push("updated_at = now()");
  const r = await asCaller(
    ctx,
    caller,
    (tx) => tx.query(`update storage.buckets set ${sets.join(", ")} where id = $1`, params),
  );
  if (r.affectedRows === 0) throw Errors.noSuchBucket();
  return { message: "Successfully updated" };
}

export async function deleteBucket(
  ctx: StorageContext,
  caller: Caller,
  id: string,
): Promise<{ message: string }> {
  const r = await asCaller(ctx, caller, async (tx) => {
    try {
      return await tx.query(`delete from storage.buckets where id = $1`, [id]);
    } catch (err) {
      // storage.objects references the bucket; the foreign key sees every object, RLS or not.
      if (sqlState(err) === "23503") throw Errors.bucketNotEmpty();
      throw err;
    }
  });
  if (r.affectedRows === 0) throw Errors.noSuchBucket();
  return { message: "Successfully deleted" };
}

/** POST /bucket/{id}/empty: deletes every object the caller can see, or nothing if some would stay. */
export async function emptyBucket(
  ctx: StorageContext,
  caller: Caller,
  id: string,
): Promise<{ message: string }> {
  await getBucket(ctx, caller, id);
  const versions = await asCaller(ctx, caller, async (tx) => {
    const visible = await tx.query<{ name: string }>(
      `select name from storage.objects where bucket_id = $1`,
      [id],
    );
    const deleted = await tx.query<{ name: string; version: string | null }>(
      `delete from storage.objects where bucket_id = $1 returning name, version`,
      [id],
    );
    if (deleted.rows.length !== visible.rows.length) {
      const gone = new Set(deleted.rows.map((d) => d.name));
      const left = visible.rows.filter((v) => !gone.has(v.name)).map((v) => v.name);
      throw Errors.accessDenied(
        `Cannot delete: ${left.join(", ")}, you may have SELECT but not DELETE permissions`,
      );
    }
    return deleted.rows.map((d) => d.version);
  });
  await dropBytes(ctx, versions);
  return { message: "Successfully emptied" };
}
