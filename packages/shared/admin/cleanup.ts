/**
 * Data cleanup by stated rules (DELETE /api/admin/data/cleanup): old failed jobs with their
 * files, files no row points to, old prompt test records. The candidates are chosen in SQL
 * (`admin_cleanup_candidates`, 20260208000200_admin_system.sql).
 */
import { inFilterGroups } from "../supabase/postgrest.ts";
import { type Db, fail, type Json } from "./support.ts";

export interface CleanupRules {
  dry_run: boolean;
  older_than_days: number;
  orphan_grace_minutes: number;
  limit: number;
}

interface Candidates {
  failed_jobs: {
    id: string;
    storage_bucket: string | null;
    storage_path: string | null;
    document_id: string | null;
  }[];
  orphan_uploads: string[];
  orphan_images: string[];
  old_prompt_tests: string[];
}

/**
 * Deletes what the stated rules name (admin_cleanup_candidates): failed/cancelled jobs older than
 * older_than_days with their partial documents, uploads and images; files no row points to;
 * old prompt test records. Completed, pending and processing jobs are never touched. dry_run
 * answers the same counts and lists and deletes nothing.
 */
export async function cleanupData(db: Db, rules: CleanupRules): Promise<Json> {
  const r = await db.rpc("admin_cleanup_candidates", {
    p_older_than_days: rules.older_than_days,
    p_grace_minutes: rules.orphan_grace_minutes,
    p_limit: rules.limit,
  });
  if (r.error) fail("Finding what to clean up", r.error);
  const c = r.data as Candidates;
  const jobFiles = c.failed_jobs.filter((j) => j.storage_bucket && j.storage_path)
    .map((j) => ({ bucket: j.storage_bucket!, path: j.storage_path! }));
  const jobDocs = c.failed_jobs.map((j) => j.document_id).filter((d): d is string => Boolean(d));
  const result = {
    dry_run: rules.dry_run,
    rules: {
      older_than_days: rules.older_than_days,
      orphan_grace_minutes: rules.orphan_grace_minutes,
      limit_per_rule: rules.limit,
    },
    failed_jobs: { matched: c.failed_jobs.length, deleted: 0, ids: c.failed_jobs.map((j) => j.id) },
    orphan_uploads: { matched: c.orphan_uploads.length, deleted: 0, paths: c.orphan_uploads },
    orphan_images: { matched: c.orphan_images.length, deleted: 0, paths: c.orphan_images },
    old_prompt_tests: { matched: c.old_prompt_tests.length, deleted: 0 },
    errors: [] as string[],
  };
  if (rules.dry_run) return result;

  if (c.failed_jobs.length) {
    // The jobs and what cascades from them (checkpoints, model calls, documents); one statement per
    // ~6 kB of ids (up to 1,000), so that no request line is too long.
    for (const list of inFilterGroups(result.failed_jobs.ids)) {
      const del = await db.from("ai_jobs").delete().filter("id", "in", list)
        .in("status", ["failed", "cancelled"]).select("id");
      if (del.error) fail("Deleting failed jobs", del.error);
      result.failed_jobs.deleted += del.data.length;
    }
    const images: string[] = [];
    for (const doc of jobDocs) {
      const l = await db.storage.from("material-images").list(doc, { limit: 1000 });
      if (l.error) result.errors.push(`listing images of ${doc}: ${l.error.message}`);
      else images.push(...l.data.map((f) => `${doc}/${f.name}`));
    }
    if (images.length) await removeFiles(db, "material-images", images, result.errors);
    const byBucket = new Map<string, string[]>();
    for (const f of jobFiles) byBucket.set(f.bucket, [...(byBucket.get(f.bucket) ?? []), f.path]);
    for (const [bucket, paths] of byBucket) await removeFiles(db, bucket, paths, result.errors);
  }
  if (c.orphan_uploads.length) {
    result.orphan_uploads.deleted = await removeFiles(db, "ai-documents", c.orphan_uploads, result.errors);
  }
  if (c.orphan_images.length) {
    result.orphan_images.deleted = await removeFiles(db, "material-images", c.orphan_images, result.errors);
  }
  if (c.old_prompt_tests.length) {
    for (const list of inFilterGroups(c.old_prompt_tests)) {
      const del = await db.from("ai_prompt_tests").delete().filter("id", "in", list).select("id");
      if (del.error) fail("Deleting prompt tests", del.error);
      result.old_prompt_tests.deleted += del.data.length;
    }
  }
  return result;
}

async function removeFiles(db: Db, bucket: string, paths: string[], errors: string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < paths.length; i += 100) {
    const r = await db.storage.from(bucket).remove(paths.slice(i, i + 100));
    if (r.error) errors.push(`removing files from ${bucket}: ${r.error.message}`);
    else removed += r.data.length;
  }
  return removed;
}
