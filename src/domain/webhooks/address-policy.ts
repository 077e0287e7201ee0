/**
 * Which addresses a webhook may be delivered to (SSRF protection): never loopback, private, link-local, carrier-grade
 * NAT, multicast, unspecified, or cloud metadata addresses — unless WEBHOOK_ALLOW_PRIVATE is set.
 */
import { isIP } from 'node:net';

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

const V4_BLOCKS: [string, number][] = [
  ['0.0.0.0', 8], // this network / unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function inV4Block(ip: string): boolean {
  const n = ipv4ToInt(ip);
  return V4_BLOCKS.some(([base, bits]) => {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (n & mask) === (ipv4ToInt(base) & mask);
  });
}

/** Whether an IP address is one webhooks must not reach (loopback, private, link-local, metadata, ...). */
export function isForbiddenAddress(ip: string): boolean {
  const kind = isIP(ip);
  if (kind === 4) return inV4Block(ip);
  if (kind === 6) {
    const a = ip.toLowerCase();
    if (a === '::' || a === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
    if (mapped) return inV4Block(mapped[1]);
    if (/^f[cd]/.test(a)) return true; // unique local fc00::/7
    if (/^fe[89ab]/.test(a)) return true; // link-local fe80::/10
    if (/^ff/.test(a)) return true; // multicast
    if (a.startsWith('fd00:ec2::254')) return true; // AWS metadata over IPv6
    return false;
  }
  return true;
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
