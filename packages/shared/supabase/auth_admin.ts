/**
 * Reads of the auth admin API (GoTrue /admin/users) through a service-role supabase-js client.
 * Only for functions that have already authorised their caller: these bypass every policy.
 */
import type { User } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "./clients.ts";

const PER_PAGE = 1000;

/** Every auth user, page by page (GoTrue's largest page is 1000). */
export async function listAllAuthUsers(service: SupabaseClient): Promise<User[]> {
  const all: User[] = [];
  for (let page = 1;; page++) {
    const { data, error } = await service.auth.admin.listUsers({ page, perPage: PER_PAGE });
    if (error) {
      console.error("auth admin listUsers failed", error);
      throw DomainError.internal("Could not list users", "auth_admin_failed");
    }
    all.push(...data.users);
    if (data.users.length < PER_PAGE) return all;
  }
}

/** One auth user, or null when there is none with that id. */
export async function findAuthUser(service: SupabaseClient, id: string): Promise<User | null> {
  const { data, error } = await service.auth.admin.getUserById(id);
  if (!error) return data.user;
  if (error.status === 404) return null;
  console.error("auth admin getUserById failed", error);
  throw DomainError.internal("Could not read the user", "auth_admin_failed");
}
