/**
 * Background agents and world generation, pure parts: a run's input is the agent's config with
 * the run's input_data over it, checked by the type's schema (defaults filled, bad values named);
 * the catalog view shows each type's input as JSON Schema; World Labs assets map to the spec's
 * fields (providers.md 6b).
 */
import assert from "node:assert/strict";
import { agentKind, CATALOG, catalogView, parseInput } from "@shared/background_agents/mod.ts";
import { DomainError } from "@shared/errors.ts";
import { assetUrls, WORLD_CREDITS } from "@shared/worlds/mod.ts";

Deno.test("parseInput: config, then input_data, then defaults; refusals name the field", () => {
  const cases: {
    type: string;
    config: Record<string, unknown>;
    input: Record<string, unknown>;
    want?: Record<string, unknown>;
    error?: RegExp;
  }[] = [
    { type: "stale_price_documents", config: {}, input: {}, want: { max_age_days: 90, notify: true } },
    {
      type: "stale_price_documents",
      config: { max_age_days: 30 },
      input: {},
      want: { max_age_days: 30, notify: true },
    },
    {
      type: "stale_price_documents",
      config: { max_age_days: 30 },
      input: { max_age_days: 7, notify: false },
      want: { max_age_days: 7, notify: false },
    },
    { type: "quote_follow_up", config: {}, input: { pending_days: 0 }, error: /pending_days/ },
    { type: "quote_follow_up", config: { pending_days: "3" }, input: {}, error: /pending_days/ },
    {
      type: "duplicate_scan",
      config: {},
      input: { similarity_threshold: 1.5 },
      error: /similarity_threshold/,
    },
    { type: "catalog_description_writer", config: {}, input: { max_products: 51 }, error: /max_products/ },
    {
      type: "catalog_description_writer",
      config: {},
      input: { unknown: 1 },
      want: { max_products: 10, language: "en" },
    },
  ];
  for (const c of cases) {
    const kind = agentKind(c.type);
    if (c.error) {
      assert.throws(
        () => parseInput(kind, c.config, c.input),
        (e) => e instanceof DomainError && e.kind === "invalid" && c.error!.test(e.message),
        c.type,
      );
    } else {
      assert.deepEqual(parseInput(kind, c.config, c.input), c.want, c.type);
    }
  }
  assert.throws(() => agentKind("nope"), (e) => e instanceof DomainError && e.code === "unknown_agent_type");
});

Deno.test("catalogView: every type, its JSON Schema input with defaults, delegation and cost", () => {
  const view = catalogView();
  assert.equal(view.length, CATALOG.length);
  for (const k of view) {
    assert.equal(k.input_schema.type, "object");
    assert.ok(!("$schema" in k.input_schema));
  }
  const dup = view.find((k) => k.id === "duplicate_scan")!;
  assert.equal(dup.delegated, true);
  assert.equal(dup.cost, null);
  assert.equal((dup.input_schema.properties as Record<string, { default?: unknown }>).limit.default, 1000);
});

Deno.test("assetUrls: World Labs assets to the spec's fields; missing ones are null", () => {
  const full = assetUrls({
    world_id: "w",
    assets: {
      splats: { spz_urls: { "100k": "a", "500k": "b", "full_res": "c" } },
      mesh: { collider_mesh_url: "d" },
      imagery: { pano_url: "e" },
      thumbnail_url: "f",
      caption: "g",
    },
  });
  assert.deepEqual(full, {
    splat_url_100k: "a",
    splat_url_500k: "b",
    splat_url_full: "c",
    collider_glb_url: "d",
    panorama_url: "e",
    thumbnail_url: "f",
    caption: "g",
  });
  assert.deepEqual(Object.values(assetUrls({ world_id: "w" })), [null, null, null, null, null, null, null]);
  assert.deepEqual(WORLD_CREDITS, { "world-0.1-mini": 75, "world-0.1-plus": 300 });
});
