/**
 * The typed supabase-js client: `Db` is a client over the generated `Database` types
 * (supabase/types/database.ts, written by `deno task gen-types` with postgres-meta's generator), so
 * table, column and RPC names, row shapes and RPC arguments are checked by `deno check`.
 *
 * The clients are created typed (supabase/clients.ts, auth/context.ts db(c)/serviceDb(c)). Domain
 * modules that still take the untyped `SupabaseClient` accept a `Db` unchanged.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import type { Database } from "../../../supabase/types/database.ts";

export type { Database };
export type { Json, Tables, TablesInsert, TablesUpdate } from "../../../supabase/types/database.ts";

/** A supabase-js client typed with the project's generated database types. */
export type Db = SupabaseClient<Database>;
