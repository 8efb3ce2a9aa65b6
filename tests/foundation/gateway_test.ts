/** The gateway's apikey -> Authorization mapping, as Supabase's local Kong does it. */
import assert from "node:assert/strict";
import { mapAuthorization } from "../../stack/gateway.ts";
import { defaultConfig } from "../../stack/config.ts";

const keys = defaultConfig();
const userJwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.sig";

const cases: { name: string; headers: Record<string, string>; want: string | null }[] = [
  { name: "nothing", headers: {}, want: null },
  {
    name: "user JWT kept",
    headers: { authorization: `Bearer ${userJwt}`, apikey: keys.anonKey },
    want: `Bearer ${userJwt}`,
  },
  { name: "legacy anon apikey copied", headers: { apikey: keys.anonKey }, want: `Bearer ${keys.anonKey}` },
  {
    name: "publishable -> anon JWT",
    headers: { apikey: keys.publishableKey },
    want: `Bearer ${keys.anonKey}`,
  },
  {
    name: "secret -> service_role JWT",
    headers: { apikey: keys.secretKey },
    want: `Bearer ${keys.serviceRoleKey}`,
  },
  {
    name: "Bearer sb_ is replaced by the apikey mapping",
    headers: { authorization: `Bearer ${keys.secretKey}`, apikey: keys.secretKey },
    want: `Bearer ${keys.serviceRoleKey}`,
  },
  {
    name: "Bearer sb_ without apikey is dropped",
    headers: { authorization: `Bearer ${keys.secretKey}` },
    want: null,
  },
  { name: "unknown sb_ key maps to nothing", headers: { apikey: "sb_secret_forged" }, want: null },
];

for (const c of cases) {
  Deno.test(`mapAuthorization: ${c.name}`, () => {
    assert.equal(mapAuthorization(new Headers(c.headers), keys), c.want);
  });
}
