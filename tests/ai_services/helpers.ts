/**
 * Shared steps of the AI services tests (images, CLIP embeddings, ai_*, direct LLM): the scripted
 * stand-ins, test images, a local image server reachable only through IMAGE_FETCH_ALLOWED_HOSTS,
 * and a billed gateway call that checks the balance moved by exactly the expected amount.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn, ScriptedReply } from "../../stack/sandbox/providers/anthropic.ts";
import type { JinaStandIn } from "../../stack/sandbox/providers/jina.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { providerModel } from "../../packages/shared/llm/mod.ts";
import {
  AI_CONFIG_PROFILES,
  type AiConfig,
  DEFAULT_AI_CONFIG,
} from "../../packages/shared/ai_services/config.ts";
import { swatch } from "../helpers/catalogue_pdf.ts";
import { balance, gateway, type GatewayAnswer } from "../ai/helpers.ts";

export { balance, gateway, grant } from "../ai/helpers.ts";
export { swatch };

// deno-lint-ignore no-explicit-any
export type Json = any;

export function llm(p: Platform): AnthropicStandIn {
  const s = p.sandbox!.get("anthropic");
  s.reset();
  return s;
}

export function jina(p: Platform): JinaStandIn {
  const s = p.sandbox!.get("jina");
  s.reset();
  return s;
}

export const RED: [number, number, number] = [200, 30, 30];
export const BLUE: [number, number, number] = [30, 60, 200];

export async function pngBase64(rgb: [number, number, number], side = 32): Promise<string> {
  return encodeBase64(await swatch(side, side, rgb));
}

/** The models of the default ai_config, and of FAST_CONFIG (platform ids or model names). */
export const AI: AiConfig = DEFAULT_AI_CONFIG;
export const FAST: AiConfig = AI_CONFIG_PROFILES.FAST_CONFIG;

/** The model id a configured model is sent to the Anthropic sandbox as. */
export const sent = (model: string) => providerModel(model, "anthropic");

/** A scripted answer of the model: one call of the tool the request forces. */
export const toolReply = (name: string, input: Record<string, unknown>): ScriptedReply => ({
  toolUse: [{ name, input }],
});

export const analysis = (material: string, confidence = 0.9) =>
  toolReply("analyze_image", {
    material_type: material,
    colors: ["red"],
    textures: ["smooth"],
    style: "modern",
    description: `A ${material} sample.`,
    confidence,
  });

/** The image-classification answer of the two-stage classification (packages/shared/images/analysis.ts). */
export const imageVerdict = (category: string, confidence: number) =>
  toolReply("classify_image", { category, confidence });

/** The images the messages of captured Anthropic requests carried (media types). */
export function sentImages(s: AnthropicStandIn): string[] {
  return s.captures.requests().flatMap((c) => {
    const body = c.body as Json;
    return (body?.messages ?? []).flatMap((m: Json) =>
      Array.isArray(m.content)
        ? m.content.filter((b: Json) => b.type === "image").map((b: Json) => b.source.media_type)
        : []
    );
  });
}

/**
 * A gateway call that must cost exactly `cost` credits when it succeeds and nothing when it
 * fails (refund): answers the gateway's answer after checking the balance.
 */
export async function billed(
  p: Platform,
  user: { id: string; accessToken: string },
  action: string,
  payload: Record<string, unknown>,
  cost: number,
  expectStatus = 200,
): Promise<GatewayAnswer> {
  const before = await balance(p, user.id);
  const r = await gateway(p, user.accessToken, action, payload);
  assert.equal(r.status, expectStatus, `${action}: ${JSON.stringify(r.body).slice(0, 600)}`);
  const after = await balance(p, user.id);
  if (expectStatus >= 200 && expectStatus < 300) {
    assert.equal(r.body.success, true);
    assert.equal(Math.round((before - after) * 100) / 100, cost, `${action} costs ${cost}`);
    assert.equal(r.headers.get("x-credits-charged"), cost === 0 ? null : String(cost));
  } else {
    assert.equal(after, before, `${action} failed with ${expectStatus} and is refunded`);
    if (cost > 0 && expectStatus !== 402) {
      assert.equal(r.body.billing?.refunded, cost, JSON.stringify(r.body));
    }
  }
  return r;
}

/** A local server for image_url tests: /red.png, /blue.png, /text.txt, /redirect?to=... */
export async function imageServer(): Promise<
  { url: string; host: string; hits: string[]; stop(): Promise<void> }
> {
  const red = await swatch(32, 32, RED) as Uint8Array<ArrayBuffer>;
  const blue = await swatch(32, 32, BLUE) as Uint8Array<ArrayBuffer>;
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const u = new URL(req.url);
    hits.push(u.pathname);
    if (u.pathname === "/red.png") return new Response(red, { headers: { "content-type": "image/png" } });
    if (u.pathname === "/blue.png") return new Response(blue, { headers: { "content-type": "image/png" } });
    if (u.pathname === "/text.txt") {
      return new Response("not an image", { headers: { "content-type": "image/png" } });
    }
    if (u.pathname === "/redirect") {
      return new Response(null, { status: 302, headers: { location: u.searchParams.get("to")! } });
    }
    return new Response("missing", { status: 404 });
  });
  const host = `127.0.0.1:${server.addr.port}`;
  return { url: `http://${host}`, host, hits, stop: () => server.shutdown() };
}
