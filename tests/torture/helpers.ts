/**
 * Hostile input for the torture suite: deep nesting, huge strings, NULs, CR/LF, lone surrogates,
 * invalid UTF-8, wrong types, huge numbers, odd content types and path traversal, drawn from a
 * seeded generator so a failing run replays from its seed.
 */
import { seededRandom } from "../../fixtures/random.ts";

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is sent as the bytes of a
 * UTF-8-encoded surrogate: invalid UTF-8, which the server has to cope with too.
 */
export function enc(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    out += ch.length === 1 && c >= 0xd800 && c <= 0xdfff
      ? "%ED%" + (0x80 | ((c >> 6) & 0x3f)).toString(16).toUpperCase() + "%" +
        (0x80 | (c & 0x3f)).toString(16).toUpperCase()
      : encodeURIComponent(ch);
  }
  return out;
}

export class Hostile {
  readonly random: () => number;
  constructor(readonly seed: number) {
    this.random = seededRandom(seed);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.random() * xs.length)];
  }
  chance(p: number): boolean {
    return this.random() < p;
  }

  /** JSON text nested `depth` levels (arrays, objects or both). */
  deepJson(depth = this.pick([200, 3000, 12000])): string {
    return this.pick([
      () => "[".repeat(depth) + "]".repeat(depth),
      () => '{"a":'.repeat(depth) + "1" + "}".repeat(depth),
      () => '[{"a":'.repeat(depth / 2) + "1" + "}]".repeat(depth / 2),
    ])();
  }

  /** A string value: text that is hostile once it reaches a database, a header or a path. */
  string(): string {
    return this.pick([
      () => "x".repeat(1024 * 1024),
      () => "a\u0000b",
      () => "\u0000",
      () => "line\r\nX-Injected: 1",
      () => "\ud800",
      () => "\udfff tail",
      () => "../../../etc/passwd",
      () => "..%2F..%2Fetc%2Fpasswd",
      () => "%2e%2e/%2e%2e/secret",
      () => "[".repeat(5000),
      () => "{".repeat(300) + "}".repeat(300),
      () => "(".repeat(3000) + ")".repeat(3000),
      () => "'; drop table public.workspaces; --",
      () => "😀".repeat(1000),
      () => "\u202e\ufeff\u200b",
      () => "NaN",
      () => "-1",
      () => "",
    ])();
  }

  /** Any JSON value, hostile in type or size; as JSON text. */
  valueText(): string {
    return this.pick([
      () => this.deepJson(),
      () => JSON.stringify(this.string()),
      () => "1e309",
      () => "-1e309",
      () => "99999999999999999999999999999999999999",
      () => "-0",
      () => "1.7976931348623157e308",
      () => "true",
      () => "null",
      () => "[]",
      () => "{}",
      () => `"\\ud800"`,
      () => `"\\u0000"`,
      () => `[${Array(2000).fill("1").join(",")}]`,
      () => `{${Array.from({ length: 2000 }, (_, i) => `"k${i}":${i}`).join(",")}}`,
    ])();
  }

  /** A request body: JSON objects with hostile fields, broken JSON, or bytes that are not UTF-8. */
  body(fields: string[]): { body: BodyInit; contentType: string } {
    const kind = this.random();
    if (kind < 0.6) {
      const entries = fields.map((f) =>
        `${JSON.stringify(f)}:${this.chance(0.5) ? this.valueText() : '"ok"'}`
      );
      return { body: `{${entries.join(",")}}`, contentType: "application/json" };
    }
    if (kind < 0.7) return { body: this.deepJson(), contentType: "application/json" };
    if (kind < 0.8) {
      return {
        body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]),
        contentType: "application/json",
      };
    }
    return {
      body: this.pick(["{", "", "null", "[1,2", '{"a":1}{"b":2}', "<xml/>", "a=1&b=%zz"]),
      contentType: this.pick([
        "application/json",
        "text/xml",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
        "text/plain; charset=utf-16",
        "application/json; charset=\u00ff",
      ]),
    };
  }

  /** A query string with hostile values for the given keys. */
  query(keys: string[]): string {
    const parts = keys.map((k) => {
      const v = this.chance(0.3) ? this.deepJson(this.pick([200, 3000])) : this.string().slice(0, 4000);
      return `${enc(k)}=${enc(v)}`;
    });
    if (this.chance(0.3)) parts.push("%zz=%", "a[b][c]=1");
    return parts.join("&");
  }

  /** A path segment for an id or a name. */
  segment(): string {
    return enc(this.pick([
      "00000000-0000-0000-0000-000000000000",
      "not-a-uuid",
      "..",
      "%2e%2e",
      "a\u0000b",
      "99999999999999999999",
      "-1",
      "[".repeat(500),
      "😀",
      "x".repeat(5000),
    ]));
  }
}
