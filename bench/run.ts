/**
 * `deno task bench`: runs every benchmark script in bench/ (or those named) one after the other,
 * each in its own process, and prints their figures.
 *
 *   deno task bench            all of them
 *   deno task bench boot rest  only bench/boot.ts and bench/rest.ts
 */
const here = new URL(".", import.meta.url).pathname;
const names: string[] = [];
for await (const e of Deno.readDir(here)) {
  if (e.isFile && e.name.endsWith(".ts") && !["run.ts", "lib.ts"].includes(e.name)) {
    names.push(e.name.slice(0, -3));
  }
}
names.sort();
const wanted = Deno.args.length ? Deno.args : names;
for (const name of wanted) {
  if (!names.includes(name)) {
    console.error(`no bench/${name}.ts (have: ${names.join(", ")})`);
    Deno.exit(2);
  }
  console.log(`\n== bench/${name}.ts ==`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${here}${name}.ts`],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) Deno.exit(code);
}
