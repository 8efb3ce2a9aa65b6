/**
 * `deno task cycles`: the repository's local module graph, checked for import circles (of files,
 * and of the folders of packages/shared: auth -> supabase -> http -> auth is refused even when no
 * file circle closes it) and for arrows that break the layering. Exits 1, printing each circle as
 * a chain of files (a folder circle with one file import standing for each arrow) and each
 * forbidden arrow, when it finds any; otherwise prints a short summary (modules, edges, and the
 * graph between the repository's areas with the number of file-level imports on each arrow).
 *
 *   deno task cycles          check, then summarise by area (stack, tests, packages/shared ...)
 *   deno task cycles --dirs   summarise by directory instead
 *
 * The layering: stack/ is the outer ring (it may import services/ and packages/shared/) and only
 * stack/, fixtures/, tests/, bench/ and scripts/ (developer tools such as db_lint.ts, which opens
 * the migrated template) import it; fixtures/ (data, generators and platform
 * helpers shared by tests and benches) is imported only by fixtures/, tests/ and bench/; tests/
 * and bench/ are imported by nobody else; packages/shared/ imports none of services/, stack/ or
 * supabase/functions/.
 *
 * The graph comes from one `deno info --json` over a throwaway module importing every .ts file
 * (import-map aware; static, type-only and literal dynamic imports all count); npm: and remote
 * modules are not resolved, only local files matter.
 */

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const SCANNED = [
  "packages",
  "services",
  "stack",
  "supabase/functions",
  "tests",
  "bench",
  "fixtures",
  "scripts",
];
const SKIP_DIRS = new Set(["node_modules", ".data", ".cache", ".git"]);
const byDirectory = Deno.args.includes("--dirs");

