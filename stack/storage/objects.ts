/**
 * Objects: rows in storage.objects (under RLS, or as the superuser) plus their bytes in the
 * ByteStore. Every write puts new bytes under a fresh key first, then switches the row in one
 * transaction; if the transaction fails the new bytes are removed, and bytes a row stops
 * pointing at are removed only after the commit. A reader never sees half a write.
 */
import type { Transaction } from "../db/database.ts";
import { type Bytes, newByteKey } from "./bytes.ts";
import { type Actor, runAs, type StorageContext } from "./context.ts";
import { Errors } from "./errors.ts";
import { GLOBAL_FILE_SIZE_LIMIT, mimeTypeAllowed } from "./limits.ts";
import { OBJECT_COLUMNS, type StoredObject } from "./render.ts";
import { type IncomingFile, type ObjectMetadata, objectMetadata, readIncomingFile } from "./upload.ts";

export interface ObjectRef {
  bucket: string;
  key: string;
}

export interface BucketLimits {
  id: string;
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Storage looks buckets up as its superuser for uploads and public reads: no bucket policy needed. */
export async function findBucketLimits(ctx: StorageContext, bucket: string): Promise<BucketLimits> {
  const r = await runAs(ctx, "superuser", (tx) =>
    tx.query<BucketLimits>(
      `select id, public, file_size_limit::float8 as file_size_limit, allowed_mime_types
         from storage.buckets where id = $1`,
      [bucket],
    ));
  if (r.rows.length === 0) throw Errors.noSuchBucket();
  return r.rows[0];
}

export async function findObject(
  ctx: StorageContext,
  actor: Actor,
  ref: ObjectRef,
): Promise<StoredObject> {
  const r = await runAs(
    ctx,
    actor,
    (tx) =>
      tx.query<StoredObject>(
        `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
        [ref.bucket, ref.key],
      ),
    { readOnly: true },
  );
  if (r.rows.length === 0) throw Errors.noSuchKey();
  return r.rows[0];
}

/**
 * The object's row and bytes. The row is read in its own transaction, so a concurrent overwrite
 * may drop the bytes it names before they are read; then the row is read again.
 */
export async function readObject(
  ctx: StorageContext,
  actor: Actor,
  ref: ObjectRef,
): Promise<{ obj: StoredObject; bytes: Bytes }> {
  for (let attempt = 0;; attempt++) {
    const obj = await findObject(ctx, actor, ref);
    const bytes = obj.version ? await ctx.bytes.get(obj.version) : null;
    if (bytes) return { obj, bytes };
    if (attempt === 2) throw Errors.bytesMissing();
  }
}

export type WriteMode = "insert" | "upsert" | "update";

export interface RowWrite {
  ref: ObjectRef;
  mode: WriteMode;
  /** The writer's JWT sub; null keeps the current owner on overwrite (service role). */
  owner: string | null;
  metadata: ObjectMetadata;
  userMetadata: Record<string, unknown> | null;
  byteKey: string;
}

/** Points the row at `byteKey`; returns the row id and the byte key it pointed at before, if any. */
async function writeRow(tx: Transaction, w: RowWrite): Promise<{ id: string; replaced: string | null }> {
  const ownerUuid = w.owner && UUID_RE.test(w.owner) ? w.owner : null;
  const meta = JSON.stringify(w.metadata);
  const userMeta = w.userMetadata === null ? null : JSON.stringify(w.userMetadata);
  // Storage inserts without RETURNING, so a plain upload needs only an INSERT policy; reading
  // the existing row first (upsert, update) is why those also need SELECT and UPDATE.
  const existing = w.mode === "insert" ? [] : (await tx.query<{ id: string; version: string | null }>(
    `select id, version from storage.objects where bucket_id = $1 and name = $2 for update`,
    [w.ref.bucket, w.ref.key],
  )).rows;
  if (w.mode === "update") {
    if (existing.length === 0) throw Errors.noSuchKey();
    const r = await tx.query(
      `update storage.objects
          set owner = coalesce($2::uuid, owner), owner_id = coalesce($3, owner_id), metadata = $4::jsonb,
              user_metadata = $5::jsonb, version = $6, last_accessed_at = now()
        where id = $1`,
      [existing[0].id, ownerUuid, w.owner, meta, userMeta, w.byteKey],
    );
    if (r.affectedRows === 0) throw Errors.noSuchKey();
    return { id: existing[0].id, replaced: existing[0].version };
  }
  const id = existing[0]?.id ?? crypto.randomUUID();
  const onConflict = w.mode === "upsert"
    ? `on conflict (bucket_id, name) do update
         set owner = coalesce(excluded.owner, storage.objects.owner),
             owner_id = coalesce(excluded.owner_id, storage.objects.owner_id),
             metadata = excluded.metadata, user_metadata = excluded.user_metadata,
             version = excluded.version, last_accessed_at = now()`
    : "";
  await tx.query(
    `insert into storage.objects (id, bucket_id, name, owner, owner_id, metadata, user_metadata, version)
     values ($1, $2, $3, $4::uuid, $5, $6::jsonb, $7::jsonb, $8) ${onConflict}`,
    [id, w.ref.bucket, w.ref.key, ownerUuid, w.owner, meta, userMeta, w.byteKey],
  );
  return { id, replaced: existing[0]?.version ?? null };
}

/** Drops bytes no committed row points at; a failure is logged and leaves an orphan the next start sweeps. */
export async function dropBytes(ctx: StorageContext, keys: (string | null)[]): Promise<void> {
  for (const key of keys) {
    if (!key) continue;
    try {
      await ctx.bytes.delete(key);
    } catch (err) {
      console.error(`storage: could not delete replaced bytes ${key}; the next start sweeps them`, err);
    }
  }
}

/** Bytes first, then the row in one transaction; on failure the new bytes go again. */
export async function storeAndWrite(
  ctx: StorageContext,
  actor: Actor,
  bytes: Bytes,
  w: Omit<RowWrite, "byteKey">,
): Promise<{ id: string }> {
  const byteKey = newByteKey();
  await ctx.bytes.put(byteKey, bytes);
  let result: { id: string; replaced: string | null };
  try {
    result = await runAs(ctx, actor, (tx) => writeRow(tx, { ...w, byteKey }));
  } catch (err) {
    // The write's own error is the one to report; a failed cleanup is logged and swept later.
    await dropBytes(ctx, [byteKey]);
    throw err;
  }
  await dropBytes(ctx, [result.replaced]);
  return { id: result.id };
}

/** Reads the request's file within the bucket's limits (size, then mime type), as Storage's Uploader. */
export async function receiveFile(ctx: StorageContext, bucket: string, req: Request): Promise<IncomingFile> {
  const limits = await findBucketLimits(ctx, bucket);
  const limit = Math.min(GLOBAL_FILE_SIZE_LIMIT, limits.file_size_limit ?? GLOBAL_FILE_SIZE_LIMIT);
  const file = await readIncomingFile(req, limit);
  if (!mimeTypeAllowed(file.mimetype, limits.allowed_mime_types)) throw Errors.invalidMimeType(file.mimetype);
  return file;
}

/** POST (insert, or upsert with x-upsert), PUT (update), and signed uploads (as the superuser). */
export async function uploadObject(
  ctx: StorageContext,
  actor: Actor,
  ref: ObjectRef,
  req: Request,
  mode: WriteMode,
  owner: string | null,
): Promise<{ Id: string; Key: string }> {
  const file = await receiveFile(ctx, ref.bucket, req);
  const { id } = await storeAndWrite(ctx, actor, file.bytes, {
    ref,
    mode,
    owner,
    metadata: objectMetadata(file.bytes, file.mimetype, file.cacheControl),
    userMetadata: file.userMetadata,
  });
  return { Id: id, Key: `${ref.bucket}/${ref.key}` };
}

/** DELETE /object/{bucket} {prefixes}: what RLS let the caller select and delete goes; returns those rows. */
export async function removeObjects(
  ctx: StorageContext,
  actor: Actor,
  bucket: string,
  names: string[],
): Promise<StoredObject[]> {
  const r = await runAs(ctx, actor, (tx) =>
    tx.query<StoredObject>(
      `delete from storage.objects where bucket_id = $1 and name = any($2::text[]) returning ${OBJECT_COLUMNS}`,
      [bucket, names],
    ));
  await dropBytes(ctx, r.rows.map((row) => row.version));
  return r.rows;
}

/** DELETE /object/{bucket}/{path}. */
export async function deleteObject(ctx: StorageContext, actor: Actor, ref: ObjectRef): Promise<void> {
  const removed = await removeObjects(ctx, actor, ref.bucket, [ref.key]);
  if (removed.length === 0) throw Errors.noSuchKey();
}
