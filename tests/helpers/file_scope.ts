/**
 * Which test file the code running now belongs to, when tests/helpers/shards.ts runs many files
 * in one module: the file being imported (its top-level code) or the file whose test is running.
 * Outside a shard (one file run as its own module) it is always MODULE, so per-file state is
 * per-module state, as before.
 */
export const MODULE = "<module>";

let importing: string | null = null;
let running: string | null = null;

export function setImportingFile(file: string | null): void {
  importing = file;
}

export function setRunningFile(file: string | null): void {
  running = file;
}

export function currentTestFile(): string {
  return importing ?? running ?? MODULE;
}
