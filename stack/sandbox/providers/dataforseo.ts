/**
 * Stand-in for DataForSEO v3 (providers.md §6c): HTTP Basic auth, a JSON array of task objects
 * per POST, and the tasks envelope back ({version, status_code 20000, status_message, time,
 * cost, tasks_count, tasks_error, tasks: [{id, status_code, status_message, time, cost,
 * result_count, path, data, result}]}). Paths are taken with or without the /v3 prefix.
 *
 * Endpoints (live): keywords_data/google_ads/search_volume, keywords_data/google_ads/
 * keywords_for_keywords, dataforseo_labs/google/related_keywords, dataforseo_labs/google/
 * bulk_keyword_difficulty, serp/google/organic/live/advanced (and /regular). Their data is
 * deterministic, derived from a hash of the keyword: the same keyword always gets the same
 * volume, difficulty, related keywords and SERP (titles and snippets built from the keyword).
 *
 * Tests script it: `failNext(status)` (an HTTP error in DataForSEO's envelope), and
 * `failTaskNext(statusCode, message)` (HTTP 200 whose task carries an error status_code, the
 * way DataForSEO reports most failures); `serpOverride` replaces the SERP items of a keyword.
 */
import { StandIn, type StandInRequest } from "../standin.ts";

export const DATAFORSEO_SANDBOX_LOGIN = "sandbox@dataforseo.local";
export const DATAFORSEO_SANDBOX_PASSWORD = "dataforseo-sandbox-local-placeholder";

/** USD per task, as the real price list orders them (live SERP dearer than keyword data). */
const COST: Record<string, number> = {
  "/keywords_data/google_ads/search_volume/live": 0.075,
  "/keywords_data/google_ads/keywords_for_keywords/live": 0.075,
  "/dataforseo_labs/google/related_keywords/live": 0.0101,
  "/dataforseo_labs/google/bulk_keyword_difficulty/live": 0.0101,
  "/serp/google/organic/live/advanced": 0.002,
  "/serp/google/organic/live/regular": 0.0015,
};

type Task = Record<string, unknown>;

