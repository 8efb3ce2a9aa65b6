/**
 * Signed URLs. A download token is a JWT signed with the project secret with claims
 * `{url: "bucket/path", iat, exp}` (Storage's signObjectUrl); an upload token adds
 * `{owner, upsert}`. Issuing needs what the caller could do themselves (SELECT to sign a
 * download, INSERT to sign an upload); redeeming runs as the superuser, as Storage does, with
 * the token as the only credential.
 */
import { z } from "zod";
import { type JwtClaims, JwtError, signJwt, verifyJwt } from "@shared/auth/jwt.ts";
import { asCaller, type Caller, jwtFailureMessage, probeAsCaller, type StorageContext } from "./context.ts";
import { Errors } from "./errors.ts";
import { SIGNED_UPLOAD_EXPIRY_SECONDS } from "./limits.ts";
import { findBucketLimits, findObject, type ObjectRef } from "./objects.ts";
import { parseTransformBody, transformationsClaim } from "./image.ts";

export const SignBody = z.object({
  expiresIn: z.number().int().min(1),
  transform: z.record(z.string(), z.unknown()).nullish(),
  versionId: z.string().nullish(),
});

export const SignManyBody = z.object({
  expiresIn: z.number().int().min(1),
  paths: z.array(z.string()).min(1).max(1000),
});

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function refusesUnsupported(body: z.infer<typeof SignBody>): void {
  if (body.versionId) throw Errors.notSupported("object versioning");
}

/**
 * A download URL; with a transformation, Storage's signObjectUrl adds a `transformations` claim
 * and points the URL at /render/image/sign/ instead of /object/sign/.
 */
async function signDownload(
  ctx: StorageContext,
  ref: ObjectRef,
  expiresIn: number,
  transformations?: string,
): Promise<string> {
  const iat = nowSeconds();
  const claims: JwtClaims = { url: `${ref.bucket}/${ref.key}`, iat, exp: iat + expiresIn };
  if (transformations) claims.transformations = transformations;
  const token = await signJwt(claims, ctx.jwtSecret);
  return `/${transformations ? "render/image" : "object"}/sign/${ref.bucket}/${ref.key}?token=${token}`;
}

/** POST /object/sign/{bucket}/{path}: only for an object the caller may select. */
export async function createSignedUrl(
  ctx: StorageContext,
  caller: Caller,
  ref: ObjectRef,
  body: z.infer<typeof SignBody>,
): Promise<{ signedURL: string }> {
  refusesUnsupported(body);
  const transform = body.transform && Object.keys(body.transform).length > 0
    ? transformationsClaim(parseTransformBody(body.transform))
    : undefined;
  await findObject(ctx, caller, ref);
  return { signedURL: await signDownload(ctx, ref, body.expiresIn, transform) };
}

/** POST /object/sign/{bucket} {paths}: one entry per path, an error for those not visible. */
export async function createSignedUrls(
  ctx: StorageContext,
  caller: Caller,
  bucket: string,
  body: z.infer<typeof SignManyBody>,
): Promise<{ error: string | null; path: string; signedURL: string | null }[]> {
  const visible = await asCaller(
    ctx,
    caller,
    (tx) =>
      tx.query<{ name: string }>(
        `select name from storage.objects where bucket_id = $1 and name = any($2::text[])`,
        [bucket, body.paths],
      ),
    { readOnly: true },
  );
  const found = new Set(visible.rows.map((r) => r.name));
  return await Promise.all(
    body.paths.map(async (path) =>
      found.has(path)
        ? { error: null, path, signedURL: await signDownload(ctx, { bucket, key: path }, body.expiresIn) }
        : { error: "Either the object does not exist or you do not have access to it", path, signedURL: null }
    ),
  );
}

async function verifyToken(ctx: StorageContext, token: string | null, ref: ObjectRef): Promise<JwtClaims> {
  if (!token) throw Errors.missingParameter("token");
  let claims: JwtClaims;
  try {
    claims = await verifyJwt(token, ctx.jwtSecret);
  } catch (err) {
    if (err instanceof JwtError) throw Errors.invalidJwt(jwtFailureMessage(err));
    throw err;
  }
  // A session token has no url claim, so it can never pass for a signed URL.
  if (claims.url !== `${ref.bucket}/${ref.key}`) {
    throw Errors.invalidSignature("The url do not match the signature");
  }
  return claims;
}

/** GET /object/sign/{bucket}/{path}?token=: the token must be a download token for this exact path. */
export async function verifyDownloadToken(
  ctx: StorageContext,
  token: string | null,
  ref: ObjectRef,
): Promise<{ expires: Date; transformations: string }> {
  const claims = await verifyToken(ctx, token, ref);
  if ("upsert" in claims) throw Errors.invalidSignature("An upload token cannot be used to download");
  if (typeof claims.exp !== "number") throw Errors.invalidJwt("token without exp");
  const transformations = typeof claims.transformations === "string" ? claims.transformations : "";
  return { expires: new Date(claims.exp * 1000), transformations };
}

/** POST /object/upload/sign/{bucket}/{path}: issued only when the caller's own upload would pass RLS. */
export async function createSignedUploadUrl(
  ctx: StorageContext,
  caller: Caller,
  ref: ObjectRef,
  upsert: boolean,
): Promise<{ url: string; token: string }> {
  await findBucketLimits(ctx, ref.bucket);
  await probeAsCaller(ctx, caller, (tx) =>
    tx.query(
      `insert into storage.objects (bucket_id, name, owner_id, metadata) values ($1, $2, $3, '{}'::jsonb)
       ${upsert ? "on conflict (bucket_id, name) do update set metadata = excluded.metadata" : ""}`,
      [ref.bucket, ref.key, caller.owner],
    ));
  const iat = nowSeconds();
  const claims: JwtClaims = {
    url: `${ref.bucket}/${ref.key}`,
    upsert,
    iat,
    exp: iat + SIGNED_UPLOAD_EXPIRY_SECONDS,
  };
  if (caller.owner) claims.owner = caller.owner;
  const token = await signJwt(claims, ctx.jwtSecret);
  return { url: `/object/upload/sign/${ref.bucket}/${ref.key}?token=${token}`, token };
}

/** PUT /object/upload/sign/{bucket}/{path}?token=: the token decides owner and upsert. */
export async function verifyUploadToken(
  ctx: StorageContext,
  token: string | null,
  ref: ObjectRef,
): Promise<{ owner: string | null; upsert: boolean }> {
  const claims = await verifyToken(ctx, token, ref);
  if (typeof claims.upsert !== "boolean") throw Errors.invalidSignature("Not an upload token");
  return { owner: typeof claims.owner === "string" ? claims.owner : null, upsert: claims.upsert };
}
