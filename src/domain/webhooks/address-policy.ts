/**
 * Which addresses a webhook may be delivered to (SSRF protection), judged by their bits, never their spelling (an IPv6
 * form carrying an IPv4 address is that address), at registration and again when connecting (src/events/http-post.ts).
 */
import { isIP } from 'node:net';

/** An IP address as bits: IPv4 as one unsigned 32-bit number, IPv6 as eight 16-bit words (and its zone id, if any). */
export type IpAddress = { family: 4; value: number } | { family: 6; words: number[]; zone: string | null };

/** IPv4 ranges webhooks may not reach. 255.255.255.255 is in 240.0.0.0/4. */
const V4_FORBIDDEN: [base: number, bits: number, what: string][] = [
  [0x00000000, 8, 'this network'],
  [0x0a000000, 8, 'private'],
  [0x64400000, 10, 'carrier-grade NAT'],
  [0x7f000000, 8, 'loopback'],
  [0xa9fe0000, 16, 'link-local (cloud metadata)'],
  [0xac100000, 12, 'private'],
  [0xc0000000, 24, 'IETF protocol assignments'],
  [0xc0a80000, 16, 'private'],
  [0xc6120000, 15, 'benchmarking'],
  [0xe0000000, 4, 'multicast'],
  [0xf0000000, 4, 'reserved or broadcast'],
];

/**
 * IPv6 ranges webhooks may not reach (checked after the IPv4-carrying forms). Anything outside global unicast
 * 2000::/3 is refused as well; these are named for a clearer message or because they lie inside 2000::/3.
 */
