/** Shard 9 of 10 of the files outside tests/unit/: see tests/helpers/shards.ts. */
import { runShard } from "../helpers/shards.ts";

await runShard("platform", 9, 10);