async function collect(dir: string, out: string[]): Promise<void> {
  let entries: AsyncIterable<Deno.DirEntry>;
  try {
    entries = Deno.readDir(`${ROOT}/${dir}`);
    for await (const e of entries) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory && !SKIP_DIRS.has(e.name)) await collect(rel, out);
      else if (e.isFile && /\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(rel);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

interface InfoDependency {
  specifier: string;
  code?: { specifier?: string; error?: string };
  type?: { specifier?: string; error?: string };
  isDynamic?: boolean;
}
interface InfoModule {
  specifier: string;
  error?: string;
  dependencies?: InfoDependency[];
}

const files: string[] = [];
for (const dir of SCANNED) await collect(dir, files);
files.sort();

const tmp = await Deno.makeTempDir({ prefix: "import_cycles_" });
const entry = `${tmp}/entry.ts`;
let info: { modules: InfoModule[] };
try {
  await Deno.writeTextFile(
    entry,
    files.map((f) => `import ${JSON.stringify(new URL(`file://${ROOT}/${f}`).href)};`).join("\n") + "\n",
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-npm", "--no-remote", "--config", `${ROOT}/deno.json`, entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  }).output();
  if (!out.success) {
    console.error(new TextDecoder().decode(out.stderr));
    console.error("cycles: deno info failed");
    Deno.exit(1);
  }
  info = JSON.parse(new TextDecoder().decode(out.stdout));
} finally {
  await Deno.remove(tmp, { recursive: true });
}

const rootUrl = `file://${ROOT}/`;
const entryUrl = new URL(`file://${entry}`).href;
/** Repository-relative path of a local module, or null (npm:, remote, outside the repository). */
function local(specifier: string | undefined): string | null {
  if (!specifier || !specifier.startsWith(rootUrl)) return null;
  return decodeURIComponent(specifier.slice(rootUrl.length));
}

// ---- the file graph -------------------------------------------------------------------------

const modules = new Set<string>();
const edges = new Map<string, Set<string>>();
const warnings: string[] = [];
for (const m of info.modules) {
  if (m.specifier === entryUrl) continue;
  const from = local(m.specifier);
  if (from === null) continue;
  modules.add(from);
  if (m.error) warnings.push(`${from}: ${m.error}`);
  const targets = edges.get(from) ?? new Set<string>();
  edges.set(from, targets);
  for (const d of m.dependencies ?? []) {
    for (const r of [d.code, d.type]) {
      if (!r) continue;
      if (r.error && (d.specifier.startsWith(".") || d.specifier.startsWith("@shared/"))) {
        warnings.push(`${from}: ${d.specifier}: ${r.error}`);
      }
      const to = local(r.specifier);
      if (to !== null) targets.add(to);
    }
  }
}
for (const targets of edges.values()) for (const t of targets) modules.add(t);
const edgeCount = [...edges.values()].reduce((n, s) => n + s.size, 0);

// ---- import circles: strongly connected components (Tarjan), a shortest circle per file -----

function components(modules: Set<string>, edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  // Iterative, so a deep graph cannot overflow the call stack.
  for (const start of [...modules].sort()) {
    if (idx.has(start)) continue;
    const work: { node: string; next: string[] }[] = [];
    const open = (n: string) => {
      idx.set(n, index);
      low.set(n, index++);
      stack.push(n);
      onStack.add(n);
      work.push({ node: n, next: [...(edges.get(n) ?? [])].sort() });
    };
    open(start);
    while (work.length) {
      const top = work[work.length - 1];
      const w = top.next.shift();
      if (w !== undefined) {
        if (!idx.has(w)) open(w);
        else if (onStack.has(w)) low.set(top.node, Math.min(low.get(top.node)!, idx.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === idx.get(top.node)) {
        const scc: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          scc.push(n);
        } while (n !== top.node);
        if (scc.length > 1 || edges.get(top.node)?.has(top.node)) out.push(scc.sort());
      }
    }
  }
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The shortest circle from `start` back to itself inside `members` (breadth first). */
function shortestCircle(edges: Map<string, Set<string>>, start: string, members: Set<string>): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length) {
    const n = queue.shift()!;
    for (const w of [...(edges.get(n) ?? [])].sort()) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [n];
        while (path[0] !== start) path.unshift(prev.get(path[0])!);
        return [...path, start];
      }
      if (!seen.has(w)) {
        seen.add(w);
        prev.set(w, n);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** The circles of a graph: each strongly connected component with its shortest circles. */
function circlesOf(
  nodes: Set<string>,
  graph: Map<string, Set<string>>,
): { members: string[]; chains: string[][] }[] {
  const found: { members: string[]; chains: string[][] }[] = [];
  for (const scc of components(nodes, graph)) {
    const members = new Set(scc);
    const chains = new Map<string, string[]>();
    for (const n of scc) {
      const chain = shortestCircle(graph, n, members);
      // One entry per circle, whichever node it was found from: rotate to start at its least node.
      const ring = chain.slice(0, -1);
      const at = ring.indexOf([...ring].sort()[0]);
      const rotated = [...ring.slice(at), ...ring.slice(0, at)];
      chains.set(rotated.join(" "), [...rotated, rotated[0]]);
    }
    found.push({ members: scc, chains: [...chains.values()].sort((a, b) => a.length - b.length) });
  }
  return found;
}

const circles = circlesOf(modules, edges);

// ---- folder-level circles among packages/shared/<folder>s -----------------------------------
// The core's folders (auth, http, supabase, kb ...) form layers: a circle of folders (http ->
// auth -> supabase -> http) is refused even when no two files import each other in a circle.
// A file directly in packages/shared/ (errors.ts, env.ts ...) is a node of its own.

const SHARED = "packages/shared/";
function sharedFolder(file: string): string | null {
  if (!file.startsWith(SHARED)) return null;
  const rest = file.slice(SHARED.length);
  return SHARED + (rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : rest);
}
const folderNodes = new Set<string>();
const folderGraph = new Map<string, Set<string>>();
/** One file import standing for each folder arrow, to name in the report. */
const folderWitness = new Map<string, string>();
for (const [from, targets] of edges) {
  const a = sharedFolder(from);
  if (a === null) continue;
  folderNodes.add(a);
  for (const to of targets) {
    const b = sharedFolder(to);
    if (b === null || b === a) continue;
    folderNodes.add(b);
    folderGraph.set(a, (folderGraph.get(a) ?? new Set()).add(b));
    const key = `${a} ${b}`;
    if (!folderWitness.has(key) || `${from} ${to}` < folderWitness.get(key)!) {
      folderWitness.set(key, `${from} -> ${to}`);
    }
  }
}
const folderCircles = circlesOf(folderNodes, folderGraph);

// ---- layering -------------------------------------------------------------------------------

/** The area a file belongs to: packages/shared, services/ai-backend, supabase/functions, stack ... */
function area(file: string): string {
  const parts = file.split("/");
  if (["packages", "services"].includes(parts[0]) && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  if (parts[0] === "supabase" && parts[1] === "functions") return "supabase/functions";
  return parts[0];
}

const OUTER = new Set(["stack", "fixtures", "tests", "bench", "scripts"]);
const RULES: { name: string; forbids(from: string, to: string): boolean }[] = [
  {
    name: "only stack/, fixtures/, tests/, bench/ and scripts/ import stack/",
    forbids: (from, to) => to === "stack" && !OUTER.has(from),
  },
  {
    name: "only fixtures/, tests/ and bench/ import fixtures/",
    forbids: (from, to) => to === "fixtures" && !["fixtures", "tests", "bench"].includes(from),
  },
  { name: "only tests/ imports tests/", forbids: (from, to) => to === "tests" && from !== "tests" },
  { name: "only bench/ imports bench/", forbids: (from, to) => to === "bench" && from !== "bench" },
  {
    name: "packages/shared imports none of services/, stack/, supabase/functions/",
    forbids: (from, to) =>
      from === "packages/shared" &&
      (to.startsWith("services/") || to === "stack" || to === "supabase/functions"),
  },
];

const forbidden: { rule: string; from: string; to: string }[] = [];
for (const [from, targets] of [...edges].sort(([a], [b]) => a.localeCompare(b))) {
  for (const to of [...targets].sort()) {
    for (const rule of RULES) {
      if (rule.forbids(area(from), area(to))) forbidden.push({ rule: rule.name, from, to });
    }
  }
}

// ---- report ---------------------------------------------------------------------------------

for (const w of warnings) console.error(`warning: ${w}`);

const group = byDirectory ? (f: string) => f.includes("/") ? f.slice(0, f.lastIndexOf("/")) : "." : area;
const folderEdges = new Map<string, Map<string, number>>();
const folderFiles = new Map<string, number>();
for (const m of modules) folderFiles.set(group(m), (folderFiles.get(group(m)) ?? 0) + 1);
for (const [from, targets] of edges) {
  for (const to of targets) {
    const row = folderEdges.get(group(from)) ?? new Map<string, number>();
    folderEdges.set(group(from), row);
    row.set(group(to), (row.get(group(to)) ?? 0) + 1);
  }
}
console.log(`${modules.size} modules, ${edgeCount} edges (local files only)`);
console.log(`\n${byDirectory ? "directory" : "area"} graph (files; imports on each arrow):`);
for (const f of [...folderFiles.keys()].sort()) {
  const row = folderEdges.get(f) ?? new Map<string, number>();
  console.log(`  ${f} (${folderFiles.get(f)} files, ${row.get(f) ?? 0} internal imports)`);
  for (const [to, n] of [...row].filter(([to]) => to !== f).sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`    -> ${to}: ${n}`);
  }
}

if (circles.length) {
  console.log(`\n${circles.length} import circle(s):`);
  for (const [i, c] of circles.entries()) {
    console.log(`\n#${i + 1}: ${c.members.length} files import each other: ${c.members.join(", ")}`);
    for (const chain of c.chains) console.log(`  ${chain.join(" -> ")}`);
  }
}
if (folderCircles.length) {
  console.log(`\n${folderCircles.length} folder circle(s) in packages/shared:`);
  for (const [i, c] of folderCircles.entries()) {
    console.log(`\n#${i + 1}: ${c.members.length} folders import each other: ${c.members.join(", ")}`);
    const chain = c.chains[0];
    console.log(`  ${chain.join(" -> ")}`);
    for (let k = 0; k < chain.length - 1; k++) {
      console.log(`    ${folderWitness.get(`${chain[k]} ${chain[k + 1]}`)}`);
    }
  }
}
if (forbidden.length) {
  console.log(`\n${forbidden.length} forbidden import(s):`);
  for (const f of forbidden) console.log(`  ${f.from} -> ${f.to}   (${f.rule})`);
}
if (circles.length || folderCircles.length || forbidden.length) {
  console.log(
    `\ncycles: FAILED (${circles.length} circle(s), ${folderCircles.length} folder circle(s) in packages/shared, ` +
      `${forbidden.length} forbidden import(s))`,
  );
  Deno.exit(1);
}
console.log(
  `\ncycles: ok, no import circles (of files, or of packages/shared folders) and no forbidden imports`,
);
