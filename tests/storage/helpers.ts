/**
 * Shared setup for the storage tests: fresh buckets made with the service role, and the policy
 * set Supabase documents for "users manage files under a folder named after their uid".
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { serviceClient } from "../helpers/platform.ts";

let n = 0;

export function uniqueBucket(prefix = "b"): string {
  return `${prefix}-${Date.now().toString(36)}-${(n++).toString(36)}`;
}

/** Creates a bucket through the API as the service role; returns its id. */
export async function createBucket(
  p: Platform,
  opts: { public?: boolean; fileSizeLimit?: number | string; allowedMimeTypes?: string[]; prefix?: string } =
    {},
): Promise<string> {
  const id = uniqueBucket(opts.prefix);
  const { error } = await serviceClient(p).storage.createBucket(id, {
    public: opts.public ?? false,
    fileSizeLimit: opts.fileSizeLimit,
    allowedMimeTypes: opts.allowedMimeTypes,
  });
  assert.equal(error, null);
  return id;
}

/**
 * supabase.com/docs/guides/storage/security/access-control: authenticated users may select,
 * insert, update and delete objects in `bucket` whose first folder is their own uid.
 */
export async function ownFolderPolicies(p: Platform, bucket: string): Promise<void> {
  const own = `bucket_id = '${bucket}' and (storage.foldername(name))[1] = (select auth.uid()::text)`;
  await p.db.exec(`
    create policy "${bucket} own select" on storage.objects for select to authenticated using (${own});
    create policy "${bucket} own insert" on storage.objects for insert to authenticated with check (${own});
    create policy "${bucket} own update" on storage.objects for update to authenticated
      using (${own}) with check (${own});
    create policy "${bucket} own delete" on storage.objects for delete to authenticated using (${own});
  `);
}

/** The bytes of a download, as text. */
export async function text(blob: Blob | null): Promise<string> {
  assert.ok(blob, "expected a body");
  return await blob.text();
}
