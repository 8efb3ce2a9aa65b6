/** Half 1 of the unit tier for `deno task test:unit` (see ./helpers.ts). */
import { importShard } from "./helpers.ts";

await importShard(1, 2);
