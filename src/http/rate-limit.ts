/**
 * Rate limiting: a token bucket per credential (a hash of the bearer) or per client address, shared by HTTP and
 * WebSocket; in memory, or in Redis (fail open) when REDIS_URL is set. Buckets and headers: src/http/README.md.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { bearerToken } from '../domain/auth/principal.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one request is allowed again (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

export interface RateLimitOptions {
  perSecond: number;
  burst: number;
}

/** The bucket key for a request: the credential's hash when it carries one, the client address otherwise. */
export function rateLimitKey(authorization: string | null, clientAddress: string | undefined): string {
  const token = bearerToken(authorization);
  if (token) return 'cred:' + createHash('sha256').update(token).digest('base64url').slice(0, 32);
  return 'addr:' + (clientAddress ?? 'local');
}

/**
 * Takes one request's token from its bucket and, for a bearer that does not authenticate, from its client address's
 * too, so made-up bearers get no budget of their own. Returns the refusing bucket's decision, else the last one's.
 */
export async function takeRateLimit(
  limiter: RateLimiter,
  authorization: string | null,
  clientAddress: string | undefined,
  authenticates: () => Promise<boolean>,
): Promise<RateDecision> {
  const own = await limiter.take(rateLimitKey(authorization, clientAddress));
  if (!own.allowed || !bearerToken(authorization) || (await authenticates())) return own;
  return limiter.take(rateLimitKey(null, clientAddress));
}

function decide(o: RateLimitOptions, tokens: number, allowed: boolean): RateDecision {
  return {
    allowed,
    limit: o.burst,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.max(0, Math.ceil((o.burst - tokens) / o.perSecond)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / o.perSecond)),
  };
}

/** One process's buckets. */
export function memoryRateLimiter(o: RateLimitOptions, now: () => number = () => performance.now()): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const fullAfterMs = (o.burst / o.perSecond) * 1000;
  let lastSweep = now();
  return {
    async take(key) {
      const t = now();
      if (t - lastSweep > Math.max(fullAfterMs, 10_000)) {
        // Buckets untouched for a full refill are full again: forget them.
        for (const [k, b] of buckets) if (t - b.at >= fullAfterMs) buckets.delete(k);
        lastSweep = t;
      }
      const b = buckets.get(key) ?? { tokens: o.burst, at: t };
      b.tokens = Math.min(o.burst, b.tokens + ((t - b.at) / 1000) * o.perSecond);
      b.at = t;
      const allowed = b.tokens >= 1;
      if (allowed) b.tokens -= 1;
      buckets.set(key, b);
      return decide(o, b.tokens, allowed);
    },
    async close() {},
  };
}

const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + tonumber(tm[2]) / 1000
local b = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or at == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return { allowed, tostring(tokens) }
`;

/** Buckets shared by every instance through Redis. */
export function redisRateLimiter(o: RateLimitOptions, redisUrl: string, log: Logger, prefix = 'ratelimit:'): RateLimiter {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on('error', () => {});
  redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  let warnedAt = 0;
  return {
    async take(key) {
      try {
        const [allowed, tokens] = (await (redis as unknown as { takeToken(k: string, r: number, b: number): Promise<[number, string]> }).takeToken(
          prefix + key,
          o.perSecond,
          o.burst,
        )) as [number, string];
        return decide(o, Number(tokens), allowed === 1);
      } catch (e) {
        if (Date.now() - warnedAt > 60_000) {
          warnedAt = Date.now();
          log.warn({ err: e }, 'rate limiter: Redis unreachable, letting requests through');
        }
        return { allowed: true, limit: o.burst, remaining: o.burst, resetSeconds: 0, retryAfterSeconds: 0 };
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}

export function rateLimitHeaders(d: RateDecision, o: RateLimitOptions): Record<string, string> {
  const h: Record<string, string> = {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetSeconds),
    'ratelimit-policy': `${o.burst};w=${Math.ceil(o.burst / o.perSecond)}`,
  };
  if (!d.allowed) h['retry-after'] = String(d.retryAfterSeconds);
  return h;
}
