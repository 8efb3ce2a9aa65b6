/**
 * /storage/v1: the Storage API routes storage-js calls, as a table. Each route resolves the caller
 * (Bearer JWT, or anon without one), parses its input, and calls the buckets / objects / list /
 * transfer / signing modules; errors render in Storage's `{statusCode, code, error, message}`.
 * More specific routes come first: `/object/sign/...` must win over `/object/{bucket}/...`.
 */
import { type Context, Hono } from "hono";
import { type Caller, resolveCaller, type StorageContext } from "./context.ts";
import { Errors, renderError, StorageError } from "./errors.ts";
import { mustBeValidBucketName, parseJsonBody, parseObjectPath } from "./limits.ts";
import {
  createBucket,
  CreateBucketBody,
  deleteBucket,
  emptyBucket,
  getBucket,
  listBuckets,
  parseListBucketsQuery,
  updateBucket,
  UpdateBucketBody,
} from "./buckets.ts";
import {
  deleteObject,
  findBucketLimits,
  findObject,
  readObject,
  removeObjects,
  uploadObject,
} from "./objects.ts";
import { ListBody, listObjects } from "./list.ts";
import { listObjectsV2, ListV2Body } from "./list_v2.ts";
import { copyObject, moveObject, TransferBody } from "./transfer.ts";
import {
  createSignedUploadUrl,
  createSignedUrl,
  createSignedUrls,
  SignBody,
  SignManyBody,
  verifyDownloadToken,
  verifyUploadToken,
} from "./signing.ts";
import { objectInfo, renderObject } from "./render.ts";
import { parseTransformQuery, renderImage, transformationsFromClaim } from "./image.ts";
import { z } from "zod";

const RemoveBody = z.object({ prefixes: z.array(z.string()).min(1).max(1000) });

