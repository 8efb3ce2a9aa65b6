import { worker } from "@electric-sql/pglite/worker";
import { openFromTemplate } from "../stack/db/template.ts";
await worker({ init: async () => await openFromTemplate(new URL("..", import.meta.url).pathname.replace(/\/$/, "")) });
