/**
 * Deploy readiness of supabase/functions: every function folder has its production entry
 * (index.ts serving app.ts) and a [functions.<name>] block in supabase/config.toml that states
 * verify_jwt and points at the repository's one import map.
 */
import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("every function is declared in config.toml with verify_jwt and the shared import map", async () => {
  const toml = parseToml(await Deno.readTextFile(`${root}supabase/config.toml`)) as {
    functions?: Record<string, { verify_jwt?: boolean; import_map?: string }>;
  };
  const declared = toml.functions ?? {};
  const folders: string[] = [];
  for await (const e of Deno.readDir(`${root}supabase/functions`)) {
    if (e.isDirectory && /^[A-Za-z][A-Za-z0-9_-]*$/.test(e.name)) folders.push(e.name);
  }
  assert.ok(folders.length > 0);
  for (const name of folders.sort()) {
    const block = declared[name];
    assert.ok(block, `[functions.${name}] is missing from supabase/config.toml`);
    assert.equal(typeof block.verify_jwt, "boolean", `${name}: verify_jwt must be stated`);
    assert.equal(block.import_map, "../deno.json", `${name}: import_map must be the root deno.json`);
    const index = await Deno.readTextFile(`${root}supabase/functions/${name}/index.ts`);
    assert.match(index, /import app from "\.\/app\.ts";/, `${name}/index.ts must import its app`);
    assert.match(index, /Deno\.serve\(app\.fetch\)/, `${name}/index.ts must serve app.fetch`);
  }
  for (const name of Object.keys(declared)) {
    assert.ok(folders.includes(name), `config.toml declares missing function ${name}`);
  }
});
