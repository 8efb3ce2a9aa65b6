/**
 * Is an IP address on the public internet? Two stages: parse (IPv4 dotted quads; IPv6 in every
 * RFC 4291 text form: compressed `::`, an embedded dotted quad, a zone id `%eth0`, brackets) ->
 * classify (`blockedAddress`: why it is not public, or null).
 *
 * An IPv6 address that carries an IPv4 address is judged by that IPv4 address, so that no IPv6
 * spelling of 127.0.0.1 or 169.254.169.254 gets through (issue 31: `[::ffff:0:7f00:1]`,
 * `[2002:7f00:1::]`). The ranges, each allowed only when its embedded IPv4 address is public:
 *
 * | range                | name                                | IPv4 address in               |
 * | -------------------- | ----------------------------------- | ----------------------------- |
 * | `::/96`              | IPv4-compatible (RFC 4291, retired) | last 32 bits                  |
 * | `::ffff:0:0/96`      | IPv4-mapped (RFC 4291)              | last 32 bits                  |
 * | `::ffff:0:0:0/96`    | IPv4-translated (RFC 2765 SIIT)     | last 32 bits                  |
 * | `64:ff9b::/96`       | NAT64 well-known (RFC 6052)         | last 32 bits                  |
 * | `64:ff9b:1::/48`     | NAT64 local use (RFC 8215)          | any RFC 6052 layout (/48, /56, /64, /96): every candidate must be public |
 * | `2002::/16`          | 6to4 (RFC 3056)                     | bits 16-47                    |
 * | `2001::/32`          | Teredo (RFC 4380)                   | last 32 bits XOR 0xffffffff   |
 *
 * Other IPv6 ranges refused: unspecified, loopback, unique-local fc00::/7, link-local fe80::/10,
 * site-local fec0::/10 (deprecated, still routed internally by some networks), multicast ff00::/8,
 * discard-only 100::/64, documentation 2001:db8::/32.
 */

/** The four octets of a dotted-quad IPv4 address (decimal, no leading zeros beyond "0"), or null. */
export function parseIPv4(s: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const o = m.slice(1);
  // "010" is octal to some parsers and decimal to others: ambiguous, so not an address here.
  if (o.some((x) => x.length > 1 && x.startsWith("0"))) return null;
  const n = o.map(Number);
  return n.every((x) => x <= 255) ? n : null;
}

/**
 * The eight 16-bit groups of an IPv6 address, or null. Accepts brackets (`[::1]`), a zone id
 * (`fe80::1%eth0`, `%25` as in URLs), `::` once, and a dotted quad as the last 32 bits.
 */
export function parseIPv6(input: string): number[] | null {
  let s = input.trim().toLowerCase();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) {
    if (zone === s.length - 1) return null; // an empty zone id
    s = s.slice(0, zone);
  }
  if (s === "" || !/^[0-9a-f:.]+$/.test(s)) return null;
  // A dotted quad may only be the last 32 bits, after a colon.
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    const quad = parseIPv4(s.slice(lastColon + 1));
    if (lastColon < 0 || !quad) return null;
    tail = [(quad[0] << 8) | quad[1], (quad[2] << 8) | quad[3]];
    s = s.slice(0, lastColon + 1);
    // "::1.2.3.4" leaves "::"; "1:2:3:4:5:6:1.2.3.4" leaves "1:2:3:4:5:6:" (drop the lone colon).
    if (!s.endsWith("::")) s = s.slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string): number[] | null => {
    if (h === "") return [];
    const out: number[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !rest) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1) return given === 8 ? [...head, ...tail] : null;
  // "::" stands for at least one group of zeros.
  if (given > 7) return null;
  return [...head, ...Array(8 - given).fill(0), ...rest, ...tail];
}

function blockedV4([a, b, c]: number[]): string | null {
  if (a === 0) return "an unspecified address";
  if (a === 127) return "a loopback address";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "a private address";
  if (a === 169 && b === 254) return "a link-local (metadata) address";
  if (a === 100 && b >= 64 && b <= 127) return "a carrier-grade NAT address";
  if (a === 192 && b === 0 && c === 0) return "an IETF protocol address";
  if (a === 198 && (b === 18 || b === 19)) return "a benchmarking address";
  if (a >= 224) return "a multicast or reserved address";
  return null;
}

/** The IPv4 address in 32 bits starting at bit `bit` of the 128, skipping bits 64-71 (RFC 6052's u octet). */
function v4At(g: number[], bit: number): number[] {
  const bytes = g.flatMap((x) => [x >> 8, x & 255]);
  const out: number[] = [];
  for (let i = bit / 8; out.length < 4; i++) if (i !== 8) out.push(bytes[i]);
  return out;
}

const zeros = (g: number[], from: number, to: number) => g.slice(from, to).every((x) => x === 0);

/** The IPv4 addresses an IPv6 address carries, with the range's name; empty when it carries none. */
export function embeddedIPv4(g: number[]): { range: string; v4: number[] }[] {
  const last = v4At(g, 96);
  if (zeros(g, 0, 5) && g[5] === 0xffff) return [{ range: "IPv4-mapped", v4: last }];
  if (zeros(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return [{ range: "IPv4-translated", v4: last }];
  if (zeros(g, 0, 6)) return [{ range: "IPv4-compatible", v4: last }];
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(g, 2, 6)) return [{ range: "NAT64", v4: last }];
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    // The local-use prefix may embed at /48, /56, /64 or /96: each reading must be public.
    return [48, 56, 64, 96].map((bit) => ({ range: "NAT64 (local use)", v4: v4At(g, bit) }));
  }
  if (g[0] === 0x2002) return [{ range: "6to4", v4: v4At(g, 16) }];
  if (g[0] === 0x2001 && g[1] === 0) return [{ range: "Teredo", v4: last.map((x) => x ^ 255) }];
  return [];
}

function blockedV6(g: number[]): string | null {
  if (g.every((x) => x === 0)) return "an unspecified address";
  if (zeros(g, 0, 7) && g[7] === 1) return "a loopback address";
  for (const { range, v4 } of embeddedIPv4(g)) {
    const why = blockedV4(v4);
    if (why) return `${why} (${range} form of ${v4.join(".")})`;
  }
  if ((g[0] & 0xfe00) === 0xfc00) return "a unique-local (private) address";
  if ((g[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0] & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g[0] & 0xff00) === 0xff00) return "a multicast address";
  if (g[0] === 0x0100 && zeros(g, 1, 4)) return "a discard-only address";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "a documentation address";
  return null;
}

/** Why an address is not on the public internet, or null when it is. */
export function blockedAddress(ip: string): string | null {
  const v4 = parseIPv4(ip);
  if (v4) return blockedV4(v4);
  const v6 = parseIPv6(ip);
  if (v6) return blockedV6(v6);
  return "not an IP address";
}

/** An IP literal (IPv4 or IPv6, brackets allowed)? */
export function isIpLiteral(host: string): boolean {
  return parseIPv4(host) !== null || parseIPv6(host) !== null;
}
