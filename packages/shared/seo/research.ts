/**
 * Stage 1, Research: keyword data for the target keyword from DataForSEO (search volume, CPC and
 * competition; keyword difficulty; related keywords; the organic SERP's competitors and its
 * "people also ask" questions), four live calls made in parallel. No model call.
 */
import type { DataForSeoClient, SerpItem } from "./dataforseo.ts";
import type { Competitor, KeywordResearch } from "./schemas.ts";

export interface ResearchInput {
  target_keyword: string;
  language_code: string;
  location_code: number;
}

const RELATED_LIMIT = 20;
const SERP_DEPTH = 10;

function competitorsOf(items: SerpItem[]): Competitor[] {
  return items
    .filter((i) => i.type === "organic" && typeof i.url === "string")
    .map((i) => ({
      rank: i.rank_group ?? i.rank_absolute ?? 0,
      domain: i.domain ?? new URL(i.url!).hostname,
      url: i.url!,
      title: i.title ?? "",
      description: i.description ?? null,
    }))
    .slice(0, SERP_DEPTH);
}

function questionsOf(items: SerpItem[]): string[] {
  return items
    .filter((i) => i.type === "people_also_ask")
    .flatMap((i) => (i.items ?? []).map((q) => q.title ?? "").filter((t) => t.length > 0))
    .slice(0, 10);
}

export async function researchKeyword(
  client: DataForSeoClient,
  input: ResearchInput,
): Promise<KeywordResearch> {
  const keyword = input.target_keyword.trim();
  const loc = { location_code: input.location_code, language_code: input.language_code };
  const spentBefore = client.spent;
  const [volume, difficulty, related, serp] = await Promise.all([
    client.searchVolume([keyword], loc),
    client.keywordDifficulty([keyword], loc),
    client.relatedKeywords(keyword, loc, RELATED_LIMIT),
    client.serp(keyword, loc, SERP_DEPTH),
  ]);
  const own = volume.find((v) => v.keyword.toLowerCase() === keyword.toLowerCase()) ?? volume[0];
  return {
    target_keyword: keyword,
    language_code: input.language_code,
    location_code: input.location_code,
    search_volume: own?.search_volume ?? null,
    cpc: own?.cpc ?? null,
    competition: own?.competition ?? null,
    keyword_difficulty: difficulty.get(keyword) ?? [...difficulty.values()][0] ?? null,
    monthly_searches: own?.monthly_searches ?? [],
    related_keywords: related
      .filter((r) =>
        r.keyword_data?.keyword && r.keyword_data.keyword.toLowerCase() !== keyword.toLowerCase()
      )
      .map((r) => ({
        keyword: r.keyword_data.keyword,
        search_volume: r.keyword_data.keyword_info?.search_volume ?? null,
        keyword_difficulty: r.keyword_data.keyword_properties?.keyword_difficulty ?? null,
        competition: r.keyword_data.keyword_info?.competition ?? null,
        intent: r.keyword_data.search_intent_info?.main_intent ?? null,
      })),
    competitors: competitorsOf(serp),
    people_also_ask: questionsOf(serp),
    source: "dataforseo",
    provider_cost: Math.round((client.spent - spentBefore) * 1e6) / 1e6,
  };
}

/** The research as a short text for the plan and write prompts (and seo-write's summary). */
export function summarizeResearch(r: KeywordResearch): string {
  const lines = [
    `Target keyword: "${r.target_keyword}" (search volume ${r.search_volume ?? "unknown"}, ` +
    `keyword difficulty ${r.keyword_difficulty ?? "unknown"}/100, competition ${r.competition ?? "unknown"})`,
  ];
  const related = [...r.related_keywords]
    .sort((a, b) => (b.search_volume ?? 0) - (a.search_volume ?? 0))
    .slice(0, 12)
    .map((k) => `${k.keyword} (${k.search_volume ?? "?"}/mo, KD ${k.keyword_difficulty ?? "?"})`);
  if (related.length) lines.push(`Related keywords: ${related.join("; ")}`);
  if (r.competitors.length) {
    lines.push("Top ranking pages:");
    for (const c of r.competitors.slice(0, 8)) lines.push(`  ${c.rank}. ${c.title} (${c.domain})`);
  }
  if (r.people_also_ask.length) lines.push(`People also ask: ${r.people_also_ask.join(" | ")}`);
  return lines.join("\n");
}
