/**
 * One OpenAPI 3.1 document for /functions/v1, as the AI backend's covers /api: every
 * supabase/functions/<name>/app.ts is imported (the same module the functions router runs),
 * and the routes each OpenAPIHono app declares with createRoute (paths already under
 * `/<name>`, with their request and response schemas) are merged, with their components, into
 * one document whose server is `<platform>/functions/v1`. Each function is one tag, described by
 * its app.ts's leading doc comment; a function that is not an OpenAPIHono app, or declares no
 * routes, or fails to load (the router answers 503 BOOT_ERROR for it), is named in the document's
 * description instead.
 *
 * Two functions may share a component (CrmContact, say) only if they describe it identically;
 * a function whose component clashes with an earlier one's is left out and named, never merged
 * over it.
 */
import { BEARER_SCHEME } from "@shared/http/docs.ts";

// The parts of an OpenAPI 3.1 document this module reads and writes.
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  security?: Record<string, string[]>[];
  [key: string]: unknown;
}

interface DocumentedApp {
  getOpenAPI31Document(
    config: { openapi: string; info: { title: string; version: string } },
  ): OpenApiDocument;
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** Function folders with an app.ts, sorted (names the router would serve). */
export async function functionNames(rootDir: string): Promise<string[]> {
  const dir = `${rootDir}/supabase/functions`;
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.isDirectory || !NAME_RE.test(e.name)) continue;
    try {
      if ((await Deno.stat(`${dir}/${e.name}/app.ts`)).isFile) names.push(e.name);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return names.sort();
}

/** The text of a module's leading /** ... *\/ comment, without the stars. */
export function leadingDocComment(source: string): string {
  const m = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source);
  if (!m) return "";
  return m[1].split("\n").map((l) => l.replace(/^\s*\* ?/, "")).join("\n").trim();
}

const isDocumented = (app: unknown): app is DocumentedApp =>
  typeof (app as DocumentedApp | null)?.getOpenAPI31Document === "function";

export interface FunctionsDocumentOptions {
  rootDir: string;
  /** The platform's URL: the document's server is `<url>/functions/v1`. */
  url: string;
  /** Functions deployed without verify_jwt: their operations also accept no credentials. */
  noVerifyJwt?: ReadonlySet<string>;
}

/** Builds the merged document (imports every function's app.ts). */
export async function functionsOpenApiDocument(opts: FunctionsDocumentOptions): Promise<OpenApiDocument> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, Record<string, unknown>> = {
    securitySchemes: { bearer: BEARER_SCHEME },
  };
  const tags: { name: string; description: string }[] = [];
  const undocumented: string[] = [];
  for (const name of await functionNames(opts.rootDir)) {
    const file = `${opts.rootDir}/supabase/functions/${name}/app.ts`;
    let app: unknown;
    try {
      app = (await import(`file://${file}`)).default;
    } catch (err) {
      // As the router answers 503 BOOT_ERROR for that function alone, the others stay documented;
      // the failure is logged and named in the document.
      console.error(`OpenAPI: supabase/functions/${name}/app.ts failed to load`, err);
      undocumented.push(`${name} (fails to load: ${(err as Error).message})`);
      continue;
    }
    const summary = leadingDocComment(await Deno.readTextFile(file));
    if (!isDocumented(app)) {
      undocumented.push(`${name} (not an OpenAPIHono app)`);
      continue;
    }
    let doc: OpenApiDocument;
    try {
      doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: name, version: "1.0.0" } });
    } catch (err) {
      console.error(`OpenAPI: ${name} cannot describe its routes`, err);
      undocumented.push(`${name} (cannot describe its routes: ${(err as Error).message})`);
      continue;
    }
    const own = Object.entries(doc.paths ?? {});
    if (own.length === 0) {
      undocumented.push(`${name} (declares no routes with createRoute)`);
      continue;
    }
    // A component another function already describes differently would make $refs ambiguous:
    // such a function is left out and named, so the clash is seen and the rest stays usable.
    const clashes = Object.entries(doc.components ?? {}).flatMap(([kind, entries]) =>
      Object.entries(entries).filter(([key, value]) =>
        components[kind] && key in components[kind] &&
        JSON.stringify(components[kind][key]) !== JSON.stringify(value)
      ).map(([key]) => `components.${kind}.${key}`)
    );
    if (clashes.length) {
      console.error(`OpenAPI: ${name} describes ${clashes.join(", ")} unlike another function`);
      undocumented.push(`${name} (${clashes.join(", ")} clash with another function's)`);
      continue;
    }
    tags.push({ name, description: summary });
    for (const [path, item] of own) {
      paths[path] = tagOperations(item, name, opts.noVerifyJwt?.has(name) ?? false);
    }
    for (const [kind, entries] of Object.entries(doc.components ?? {})) {
      Object.assign(components[kind] ??= {}, entries);
    }
  }
  const description = "Every edge function under /functions/v1, one tag per function. Authenticate with a " +
    "user JWT from /auth/v1/token (RLS applies) or the service-role key; the gateway also maps an " +
    "`apikey` header to the bearer token." +
    (undocumented.length ? `\n\nNot described here: ${undocumented.join(", ")}.` : "");
  return {
    openapi: "3.1.0",
    info: { title: "Edge functions", version: "1.0.0", description },
    servers: [{ url: `${opts.url}/functions/v1`, description: "This platform's functions" }],
    tags,
    paths,
    components,
    security: [{ bearer: [] }],
  };
}

/** Each operation of a path item gets the function's tag (and optional security with verify_jwt off). */
function tagOperations(item: Record<string, unknown>, name: string, open: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (!HTTP_METHODS.has(key)) {
      out[key] = value;
      continue;
    }
    const op = { ...(value as Record<string, unknown>) };
    op.tags = [name];
    if (open) op.security = [{ bearer: [] }, {}];
    out[key] = op;
  }
  return out;
}
