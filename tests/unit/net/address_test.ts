/**
 * net/address.ts: IPv6 text forms parse to the right groups, and every IPv6 range that embeds an
 * IPv4 address is judged by that address (issue 31: `[::ffff:0:7f00:1]`, `[2002:7f00:1::]` reached
 * loopback). Table-driven; checkUrl is exercised with the URL forms a client would send.
 */
import assert from "node:assert/strict";
import { blockedAddress, parseIPv6 } from "@shared/net/address.ts";
import { checkUrl, UnsafeUrlError } from "@shared/net/safe_fetch.ts";

Deno.test("parseIPv6: compressed forms, embedded dotted quads, zone ids, brackets", () => {
  const cases: [string, number[] | null][] = [
    ["::", [0, 0, 0, 0, 0, 0, 0, 0]],
    ["::1", [0, 0, 0, 0, 0, 0, 0, 1]],
    ["1::", [1, 0, 0, 0, 0, 0, 0, 0]],
    ["1:2:3:4:5:6:7:8", [1, 2, 3, 4, 5, 6, 7, 8]],
    ["1:2:3:4:5:6:7::", [1, 2, 3, 4, 5, 6, 7, 0]],
    ["::2:3:4:5:6:7:8", [0, 2, 3, 4, 5, 6, 7, 8]],
    ["2001:DB8::0:1", [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]],
    ["0000:0000:0000:0000:0000:0000:0000:0001", [0, 0, 0, 0, 0, 0, 0, 1]],
    ["::ffff:127.0.0.1", [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ["::ffff:0:127.0.0.1", [0, 0, 0, 0, 0xffff, 0, 0x7f00, 1]],
    ["1:2:3:4:5:6:1.2.3.4", [1, 2, 3, 4, 5, 6, 0x102, 0x304]],
    ["::1.2.3.4", [0, 0, 0, 0, 0, 0, 0x102, 0x304]],
    ["fe80::1%eth0", [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ["fe80::1%25en0", [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ["[::1]", [0, 0, 0, 0, 0, 0, 0, 1]],
    ["[2002:7f00:1::]", [0x2002, 0x7f00, 1, 0, 0, 0, 0, 0]],
    // Not IPv6.
    ["", null],
    ["1.2.3.4", null],
    [":::", null],
    ["1::2::3", null],
    [":1::", null],
    ["1:2:3:4:5:6:7:8:9", null],
    ["1:2:3:4:5:6:7", null],
    ["1:2:3:4:5:6:7:8::", null],
    ["::12345", null],
    ["::g", null],
    ["::f1.2.3.4", null], // a dotted quad must follow a colon
    ["1.2.3.4::", null],
    ["::1.2.3", null],
    ["::1.2.3.256", null],
    ["::01.2.3.4", null],
    ["1:2:3:4:5:6:7:1.2.3.4", null], // nine groups' worth
    ["fe80::1%", null],
    ["example.com", null],
  ];
  for (const [text, groups] of cases) assert.deepEqual(parseIPv6(text), groups, text);
});

Deno.test("blockedAddress: IPv6 ranges that embed IPv4 are judged by the embedded address", () => {
  // [address, refused?] — the embedded IPv4 address decides.
  const cases: [string, boolean][] = [
    // IPv4-mapped ::ffff:0:0/96
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["::ffff:169.254.169.254", true],
    ["::ffff:a9fe:a9fe", true],
    ["::ffff:10.0.0.1", true],
    ["::ffff:8.8.8.8", false],
    ["0:0:0:0:0:ffff:808:808", false],
    // IPv4-translated ::ffff:0:0:0/96 (issue 31)
    ["::ffff:0:7f00:1", true],
    ["::ffff:0:127.0.0.1", true],
    ["::ffff:0:a9fe:a9fe", true],
    ["::ffff:0:192.168.0.1", true],
    ["::ffff:0:8.8.8.8", false],
    // IPv4-compatible ::/96
    ["::127.0.0.1", true],
    ["::7f00:1", true],
    ["::10.1.2.3", true],
    ["::0.0.0.2", true],
    ["::8.8.8.8", false],
    // NAT64 64:ff9b::/96
    ["64:ff9b::127.0.0.1", true],
    ["64:ff9b::a9fe:a9fe", true],
    ["64:ff9b::c0a8:1", true],
    ["64:ff9b::8.8.8.8", false],
    // NAT64 local use 64:ff9b:1::/48: every RFC 6052 layout must be public
    ["64:ff9b:1::7f00:1", true], // /96
    ["64:ff9b:1:7f00:0:100::", true], // /48: 127.0 | u | 0.1
    ["64:ff9b:1:a:7f:0:1::", true], // /64: 127.0.0.1 after the u octet
    ["64:ff9b:1::808:808", true], // /96 reads 8.8.8.8, but /48 reads 0.0.0.0
    ["64:ff9b:1:808:8:800:808:808", false], // 8.8.8.8 in every layout
    // 6to4 2002::/16 (issue 31)
    ["2002:7f00:1::", true],
    ["2002:7f00:0001::1", true],
    ["2002:a9fe:a9fe::1", true],
    ["2002:c0a8:101::", true],
    ["2002:0a00:0001:1::1", true],
    ["2002:808:808::1", false],
    // Teredo 2001::/32: client address is the last 32 bits XOR 0xffffffff
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", true], // client 127.0.0.1
    ["2001:0:4136:e378:8000:63bf:5601:5601", true], // client 169.254.169.254
    ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", false], // client 8.8.8.8
    ["2001:0:4136:e378:8000:63bf:f5ff:fffe", true], // client 10.0.0.1
    // Not embedding: other special ranges and public addresses
    ["::", true],
    ["::1", true],
    ["[::1]", true],
    ["fe80::1%eth0", true],
    ["fc00::1", true],
    ["fd00:ec2::254", true],
    ["fec0::1", true],
    ["ff02::1", true],
    ["100::1", true],
    ["2001:db8::1", true],
    ["2606:4700::1111", false],
    ["2a00:1450:4001:81b::200e", false],
    // Not an address at all
    ["::f1.2.3.4", true],
    ["localhost", true],
  ];
  for (const [ip, refused] of cases) {
    const why = blockedAddress(ip);
    assert.equal(why !== null, refused, `${ip}: ${why}`);
  }
  // The local-use NAT64 /96 reading of 8.8.8.8 is public, but its /48 reading (0.0.0.0) is not.
  assert.match(blockedAddress("64:ff9b:1::808:808")!, /unspecified/);
  // The reason names the range and the embedded address.
  assert.equal(blockedAddress("::ffff:0:7f00:1"), "a loopback address (IPv4-translated form of 127.0.0.1)");
  assert.equal(blockedAddress("2002:7f00:1::"), "a loopback address (6to4 form of 127.0.0.1)");
  assert.equal(
    blockedAddress("2001:0:4136:e378:8000:63bf:80ff:fffe"),
    "a loopback address (Teredo form of 127.0.0.1)",
  );
});

Deno.test("checkUrl refuses IPv6 URL forms of loopback and metadata addresses", async () => {
  const noDns = () => Promise.reject(new Error("literals are not resolved"));
  for (
    const url of [
      "http://[::ffff:0:7f00:1]/",
      "http://[::ffff:0:127.0.0.1]:8080/",
      "http://[2002:7f00:1::]/",
      "http://[2002:a9fe:a9fe::]/latest/meta-data/",
      "http://[64:ff9b::169.254.169.254]/",
      "http://[::127.0.0.1]/",
      "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
      "http://[::ffff:127.0.0.1]/",
    ]
  ) {
    await assert.rejects(checkUrl(url, noDns), UnsafeUrlError, url);
  }
  assert.equal((await checkUrl("http://[2002:808:808::1]/", noDns)).hostname, "[2002:808:808::1]");
  // A name that resolves to an embedding form is refused the same way.
  const resolve = () => Promise.resolve(["2002:7f00:1::"]);
  await assert.rejects(checkUrl("http://sixtofour.example/", resolve), /6to4 form of 127\.0\.0\.1/);
});
