/**
 * POSTs a webhook with a timeout over keep-alive connections. Unless private addresses are allowed, the address is
 * checked when the connection is made (the same lookup that connects), so a DNS answer cannot switch to a private
 * address between the check and the request.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { describeRefusal, isForbiddenAddress, isIpLiteral, judgeAddress } from '../domain/webhooks/address-policy.ts';

export interface PostResult {
  status: number | null;
  durationMs: number;
  error: string | null;
}

type LookupFn = NonNullable<http.AgentOptions['lookup']>;

/** Every address a name resolves to is judged (any spelling: an IPv4-mapped answer is judged as its IPv4 address). */
function guardedLookup(allowPrivate: boolean, resolve: typeof dnsLookup): LookupFn {
  return ((hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!allowPrivate && (list.length === 0 || list.some((a) => isForbiddenAddress(a.address)))) {
        return callback(Object.assign(new Error(`refused: ${hostname} resolves to a private or reserved address`), { code: 'EFORBIDDENADDRESS' }), []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  }) as LookupFn;
}

export class WebhookHttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  /** `lookup` replaces node:dns's lookup (tests: a name that resolves to a given address). */
  constructor(private readonly opts: { allowPrivate: boolean; timeoutMs: number; maxSockets?: number; lookup?: typeof dnsLookup }) {
    const lookup = guardedLookup(opts.allowPrivate, opts.lookup ?? dnsLookup);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64, lookup });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64, lookup });
  }

  post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const started = performance.now();
    const done = (status: number | null, error: string | null): PostResult => ({ status, error, durationMs: Math.round(performance.now() - started) });
    return new Promise((resolve) => {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return resolve(done(null, 'invalid url'));
      }
      const literalRefusal = this.opts.allowPrivate ? null : refusalOfLiteral(u.hostname);
      if (literalRefusal) return resolve(done(null, literalRefusal));
      const mod = u.protocol === 'https:' ? https : http;
      let settled = false;
      const finish = (r: PostResult) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(r);
        }
      };
      const req = mod.request(
        u,
        {
          method: 'POST',
          agent: u.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
          headers: { 'content-type': 'application/json', 'user-agent': 'banktransfer-pay-webhooks/1', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > 64 * 1024) res.destroy();
          });
          res.on('end', () => finish(done(res.statusCode ?? null, null)));
          res.on('error', () => finish(done(res.statusCode ?? null, null)));
          res.on('close', () => finish(done(res.statusCode ?? null, null)));
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new Error(`timed out after ${this.opts.timeoutMs} ms`));
      }, this.opts.timeoutMs);
      req.on('error', (e) => finish(done(null, e.message.slice(0, 500))));
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/**
 * A host written as an IP literal is judged before connecting (Node connects to literals without a lookup): the
 * refusal, or null for a name (judged by guardedLookup) or an allowed address.
 */
function refusalOfLiteral(hostname: string): string | null {
  const h = hostname.replace(/^\[|\]$/g, '');
  if (!isIpLiteral(h)) return null;
  const verdict = judgeAddress(h);
  return verdict.allowed ? null : `refused: private or reserved address ${describeRefusal(verdict)}`;
}
