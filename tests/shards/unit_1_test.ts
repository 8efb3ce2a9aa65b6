/** Shard 1 of 2 of the unit tier (tests/unit/): see tests/helpers/shards.ts. */
import { runShard } from "../helpers/shards.ts";

await runShard("unit", 1, 2);
