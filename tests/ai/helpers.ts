/**
 * Shared setup of the AI backend and gateway tests: a workspace with an owner, an admin, a
 * member and a viewer, an outsider with a workspace of their own, credits, and small helpers
 * to call the gateway and the backend as one of them.
 */
import type { Platform } from "../../stack/platform.ts";
import { applyBilling, createAiBackendApp } from "../../services/ai-backend/mod.ts";
import {
  type EmbeddingInputType,
  type EmbeddingProvider,
  LocalHashEmbeddings,
} from "../../packages/shared/embeddings/mod.ts";
import type { Context } from "hono";
import { createApp } from "../../packages/shared/http/app.ts";
import { signedIn } from "../../packages/shared/auth/context.ts";
import { createTeam as makeTeam, type Team } from "../helpers/team.ts";

export { balance, grant, type Team } from "../helpers/team.ts";
export { makePdf, toBase64 } from "../helpers/pdf.ts";

export function createTeam(p: Platform, credits = 1000): Promise<Team> {
  return makeTeam(p, { prefix: "ai", credits });
}

export interface GatewayAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  headers: Headers;
}

/** POST /functions/v1/ai-gateway {action, payload} with a token (user JWT or service key). */
export async function gateway(
  p: Platform,
  token: string | null,
  action: string,
  payload: Record<string, unknown> = {},
): Promise<GatewayAnswer> {
  const res = await fetch(`${p.url}/functions/v1/ai-gateway`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "content-type": "application/json",
    },
    body: JSON.stringify({ action, payload }),
  });
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text);
  return { status: res.status, body, headers: res.headers };
}

/** The gateway's data, asserting success. */
export async function ok(
  p: Platform,
  token: string,
  action: string,
  payload: Record<string, unknown> = {},
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const r = await gateway(p, token, action, payload);
  if (r.status < 200 || r.status > 299 || r.body?.success !== true) {
    throw new Error(`${action} answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  return r.body.data;
}

export async function pricingCategory(p: Platform, team: Team): Promise<string> {
  const data = await ok(p, team.owner.accessToken, "kb_create_category", {
    workspace_id: team.ws,
    name: "Pricing",
    slug: "pricing",
    trigger_keyword: "price",
  });
  return data.id;
}

/** The local provider, counting its calls: which writes embed, and how many texts at once. */
export class CountingEmbeddings extends LocalHashEmbeddings {
  calls: { count: number; inputType: EmbeddingInputType }[] = [];
  override embed(texts: readonly string[], inputType: EmbeddingInputType) {
    this.calls.push({ count: texts.length, inputType });
    return super.embed(texts, inputType);
  }
}

/** An AI backend app in the test's process against the platform, with the given embeddings. */
export function inProcessBackend(p: Platform, embeddings: EmbeddingProvider) {
  return createAiBackendApp({
    supabase: {
      url: p.url,
      anonKey: p.config.anonKey,
      serviceRoleKey: p.config.serviceRoleKey,
      jwtSecret: p.config.jwtSecret,
    },
    embeddings,
  });
}

/**
 * Points the gateway at a stand-in AI backend that bills as the real one does (the backend's
 * billing middleware in front of every billable action of the map) and then answers with
 * `answer`. `calls` lists the requests that got past billing, i.e. the work the backend did.
 */
export function billingBackendSpy(
  p: Platform,
  answer: (c: Context) => Response,
): { calls: string[]; stop(): Promise<void> } {
  const real = p.env.AI_BACKEND_URL;
  const calls: string[] = [];
  const app = createApp({
    supabase: {
      url: p.url,
      anonKey: p.config.anonKey,
      serviceRoleKey: p.config.serviceRoleKey,
      jwtSecret: p.config.jwtSecret,
    },
  });
  app.use("/api/*", signedIn);
  applyBilling(app);
  app.all("*", (c) => {
    calls.push(`${c.req.method} ${c.req.path}`);
    return answer(c);
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  p.env.AI_BACKEND_URL = `http://127.0.0.1:${server.addr.port}`;
  return {
    calls,
    async stop() {
      p.env.AI_BACKEND_URL = real;
      await server.shutdown();
    },
  };
}