/** FNV-1a over the keyword, then a small xorshift stream: deterministic per keyword. */
function rng(seed: string): () => number {
  let h = 0x811c9dc5;
  for (const ch of seed.toLowerCase().trim()) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let x = h || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

const MODIFIERS = [
  "best %",
  "% cost",
  "% installation",
  "% vs alternatives",
  "how to choose %",
  "% for bathrooms",
  "% maintenance",
  "cheap %",
  "% near me",
  "% pros and cons",
  "% sizes",
  "% ideas",
];
const SITES = [
  "buildersguide.example",
  "renovationhub.example",
  "materialsreview.example",
  "homeprojects.example",
  "tradesupply.example",
  "diyworkshop.example",
  "archdigest.example",
  "flooringexperts.example",
  "contractorsnet.example",
  "interiorplanner.example",
];

function titleCase(s: string): string {
  return s.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

export function keywordMetrics(keyword: string) {
  const r = rng(keyword);
  const volume = Math.round(50 + r() * 20_000);
  const competitionIndex = Math.round(r() * 100);
  const year = 2026;
  return {
    search_volume: volume,
    competition_index: competitionIndex,
    competition: competitionIndex < 34 ? "LOW" : competitionIndex < 67 ? "MEDIUM" : "HIGH",
    cpc: Math.round((0.2 + r() * 6) * 100) / 100,
    low_top_of_page_bid: Math.round((0.1 + r() * 2) * 100) / 100,
    high_top_of_page_bid: Math.round((2 + r() * 8) * 100) / 100,
    keyword_difficulty: Math.round(5 + r() * 85),
    monthly_searches: Array.from({ length: 12 }, (_, i) => ({
      year: i < 10 ? year : year - 1,
      month: ((10 - i + 11) % 12) + 1,
      search_volume: Math.max(10, Math.round(volume * (0.7 + r() * 0.6))),
    })),
  };
}

function relatedKeywords(keyword: string, limit: number): string[] {
  const r = rng(`related:${keyword}`);
  const mods = [...MODIFIERS].sort(() => r() - 0.5);
  return mods.slice(0, Math.min(limit, mods.length)).map((m) => m.replace("%", keyword.trim()));
}

function serpItems(keyword: string, depth: number): Task[] {
  const r = rng(`serp:${keyword}`);
  const kw = keyword.trim();
  const sites = [...SITES].sort(() => r() - 0.5);
  const templates = [
    (k: string) => `${titleCase(k)}: The Complete Guide`,
    (k: string) => `Best ${titleCase(k)} of ${2026}`,
    (k: string) => `How to Choose ${titleCase(k)}`,
    (k: string) => `${titleCase(k)} Prices, Pros and Cons`,
    (k: string) => `Everything About ${titleCase(k)} for Your Home Renovation Project`,
    (_k: string) => `Expert Buying Advice`,
  ];
  const organic: Task[] = [];
  for (let i = 0; i < Math.min(depth, sites.length); i++) {
    const title = templates[Math.floor(r() * templates.length)](kw);
    const mentions = r() < 0.7;
    const description = mentions
      ? `Learn about ${kw}: types, costs, installation tips and what to look for before you buy. Compared by our editors and tested in real homes across the country.`
        .slice(0, Math.floor(90 + r() * 90))
      : "Compare products, read reviews and get expert advice from professionals.";
    const path = r() < 0.6 ? `/${slug(kw)}-guide` : `/articles/${Math.floor(r() * 9000 + 1000)}`;
    organic.push({
      type: "organic",
      rank_group: i + 1,
      rank_absolute: i + 2,
      domain: `www.${sites[i]}`,
      title,
      url: `https://www.${sites[i]}${path}`,
      breadcrumb: `https://www.${sites[i]} › ${path.split("/")[1]}`,
      description,
      is_featured_snippet: false,
    });
  }
  const paa: Task = {
    type: "people_also_ask",
    rank_group: 1,
    rank_absolute: 1,
    items: [
      `What is the best ${kw}?`,
      `How much does ${kw} cost?`,
      `How long does ${kw} last?`,
      `Is ${kw} easy to install?`,
    ].map((title) => ({ type: "people_also_ask_element", title })),
  };
  return [paa, ...organic];
}

export class DataForSeoStandIn extends StandIn {
  readonly name = "dataforseo";
  readonly login = DATAFORSEO_SANDBOX_LOGIN;
  readonly password = DATAFORSEO_SANDBOX_PASSWORD;
  #taskFaults: { statusCode: number; message: string }[] = [];
  /** SERP items to answer for a keyword instead of the generated ones. */
  serpOverride = new Map<string, Task[]>();

  /** The next request(s) answer HTTP 200 with this task-level error (DataForSEO's usual way). */
  failTaskNext(statusCode: number, message = "Internal Error.", times = 1): this {
    for (let i = 0; i < times; i++) this.#taskFaults.push({ statusCode, message });
    return this;
  }

  override reset(): void {
    super.reset();
    this.#taskFaults = [];
    this.serpOverride.clear();
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    const code = status === 401
      ? 40100
      : status === 404
      ? 40400
      : status === 429
      ? 40202
      : status >= 500
      ? 50000
      : 40000;
    return Response.json(
      this.#envelope(code, message, [], 0),
      { status, headers },
    );
  }

  #envelope(statusCode: number, message: string, tasks: Task[], cost: number): Record<string, unknown> {
    return {
      version: "0.1.20260101",
      status_code: statusCode,
      status_message: message,
      time: "0.0100 sec.",
      cost,
      tasks_count: tasks.length,
      tasks_error: tasks.filter((t) => (t.status_code as number) >= 40000).length,
      tasks,
    };
  }

  protected route(req: StandInRequest): Response {
    const path = req.path.replace(/^\/v3(?=\/)/, "").replace(/\/+$/, "");
    const auth = /^Basic\s+(\S+)/i.exec(req.headers.get("authorization") ?? "")?.[1];
    let pair = "";
    try {
      pair = auth ? atob(auth) : "";
    } catch (_) {
      pair = ""; // not base64: refused below like a wrong password
    }
    if (pair !== `${this.login}:${this.password}`) {
      return this.errorResponse(401, "You are not authorized to access this resource.");
    }
    if (req.method !== "POST") return this.errorResponse(405, `Method ${req.method} not allowed`);
    if (!(path in COST)) return this.errorResponse(404, "Not Found.");
    const body = req.json();
    if (!Array.isArray(body) || body.length === 0 || body.some((t) => !t || typeof t !== "object")) {
      return Response.json(
        this.#envelope(40501, "Invalid Field: request body must be an array of tasks.", [], 0),
      );
    }
    const tasks = (body as Task[]).slice(0, 100).map((t) => this.#task(path, t));
    const cost = tasks.reduce((n, t) => n + (t.cost as number), 0);
    return Response.json(this.#envelope(20000, "Ok.", tasks, Math.round(cost * 1e6) / 1e6));
  }

  #task(path: string, data: Task): Task {
    const id = `${new Date().toISOString().slice(2, 10).replace(/-/g, "")}${crypto.randomUUID().slice(0, 8)}`;
    const base = {
      id,
      time: "0.0050 sec.",
      path: ["v3", ...path.slice(1).split("/")],
      data: { api: path.split("/")[1], function: path.split("/").at(-2), ...data },
    };
    const fault = this.#taskFaults.shift();
    if (fault) {
      return {
        ...base,
        status_code: fault.statusCode,
        status_message: fault.message,
        cost: 0,
        result_count: 0,
        result: null,
      };
    }
    const problem = this.#validate(path, data);
    if (problem) {
      return {
        ...base,
        status_code: 40501,
        status_message: `Invalid Field: '${problem}'.`,
        cost: 0,
        result_count: 0,
        result: null,
      };
    }
    const result = this.#result(path, data);
    return {
      ...base,
      status_code: 20000,
      status_message: "Ok.",
      cost: COST[path],
      result_count: result.length,
      result,
    };
  }

  #validate(path: string, t: Task): string | null {
    const needsList = path.endsWith("search_volume/live") || path.endsWith("keywords_for_keywords/live") ||
      path.endsWith("bulk_keyword_difficulty/live");
    if (needsList) {
      if (!Array.isArray(t.keywords) || t.keywords.length === 0 || t.keywords.length > 1000) {
        return "keywords";
      }
      if (t.keywords.some((k) => typeof k !== "string" || k.trim() === "")) return "keywords";
    } else if (typeof t.keyword !== "string" || t.keyword.trim() === "") return "keyword";
    if (t.location_code === undefined && t.location_name === undefined) return "location_code";
    if (t.language_code === undefined && t.language_name === undefined && !path.startsWith("/serp")) {
      return "language_code";
    }
    return null;
  }

  #result(path: string, t: Task): Task[] {
    const loc = { location_code: t.location_code ?? 2840, language_code: t.language_code ?? "en" };
    const volumeRow = (keyword: string) => {
      const m = keywordMetrics(keyword);
      return {
        keyword,
        ...loc,
        search_partners: false,
        competition: m.competition,
        competition_index: m.competition_index,
        search_volume: m.search_volume,
        low_top_of_page_bid: m.low_top_of_page_bid,
        high_top_of_page_bid: m.high_top_of_page_bid,
        cpc: m.cpc,
        monthly_searches: m.monthly_searches,
      };
    };
    switch (path) {
      case "/keywords_data/google_ads/search_volume/live":
        return (t.keywords as string[]).map(volumeRow);
      case "/keywords_data/google_ads/keywords_for_keywords/live":
        return (t.keywords as string[]).flatMap((k) => [k, ...relatedKeywords(k, 10)]).map(volumeRow);
      case "/dataforseo_labs/google/bulk_keyword_difficulty/live": {
        const items = (t.keywords as string[]).map((k) => ({
          se_type: "google",
          keyword: k,
          keyword_difficulty: keywordMetrics(k).keyword_difficulty,
        }));
        return [{ ...loc, total_count: items.length, items_count: items.length, items }];
      }
      case "/dataforseo_labs/google/related_keywords/live": {
        const seed = t.keyword as string;
        const limit = typeof t.limit === "number" ? t.limit : 100;
        const items = relatedKeywords(seed, limit).map((k, i) => {
          const m = keywordMetrics(k);
          return {
            se_type: "google",
            keyword_data: {
              se_type: "google",
              keyword: k,
              ...loc,
              keyword_info: {
                search_volume: m.search_volume,
                cpc: m.cpc,
                competition: Math.round(m.competition_index) / 100,
                competition_level: m.competition,
                monthly_searches: m.monthly_searches,
              },
              keyword_properties: { keyword_difficulty: m.keyword_difficulty },
              search_intent_info: {
                main_intent: /best|vs|pros|choose/.test(k)
                  ? "commercial"
                  : /cost|cheap|near/.test(k)
                  ? "transactional"
                  : "informational",
              },
            },
            depth: i < 4 ? 1 : 2,
            related_keywords: relatedKeywords(k, 3),
          };
        });
        return [{ seed_keyword: seed, ...loc, total_count: items.length, items_count: items.length, items }];
      }
      default: {
        const keyword = t.keyword as string;
        const depth = typeof t.depth === "number" ? t.depth : 10;
        let items = this.serpOverride.get(keyword) ?? serpItems(keyword, depth);
        if (path.endsWith("/regular")) items = items.filter((i) => i.type === "organic");
        return [{
          keyword,
          type: "organic",
          se_domain: "google.com",
          ...loc,
          check_url: `https://www.google.com/search?q=${encodeURIComponent(keyword)}`,
          datetime: new Date().toISOString(),
          items_count: items.length,
          items,
        }];
      }
    }
  }
}
