/**
 * DataForSEO v3 over its documented HTTP API (providers.md §6c; there is no official TS SDK):
 * HTTP Basic `login:password`, a JSON array of one task per live call, and the tasks envelope
 * back. Failures can come as HTTP 200: the top-level and the task's status_code are checked
 * (20000 ok; 40000+ an error), as well as the HTTP status.
 *
 *   DATAFORSEO_LOGIN      required (with the password); without them research answers 503
 *   DATAFORSEO_PASSWORD   required, a server secret (never logged or returned)
 *   DATAFORSEO_BASE_URL   optional, default https://api.dataforseo.com/v3 (the local platform
 *                         points it at the sandbox stand-in)
 *
 * Endpoints used by the research stage: Google Ads search volume, DataForSEO Labs related
 * keywords and bulk keyword difficulty, and the Google organic SERP (advanced).
 */
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";

const DEFAULT_BASE_URL = "https://api.dataforseo.com/v3";
const TIMEOUT_MS = 60_000;

export interface DataForSeoConfig {
  baseUrl: string;
  login: string;
  password: string;
  fetch?: typeof fetch;
}

export function dataForSeoFromEnv(): DataForSeoClient {
  const login = env("DATAFORSEO_LOGIN");
  const password = env("DATAFORSEO_PASSWORD");
  if (!login || !password) {
    throw DomainError.unavailable(
      "Keyword data is not configured: set DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD",
      "keyword_data_not_configured",
    );
  }
  return new DataForSeoClient({
    baseUrl: env("DATAFORSEO_BASE_URL") ?? DEFAULT_BASE_URL,
    login,
    password,
  });
}

interface Envelope<R> {
  status_code: number;
  status_message: string;
  cost?: number;
  tasks?: { status_code: number; status_message: string; cost?: number; result: R[] | null }[];
}

export interface SearchVolumeItem {
  keyword: string;
  search_volume: number | null;
  cpc: number | null;
  competition: string | null;
  competition_index: number | null;
  monthly_searches: { year: number; month: number; search_volume: number }[] | null;
}

export interface RelatedKeywordItem {
  keyword_data: {
    keyword: string;
    keyword_info?: { search_volume?: number | null; cpc?: number | null; competition?: number | null } | null;
    keyword_properties?: { keyword_difficulty?: number | null } | null;
    search_intent_info?: { main_intent?: string | null } | null;
  };
}

export interface SerpItem {
  type: string;
  rank_group?: number;
  rank_absolute?: number;
  domain?: string;
  title?: string;
  url?: string;
  description?: string | null;
  items?: { title?: string }[] | null;
}

export interface Location {
  location_code: number;
  language_code: string;
}

/** What one research run cost at DataForSEO (USD, as the envelopes report). */
export class DataForSeoClient {
  readonly #cfg: DataForSeoConfig;
  /** Sum of the `cost` fields of every envelope this client received. */
  spent = 0;

  constructor(cfg: DataForSeoConfig) {
    this.#cfg = cfg;
  }

  async #post<R>(path: string, request: Record<string, unknown>): Promise<R[]> {
    const doFetch = this.#cfg.fetch ?? fetch;
    const url = `${this.#cfg.baseUrl.replace(/\/+$/, "")}${path}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${this.#cfg.login}:${this.#cfg.password}`)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify([request]),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new DomainError(
        "upstream",
        "keyword_data_unreachable",
        `Keyword data could not be reached (${path}): ${(err as Error).message}`,
      );
    }
    const text = await res.text();
    let body: Envelope<R> | null = null;
    try {
      body = JSON.parse(text) as Envelope<R>;
    } catch (_) {
      body = null; // reported below with the HTTP status
    }
    if (!res.ok || !body || typeof body.status_code !== "number") {
      const why = body?.status_message ?? `HTTP ${res.status}`;
      throw new DomainError("upstream", "keyword_data_error", `Keyword data failed (${path}): ${why}`, {
        http_status: res.status,
        status_code: body?.status_code ?? null,
      });
    }
    if (typeof body.cost === "number") this.spent += body.cost;
    const task = body.tasks?.[0];
    const code = task?.status_code ?? body.status_code;
    if (body.status_code >= 40000 || !task || code >= 40000) {
      throw new DomainError(
        "upstream",
        "keyword_data_error",
        `Keyword data failed (${path}): ${task?.status_message ?? body.status_message}`,
        { status_code: code },
      );
    }
    return task.result ?? [];
  }

  /** Google Ads search volume, CPC and competition of up to 1000 keywords. */
  searchVolume(keywords: string[], loc: Location): Promise<SearchVolumeItem[]> {
    return this.#post<SearchVolumeItem>("/keywords_data/google_ads/search_volume/live", {
      keywords,
      ...loc,
    });
  }

  /** Related keywords (DataForSEO Labs), with their volume and difficulty. */
  async relatedKeywords(keyword: string, loc: Location, limit = 20): Promise<RelatedKeywordItem[]> {
    const result = await this.#post<{ items: RelatedKeywordItem[] | null }>(
      "/dataforseo_labs/google/related_keywords/live",
      { keyword, ...loc, limit },
    );
    return result[0]?.items ?? [];
  }

  /** Keyword difficulty 0-100 per keyword (results are in result[0].items). */
  async keywordDifficulty(keywords: string[], loc: Location): Promise<Map<string, number | null>> {
    const result = await this.#post<
      { items: { keyword: string; keyword_difficulty: number | null }[] | null }
    >(
      "/dataforseo_labs/google/bulk_keyword_difficulty/live",
      { keywords, ...loc },
    );
    return new Map((result[0]?.items ?? []).map((i) => [i.keyword, i.keyword_difficulty]));
  }

  /** The Google organic SERP (advanced: organic results, people also ask ...), top `depth`. */
  async serp(keyword: string, loc: Location, depth = 10): Promise<SerpItem[]> {
    const result = await this.#post<{ items: SerpItem[] | null }>("/serp/google/organic/live/advanced", {
      keyword,
      ...loc,
      device: "desktop",
      depth,
    });
    return result[0]?.items ?? [];
  }
}