export function createStorageApp(ctx: StorageContext): Hono {
  const app = new Hono();

  app.onError((err) => {
    if (err instanceof StorageError) return renderError(err);
    console.error("storage: unexpected error", err);
    return renderError(Errors.internal());
  });
  app.notFound((c) => renderError(Errors.routeNotFound(c.req.method, new URL(c.req.url).pathname)));

  const caller = (c: Context): Promise<Caller> => resolveCaller(c.req.raw, ctx.jwtSecret);
  const pathname = (c: Context) => new URL(c.req.url).pathname;
  /** `{bucket}/{key}` after a fixed route prefix such as "/object/sign/". */
  const ref = (c: Context, prefix: string) => parseObjectPath(pathname(c), prefix);
  // Hono hands path parameters over already percent-decoded.
  const bucketParam = (c: Context) => mustBeValidBucketName(c.req.param("bucket") ?? "");
  const upsertHeader = (c: Context) => c.req.header("x-upsert") === "true";
  const download = (c: Context) => c.req.query("download") ?? null;

  // Buckets.
  app.get(
    "/bucket",
    async (c) =>
      c.json(await listBuckets(ctx, await caller(c), parseListBucketsQuery(new URL(c.req.url).searchParams))),
  );
  app.post("/bucket", async (c) => {
    const who = await caller(c);
    return c.json(await createBucket(ctx, who, await parseJsonBody(c.req.raw, CreateBucketBody)));
  });
  app.get("/bucket/:bucket", async (c) => c.json(await getBucket(ctx, await caller(c), bucketParam(c))));
  app.put("/bucket/:bucket", async (c) => {
    const who = await caller(c);
    const body = await parseJsonBody(c.req.raw, UpdateBucketBody);
    return c.json(await updateBucket(ctx, who, bucketParam(c), body));
  });
  app.post(
    "/bucket/:bucket/empty",
    async (c) => c.json(await emptyBucket(ctx, await caller(c), bucketParam(c))),
  );
  app.delete(
    "/bucket/:bucket",
    async (c) => c.json(await deleteBucket(ctx, await caller(c), bucketParam(c))),
  );

  // Objects: operations with fixed names.
  app.post("/object/move", async (c) => {
    const who = await caller(c);
    return c.json(await moveObject(ctx, who, await parseJsonBody(c.req.raw, TransferBody)));
  });
  app.post("/object/copy", async (c) => {
    const who = await caller(c);
    return c.json(await copyObject(ctx, who, await parseJsonBody(c.req.raw, TransferBody), upsertHeader(c)));
  });
  app.post("/object/list/:bucket", async (c) => {
    const who = await caller(c);
    return c.json(await listObjects(ctx, who, bucketParam(c), await parseJsonBody(c.req.raw, ListBody)));
  });
  app.post("/object/list-v2/:bucket", async (c) => {
    const who = await caller(c);
    return c.json(await listObjectsV2(ctx, who, bucketParam(c), await parseJsonBody(c.req.raw, ListV2Body)));
  });

  // Signed download URLs: issue (as the caller), redeem (the token is the credential).
  app.post("/object/sign/:bucket", async (c) => {
    const who = await caller(c);
    return c.json(
      await createSignedUrls(ctx, who, bucketParam(c), await parseJsonBody(c.req.raw, SignManyBody)),
    );
  });
  app.post("/object/sign/:bucket/*", async (c) => {
    const who = await caller(c);
    const body = await parseJsonBody(c.req.raw, SignBody);
    return c.json(await createSignedUrl(ctx, who, ref(c, "/object/sign/"), body));
  });
  app.get("/object/sign/:bucket/*", async (c) => {
    const target = ref(c, "/object/sign/");
    const { expires } = await verifyDownloadToken(ctx, c.req.query("token") ?? null, target);
    const { obj, bytes } = await readObject(ctx, "superuser", target);
    return renderObject(c.req.raw, obj, bytes, { download: download(c), expires });
  });

  // Signed upload URLs.
  app.post("/object/upload/sign/:bucket/*", async (c) => {
    const who = await caller(c);
    return c.json(await createSignedUploadUrl(ctx, who, ref(c, "/object/upload/sign/"), upsertHeader(c)));
  });
  app.put("/object/upload/sign/:bucket/*", async (c) => {
    const target = ref(c, "/object/upload/sign/");
    const grant = await verifyUploadToken(ctx, c.req.query("token") ?? null, target);
    const mode = grant.upsert ? "upsert" : "insert";
    return c.json(await uploadObject(ctx, "superuser", target, c.req.raw, mode, grant.owner));
  });

  // Image transformations (Storage's /render/image routes; see image.ts). The signed route takes
  // its transformation from the token, never from the query.
  const transformQuery = (c: Context) => parseTransformQuery(new URL(c.req.url).searchParams);
  app.get("/render/image/authenticated/:bucket/*", async (c) => {
    const who = await caller(c);
    const target = ref(c, "/render/image/authenticated/");
    const t = transformQuery(c);
    const { obj, bytes } = await readObject(ctx, who, target);
    return await renderImage(c.req.raw, obj, bytes, t, { download: download(c) });
  });
  app.get("/render/image/public/:bucket/*", async (c) => {
    const target = ref(c, "/render/image/public/");
    const t = transformQuery(c);
    if (!(await findBucketLimits(ctx, target.bucket)).public) throw Errors.noSuchBucket();
    const { obj, bytes } = await readObject(ctx, "superuser", target);
    return await renderImage(c.req.raw, obj, bytes, t, { download: download(c) });
  });
  app.get("/render/image/sign/:bucket/*", async (c) => {
    const target = ref(c, "/render/image/sign/");
    const { expires, transformations } = await verifyDownloadToken(ctx, c.req.query("token") ?? null, target);
    const { obj, bytes } = await readObject(ctx, "superuser", target);
    const t = transformationsFromClaim(transformations);
    return await renderImage(c.req.raw, obj, bytes, t, { download: download(c), expires });
  });

  // Public buckets: no credentials, superuser reads, refused unless the bucket is public.
  app.get("/object/public/:bucket/*", async (c) => {
    const target = ref(c, "/object/public/");
    if (!(await findBucketLimits(ctx, target.bucket)).public) throw Errors.noSuchBucket();
    const { obj, bytes } = await readObject(ctx, "superuser", target);
    return renderObject(c.req.raw, obj, bytes, { download: download(c) });
  });
  app.get("/object/info/public/:bucket/*", async (c) => {
    const target = ref(c, "/object/info/public/");
    if (!(await findBucketLimits(ctx, target.bucket)).public) throw Errors.noSuchBucket();
    return c.json(objectInfo(await findObject(ctx, "superuser", target)));
  });

  // Object info and downloads under the caller's RLS.
  for (const prefix of ["/object/info/authenticated/", "/object/info/"]) {
    app.get(`${prefix}:bucket/*`, async (c) => {
      const who = await caller(c);
      return c.json(objectInfo(await findObject(ctx, who, ref(c, prefix))));
    });
  }
  for (const prefix of ["/object/authenticated/", "/object/"]) {
    app.get(`${prefix}:bucket/*`, async (c) => {
      const who = await caller(c);
      const { obj, bytes } = await readObject(ctx, who, ref(c, prefix));
      return renderObject(c.req.raw, obj, bytes, { download: download(c) });
    });
  }

  // Uploads and deletes.
  app.post("/object/:bucket/*", async (c) => {
    const who = await caller(c);
    const mode = upsertHeader(c) ? "upsert" : "insert";
    return c.json(await uploadObject(ctx, who, ref(c, "/object/"), c.req.raw, mode, who.owner));
  });
  app.put("/object/:bucket/*", async (c) => {
    const who = await caller(c);
    return c.json(await uploadObject(ctx, who, ref(c, "/object/"), c.req.raw, "update", who.owner));
  });
  app.delete("/object/:bucket", async (c) => {
    const who = await caller(c);
    const body = await parseJsonBody(c.req.raw, RemoveBody);
    return c.json(await removeObjects(ctx, who, bucketParam(c), body.prefixes));
  });
  app.delete("/object/:bucket/*", async (c) => {
    const who = await caller(c);
    await deleteObject(ctx, who, ref(c, "/object/"));
    return c.json({ message: "Successfully deleted" });
  });

  return app;
}
