/**
 * POST /object/move and /object/copy. A move renames the row (its bytes stay under the same key),
 * so the caller needs SELECT and UPDATE, and the renamed row must pass UPDATE's WITH CHECK at its
 * destination. A copy reads the source under SELECT and writes a new object under INSERT (and
 * SELECT + UPDATE with x-upsert), with its own copy of the bytes.
 */
import { z } from "zod";
import { asCaller, type Caller, type StorageContext } from "./context.ts";
import { Errors } from "./errors.ts";
import { mustBeValidBucketName, mustBeValidKey } from "./limits.ts";
import { findBucketLimits, findObject, type ObjectRef, readObject, storeAndWrite } from "./objects.ts";
import type { ObjectMetadata } from "./upload.ts";

export const TransferBody = z.object({
  bucketId: z.string(),
  sourceKey: z.string(),
  destinationKey: z.string(),
  destinationBucket: z.string().nullish(),
  sourceVersionId: z.string().nullish(),
  copyMetadata: z.boolean().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
type TransferBody = z.infer<typeof TransferBody>;

function endpoints(body: TransferBody): { from: ObjectRef; to: ObjectRef } {
  // Object versions are a hosted-only feature; refusing beats silently moving the current version.
  if (body.sourceVersionId) throw Errors.notSupported("object versioning");
  const bucket = mustBeValidBucketName(body.bucketId);
  return {
    from: { bucket, key: mustBeValidKey(body.sourceKey) },
    to: {
      bucket: body.destinationBucket ? mustBeValidBucketName(body.destinationBucket) : bucket,
      key: mustBeValidKey(body.destinationKey),
    },
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function moveObject(ctx: StorageContext, caller: Caller, body: TransferBody) {
  const { from, to } = endpoints(body);
  if (to.bucket !== from.bucket) await findBucketLimits(ctx, to.bucket);
  if (to.bucket === from.bucket && to.key === from.key) {
    await findObject(ctx, caller, from);
    return { message: "Successfully moved" };
  }
  const owner = caller.owner;
  const moved = await asCaller(ctx, caller, (tx) =>
    tx.query(
      `update storage.objects
          set bucket_id = $3, name = $4, owner = coalesce($5::uuid, owner), owner_id = coalesce($6, owner_id),
              last_accessed_at = now()
        where bucket_id = $1 and name = $2
        returning id`,
      [from.bucket, from.key, to.bucket, to.key, owner && UUID_RE.test(owner) ? owner : null, owner],
    ));
  if (moved.rows.length === 0) throw Errors.noSuchKey();
  return { message: "Successfully moved" };
}

export async function copyObject(ctx: StorageContext, caller: Caller, body: TransferBody, upsert: boolean) {
  const { from, to } = endpoints(body);
  if (to.bucket !== from.bucket) await findBucketLimits(ctx, to.bucket);
  const { obj: source, bytes } = await readObject(ctx, caller, from);
  const metadata = {
    ...(source.metadata ?? {}),
    lastModified: new Date().toISOString(),
  } as ObjectMetadata;
  const { id } = await storeAndWrite(ctx, caller, bytes, {
    ref: to,
    mode: upsert ? "upsert" : "insert",
    owner: caller.owner,
    metadata,
    userMetadata: body.copyMetadata === false ? body.metadata ?? null : source.user_metadata,
  });
  return { Id: id, Key: `${to.bucket}/${to.key}` };
}
