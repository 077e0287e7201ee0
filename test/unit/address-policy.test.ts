/**
 * Webhook SSRF rule (src/domain/webhooks/address-policy.ts): an address is judged by the address it is, whatever its
 * spelling. Every IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64 and 6to4 address is judged as the IPv4
 * address it carries; every IPv4 spelling the URL parser accepts (integer, octal, hex, short) as the address it
 * means. The ranges below are written out here from the RFCs, independently of the module's own table, and
 * fast-check renders random addresses of each range in every spelling.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIp, judgeAddress, parseIp } from '../../src/domain/webhooks/address-policy.ts';

/** IPv4 ranges webhooks must never reach: [first address, prefix length, what]. */
const V4_FORBIDDEN: [string, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

/** IPv6 ranges webhooks must never reach (besides the IPv4-carrying forms): [prefix, prefix length, what]. */
const V6_FORBIDDEN: [string, number, string][] = [
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['2001::', 32, 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'], // Teredo
  ['2001:2::', 48, 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'], // benchmarking
  ['64:ff9b:1::', 48, 'NAT64 local use'],
  ['100::', 64, 'discard-only'],
  ['5f00::', 16, 'reserved (outside global unicast 2000::/3)'], // SRv6 SIDs
  ['4000::', 2, 'reserved (outside global unicast 2000::/3)'],
  ['8000::', 2, 'reserved (outside global unicast 2000::/3)'],
];

const v4ToInt = (ip: string) => ip.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
const intToV4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const hi = (n: number) => (n >>> 16).toString(16);
const lo = (n: number) => (n & 0xffff).toString(16);
const inV4Range = (n: number, [base, bits]: [string, number, string]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(v4ToInt(base) / 2 ** (32 - bits));

/** A random address inside an IPv4 range, as a 32-bit number. */
const v4In = ([base, bits]: [string, number, string]) => fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((k) => v4ToInt(base) + k);
/** A random public IPv4 address (in none of the forbidden ranges). */
const v4Public = fc.integer({ min: 0, max: 2 ** 32 - 1 }).filter((n) => !V4_FORBIDDEN.some((r) => inV4Range(n, r)));

/** Every way to write an IPv4 address that the WHATWG URL parser (and inet_aton) reads as that address. */
const v4Spellings = (n: number): string[] => {
  const [a, b, c, d] = intToV4(n).split('.').map(Number);
  return [
    intToV4(n),
    String(n), // 2130706433
    `0x${n.toString(16)}`,
    [a, b, c, d].map((x) => `0${x.toString(8)}`).join('.'), // 0177.00.00.01
    [a, b, c, d].map((x) => `0x${x.toString(16).toUpperCase()}`).join('.'),
    `${a}.${(n & 0xffffff) >>> 0}`, // 127.1
    `${a}.${b}.${n & 0xffff}`,
    `0x${a.toString(16)}.${n & 0xffffff}`,
    `${intToV4(n)}.`, // trailing dot
  ];
};

/** Every IPv6 form that carries the IPv4 address, each in several spellings (compressed, expanded, upper case, zeros). */
const carryingSpellings = (n: number, rest: number): string[] => [
  `::ffff:${intToV4(n)}`, // IPv4-mapped
  `::ffff:${hi(n)}:${lo(n)}`,
  `0:0:0:0:0:ffff:${hi(n)}:${lo(n)}`,
  `0000:0000:0000:0000:0000:FFFF:${hi(n).toUpperCase().padStart(4, '0')}:${lo(n).toUpperCase().padStart(4, '0')}`,
  `::FFFF:${intToV4(n)}`,
  `0::0:ffff:${intToV4(n)}`,
  `::ffff:0:${intToV4(n)}`, // IPv4-translated
  `::${intToV4(n)}`, // IPv4-compatible
  `::${hi(n)}:${lo(n)}`,
  `0:0:0:0:0:0:${intToV4(n)}`,
  `64:ff9b::${intToV4(n)}`, // NAT64 well-known prefix
  `64:FF9B:0:0:0:0:${hi(n)}:${lo(n)}`,
  `0064:ff9b:0000::${hi(n)}:${lo(n).padStart(4, '0')}`,
  `2002:${hi(n)}:${lo(n)}::${(rest & 0xffff).toString(16)}`, // 6to4
  `2002:${hi(n)}:${lo(n)}:${(rest >>> 16).toString(16)}:0:0:0:1`,
];

function expandV6(prefix: string): number[] {
  const ip = parseIp(prefix);
  if (!ip || ip.family !== 6) throw new Error(prefix);
  return ip.words;
}

/** A random address inside an IPv6 prefix, as eight words. */
const v6In = ([prefix, bits]: [string, number, string]) =>
  fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }).map((random) =>
    expandV6(prefix).map((word, i) => {
      const keep = Math.min(Math.max(bits - 16 * i, 0), 16);
      const mask = (0xffff << (16 - keep)) & 0xffff;
      return (word & mask) | (random[i] & ~mask & 0xffff);
    }),
  );

/** Spellings of eight words: canonical, fully expanded, upper case with leading zeros, first zero run compressed. */
function v6Spellings(words: number[]): string[] {
  const canonical = formatIp({ family: 6, words, zone: null });
  const expanded = words.map((w) => w.toString(16)).join(':');
  const padded = words.map((w) => w.toString(16).toUpperCase().padStart(4, '0')).join(':');
  const spellings = [canonical, canonical.toUpperCase(), expanded, padded, `[${canonical}]`];
  const zero = words.indexOf(0);
  if (zero >= 0) spellings.push(`${words.slice(0, zero).map((w) => w.toString(16)).join(':')}::${words.slice(zero + 1).map((w) => w.toString(16)).join(':')}`);
  return spellings;
}

/** The host the app sees after the WHATWG URL parser (what createWebhook and the delivery judge). */
function urlHost(spelling: string): string {
  const literal = spelling.includes(':') && !spelling.startsWith('[') ? `[${spelling}]` : spelling;
  return new URL(`http://${literal}:8080/hook`).hostname.replace(/^\[|\]$/g, '');
}

describe('webhook address policy', () => {
  it.each([
    ['http://[::ffff:127.0.0.1]:8080/', { address: '::ffff:7f00:1', range: 'loopback', carried: { address: '127.0.0.1', form: 'IPv4-mapped' } }],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', { address: '::ffff:7f00:1', range: 'loopback', carried: { address: '127.0.0.1', form: 'IPv4-mapped' } }],
    ['http://[::ffff:a9fe:a9fe]/', { address: '::ffff:a9fe:a9fe', range: 'link-local (cloud metadata)', carried: { address: '169.254.169.254', form: 'IPv4-mapped' } }],
    ['http://[::ffff:10.0.0.1]/', { address: '::ffff:a00:1', range: 'private', carried: { address: '10.0.0.1', form: 'IPv4-mapped' } }],
    ['http://[::7f00:1]/', { address: '::7f00:1', range: 'loopback', carried: { address: '127.0.0.1', form: 'IPv4-compatible' } }],
    ['http://[64:ff9b::7f00:1]/', { address: '64:ff9b::7f00:1', range: 'loopback', carried: { address: '127.0.0.1', form: 'NAT64' } }],
    ['http://[::ffff:0:a9fe:a9fe]/', { address: '::ffff:0:a9fe:a9fe', range: 'link-local (cloud metadata)', carried: { address: '169.254.169.254', form: 'IPv4-translated' } }],
    ['http://[2002:a9fe:a9fe::1]/', { address: '2002:a9fe:a9fe::1', range: 'link-local (cloud metadata)', carried: { address: '169.254.169.254', form: '6to4' } }],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', { address: '2001:0:4136:e378:8000:63bf:3fff:fdd2', range: 'IETF protocol assignments (Teredo, benchmarking, ORCHID)', carried: null }],
    ['http://[64:ff9b:1::a00:1]/', { address: '64:ff9b:1::a00:1', range: 'NAT64 local use', carried: null }],
    ['http://[fd00:ec2::254]/', { address: 'fd00:ec2::254', range: 'unique local', carried: null }],
    ['http://[FEC0::1]/', { address: 'fec0::1', range: 'site-local', carried: null }],
    ['http://[::]/', { address: '::', range: 'unspecified', carried: null }],
    ['http://[0:0:0:0:0:0:0:1]/', { address: '::1', range: 'loopback', carried: null }],
    ['http://2130706433/', { address: '127.0.0.1', range: 'loopback', carried: null }],
    ['http://0177.0.0.1/', { address: '127.0.0.1', range: 'loopback', carried: null }],
    ['http://0x7f.1/', { address: '127.0.0.1', range: 'loopback', carried: null }],
    ['http://127.1/', { address: '127.0.0.1', range: 'loopback', carried: null }],
    ['http://0/', { address: '0.0.0.0', range: 'this network', carried: null }],
    ['http://0xA9FEA9FE/', { address: '169.254.169.254', range: 'link-local (cloud metadata)', carried: null }],
    ['http://255.255.255.255/', { address: '255.255.255.255', range: 'reserved or broadcast', carried: null }],
  ])('%s is refused as the address it is', (url, verdict) => {
    expect(judgeAddress(new URL(url).hostname.replace(/^\[|\]$/g, ''))).toEqual({ allowed: false, ...verdict });
  });

  it.each([
    ['8.8.8.8', '8.8.8.8'],
    ['::ffff:8.8.8.8', '::ffff:808:808'],
    ['64:ff9b::8.8.8.8', '64:ff9b::808:808'],
    ['2002:808:808::1', '2002:808:808::1'],
    ['2606:4700:4700::1111', '2606:4700:4700::1111'],
    ['2606:4700:4700:0000:0000:0000:0000:1111', '2606:4700:4700::1111'],
  ])('a public address %s is allowed', (spelling, address) => {
    expect(judgeAddress(spelling)).toEqual({ allowed: true, address });
  });

  it.each([
    ['fe80::1%eth0', { allowed: false, address: 'fe80::1%eth0', range: 'scoped to an interface (zone id)', carried: null }],
    ['2606:4700::1%1', { allowed: false, address: '2606:4700::1%1', range: 'scoped to an interface (zone id)', carried: null }],
    ['example.com', { allowed: false, address: 'example.com', range: 'not an IP address', carried: null }],
    ['1:2:3:4::5:6:7:8', { allowed: false, address: '1:2:3:4::5:6:7:8', range: 'not an IP address', carried: null }],
    ['::ffff:01.2.3.4', { allowed: false, address: '::ffff:01.2.3.4', range: 'not an IP address', carried: null }],
    ['1.2.3.4.5', { allowed: false, address: '1.2.3.4.5', range: 'not an IP address', carried: null }],
    ['', { allowed: false, address: '', range: 'not an IP address', carried: null }],
  ])('%s is refused (zone ids, text that is no address)', (text, verdict) => {
    expect(judgeAddress(text)).toEqual(verdict);
  });

  describe('property: every spelling of every forbidden range is refused', () => {
    it.each(V4_FORBIDDEN)('IPv4 %s/%d (%s) in every IPv4 spelling and carried by every IPv6 form', (...range) => {
      fc.assert(
        fc.property(v4In(range), fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n, rest) => {
          for (const spelling of v4Spellings(n)) {
            expect(urlHost(spelling)).toBe(intToV4(n)); // the URL parser reads it as this address
            expect(judgeAddress(spelling)).toMatchObject({ allowed: false, address: intToV4(n) });
            expect(judgeAddress(urlHost(spelling))).toEqual({ allowed: false, address: intToV4(n), range: range[2], carried: null });
          }
          for (const spelling of carryingSpellings(n, rest)) {
            const verdict = judgeAddress(spelling);
            // 0.0.0.0 and 0.0.0.1 as IPv4-compatible are the IPv6 unspecified and loopback addresses.
            if (verdict.allowed || verdict.carried === null) expect(verdict).toMatchObject({ allowed: false, address: expect.stringMatching(/^::1?$/) });
            else expect(verdict).toMatchObject({ allowed: false, range: range[2], carried: { address: intToV4(n) } });
            expect(judgeAddress(urlHost(spelling))).toEqual(verdict);
          }
        }),
        { numRuns: 300 },
      );
    });

    it.each(V6_FORBIDDEN)('IPv6 %s/%d (%s) in every spelling', (...range) => {
      fc.assert(
        fc.property(v6In(range), (words) => {
          const canonical = formatIp({ family: 6, words, zone: null });
          for (const spelling of v6Spellings(words)) {
            expect(parseIp(spelling)).toEqual({ family: 6, words, zone: null });
            expect(urlHost(spelling)).toBe(canonical); // our canonical text is the URL parser's
            expect(judgeAddress(spelling)).toEqual({ allowed: false, address: canonical, range: range[2], carried: null });
          }
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('property: public addresses are allowed in every spelling', () => {
    it('a public IPv4 address, written any way or carried by any IPv6 form', () => {
      fc.assert(
        fc.property(v4Public, fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n, rest) => {
          for (const spelling of v4Spellings(n)) expect(judgeAddress(urlHost(spelling))).toEqual({ allowed: true, address: intToV4(n) });
          for (const spelling of carryingSpellings(n, rest)) {
            const verdict = judgeAddress(spelling);
            expect(verdict.allowed).toBe(true);
            expect(judgeAddress(urlHost(spelling))).toEqual(verdict);
          }
        }),
        { numRuns: 1000 },
      );
    });

    it('a global unicast IPv6 address (2000::/3 outside its special ranges)', () => {
      const specials: [string, number, string][] = [...V6_FORBIDDEN, ['2001::', 23, ''], ['2002::', 16, '6to4, judged by its IPv4']];
      const inside = (w: number[]) => specials.some(([p, bits]) => expandV6(p).every((word, i) => {
        const keep = Math.min(Math.max(bits - 16 * i, 0), 16);
        const mask = (0xffff << (16 - keep)) & 0xffff;
        return (word & mask) === (w[i] & mask);
      }));
      fc.assert(
        fc.property(v6In(['2000::', 3, '']).filter((w) => !inside(w)), (words) => {
          const canonical = formatIp({ family: 6, words, zone: null });
          for (const spelling of v6Spellings(words)) expect(judgeAddress(spelling)).toEqual({ allowed: true, address: canonical });
        }),
        { numRuns: 1000 },
      );
    });
  });
});