const V6_FORBIDDEN: [prefix: string, bits: number, what: string][] = [
  ['64:ff9b:1::', 48, 'NAT64 local use'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const DOTTED_QUAD = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * IPv4 in every spelling the WHATWG URL parser and inet_aton accept: 1 to 4 parts, each decimal, octal (leading 0) or
 * hex (0x), the last filling the remaining bytes (127.1, 2130706433, 0177.0.0.1, 0x7f.1), one trailing dot allowed.
 */
function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const p of parts) {
    if (/^0[xX][0-9a-fA-F]*$/.test(p)) numbers.push(p.length === 2 ? 0 : parseInt(p.slice(2), 16));
    else if (/^0[0-7]+$/.test(p)) numbers.push(parseInt(p.slice(1), 8));
    else if (/^(?:0|[1-9]\d*)$/.test(p)) numbers.push(Number(p));
    else return null;
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  return numbers.reduce((acc, n, i) => acc + n * 256 ** (3 - i), last);
}

/** IPv6 in any spelling (compressed or not, any case, leading zeros, a trailing dotted IPv4, a zone id, brackets). */
function parseIpv6(text: string): { words: number[]; zone: string | null } | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  let zone: string | null = null;
  const percent = s.indexOf('%');
  if (percent >= 0) {
    zone = s.slice(percent + 1);
    s = s.slice(0, percent);
    if (!zone) return null;
  }
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return null;
  const lastPart = s.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    if (!DOTTED_QUAD.test(lastPart)) return null;
    const v4 = parseIpv4(lastPart)!;
    s = `${s.slice(0, lastColon + 1)}${Math.floor(v4 / 0x10000).toString(16)}:${(v4 % 0x10000).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string): number[] | null => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? { words: head, zone } : null;
  if (head.length + tail.length > 7) return null; // "::" stands for at least one group
  return { words: [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail], zone };
}

/** Parses any spelling of an IPv4 or IPv6 address to its bits; null when the text is not an IP address. */
export function parseIp(text: string): IpAddress | null {
  if (text.includes(':')) {
    const v6 = parseIpv6(text);
    return v6 && { family: 6, ...v6 };
  }
  const v4 = parseIpv4(text);
  return v4 === null ? null : { family: 4, value: v4 };
}

function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

/** The canonical text of an address: dotted decimal, or RFC 5952 IPv6 (lower case, longest zero run as "::"). */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return formatIpv4(ip.value);
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && ip.words[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  const text = best.at < 0 ? hex(ip.words) : `${hex(ip.words.slice(0, best.at))}::${hex(ip.words.slice(best.at + best.len))}`;
  return ip.zone === null ? text : `${text}%${ip.zone}`;
}

/** The IPv4 address an IPv6 address carries, and the form that carries it (packets to it reach that IPv4 address). */
function carriedIpv4(w: number[]): { value: number; form: string } | null {
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const at = (i: number) => w[i] * 0x10000 + w[i + 1];
  if (zeros(0, 5) && w[5] === 0xffff) return { value: at(6), form: 'IPv4-mapped' }; // ::ffff:0:0/96
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return { value: at(6), form: 'IPv4-translated' }; // ::ffff:0:0:0/96
  if (zeros(0, 6)) return { value: at(6), form: 'IPv4-compatible' }; // ::/96
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return { value: at(6), form: 'NAT64' }; // 64:ff9b::/96
  if (w[0] === 0x2002) return { value: at(1), form: '6to4' }; // 2002::/16
  return null;
}

const V6_FORBIDDEN_PARSED = V6_FORBIDDEN.map(([prefix, bits, what]) => ({ words: parseIpv6(prefix)!.words, bits, what }));

function inV6Prefix(w: number[], prefix: number[], bits: number): boolean {
  return w.every((word, i) => {
    const n = Math.min(Math.max(bits - 16 * i, 0), 16);
    const mask = (0xffff << (16 - n)) & 0xffff;
    return (word & mask) === (prefix[i] & mask);
  });
}

function v4Range(value: number): string | null {
  for (const [base, bits, what] of V4_FORBIDDEN) if (Math.floor(value / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits))) return what;
  return null;
}

/** A verdict on one address: its canonical text and, when refused, which range it is in (as the IPv4 it carries). */
export type AddressVerdict =
  | { allowed: true; address: string }
  | { allowed: false; address: string; range: string; carried: { address: string; form: string } | null };

/** Judges an address in any spelling against the forbidden ranges; text that is not an IP address is refused. */
export function judgeAddress(text: string): AddressVerdict {
  const ip = parseIp(text);
  if (!ip) return { allowed: false, address: text, range: 'not an IP address', carried: null };
  const address = formatIp(ip);
  const refuse = (range: string, carried: { address: string; form: string } | null = null): AddressVerdict => ({ allowed: false, address, range, carried });
  if (ip.family === 4) {
    const range = v4Range(ip.value);
    return range ? refuse(range) : { allowed: true, address };
  }
  const w = ip.words;
  if (ip.zone !== null) return refuse('scoped to an interface (zone id)');
  if (w.every((x) => x === 0)) return refuse('unspecified');
  if (w.slice(0, 7).every((x) => x === 0) && w[7] === 1) return refuse('loopback');
  const carried = carriedIpv4(w);
  if (carried) {
    const range = v4Range(carried.value);
    return range ? refuse(range, { address: formatIpv4(carried.value), form: carried.form }) : { allowed: true, address };
  }
  const named = V6_FORBIDDEN_PARSED.find((r) => inV6Prefix(w, r.words, r.bits));
  if (named) return refuse(named.what);
  if (w[0] >>> 13 !== 0b001) return refuse('reserved (outside global unicast 2000::/3)');
  return { allowed: true, address };
}

/** Whether an address (any spelling) is one webhooks must not reach (loopback, private, link-local, metadata, ...). */
export function isForbiddenAddress(text: string): boolean {
  return !judgeAddress(text).allowed;
}

/** Whether a URL host (brackets allowed) is an IP literal, as Node's net (which then connects without a lookup) or parseIp sees it. */
export function isIpLiteral(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(h) !== 0 || parseIp(h) !== null;
}

/** The refusal in words: "127.0.0.1 (loopback), carried by the IPv4-mapped address ::ffff:7f00:1". */
export function describeRefusal(v: Extract<AddressVerdict, { allowed: false }>): string {
  return v.carried ? `${v.carried.address} (${v.range}), carried by the ${v.carried.form} address ${v.address}` : `${v.address} (${v.range})`;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Shape rules of a webhook URL: absolute http(s), at most 2048 characters, no credentials. */
export function checkWebhookUrlShape(raw: string): UrlCheck {
  if (typeof raw !== 'string' || raw.length > 2048) return { ok: false, reason: 'url must be at most 2048 characters.' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute http(s) URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'url must use http or https.' };
  if (url.username || url.password) return { ok: false, reason: 'url must not carry credentials.' };
  if (!url.hostname) return { ok: false, reason: 'url must name a host.' };
  return { ok: true, url };
}
