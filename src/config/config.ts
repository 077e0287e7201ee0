/**
 * The service's configuration: one zod schema over environment variables, parsed once at start-up.
 * A bad value stops start-up with a message that names the variable.
 */
import { DEFAULT_DATA_DIR } from './data-dir.ts';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const intFrom = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const urlWith = (protocols: string[]) =>
  z
    .string()
    .refine((v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    }, `must be a URL starting with ${protocols.join(' or ')}//`);

export const configSchema = z.object({
  PORT: intFrom(0, 65535).default(4000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  DATABASE_URL: urlWith(['postgres:', 'postgresql:']).optional(),
  /** Pool size for PostgreSQL. */
  /** Unset: 10 with DATABASE_URL, 6 on the embedded database (src/db/database.ts serviceDatabaseOptions). */
  DATABASE_POOL_SIZE: intFrom(1, 200).optional(),
  REDIS_URL: urlWith(['redis:', 'rediss:']).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** 32-byte key (64 hex chars or base64) that encrypts webhook signing secrets at rest. */
  ENCRYPTION_KEY: z
    .string()
    .refine((v) => decodeKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64')
    .optional(),
  /** A Popbill-style cash-receipt agency's API (src/events/agency/http-agency.ts); unset = the simulated agency. */
  AGENCY_URL: urlWith(['http:', 'https:']).optional(),
  AGENCY_LINK_ID: z.string().min(1).optional(),
  AGENCY_SECRET_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Delay before the simulated agency reports the tax-authority result. */
  AGENCY_SIM_DELAY_MS: intFrom(0, 86_400_000).default(2000),
  /**
   * Cafe24 shop integration (README, Shop integrations): the app's client id and secret from Cafe24's developer
   * center and the redirect URI registered with the app (this service's /shops/cafe24/callback). Unset = Cafe24 is
   * not offered. CAFE24_API_URL: the API host, `{mallid}` replaced by the mall id (tests point it at a fake).
   */
  CAFE24_CLIENT_ID: z.string().min(1).optional(),
  CAFE24_CLIENT_SECRET: z.string().min(1).optional(),
  CAFE24_REDIRECT_URI: urlWith(['http:', 'https:']).optional(),
  CAFE24_API_URL: z.string().includes('{mallid}', { message: 'must contain {mallid}' }).default('https://{mallid}.cafe24api.com'),
  /** One Cafe24 API call's time limit, the answer included (at most 20 s: a token refresh holds its lease for 30 s). */
  CAFE24_TIMEOUT_MS: intFrom(100, 20_000).default(10_000),
  /** How often connected shops' new bank-transfer orders are imported. */
  SHOP_SYNC_INTERVAL_MS: intFrom(1000, 86_400_000).default(300_000),
  /**
   * Account history through Popbill's EasyFinBank (README, Account history): the service's Linkhub LinkID and
   * SecretKey (base64, as Popbill issues it). Unset = Popbill is not offered. POPBILL_TEST: Popbill's test bed.
   * POPBILL_API_URL / POPBILL_AUTH_URL: the hosts (tests point them at a fake).
   */
  POPBILL_LINK_ID: z.string().min(1).optional(),
  POPBILL_SECRET_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  POPBILL_TEST: bool.default(false),
  POPBILL_API_URL: urlWith(['http:', 'https:']).optional(),
  POPBILL_AUTH_URL: urlWith(['http:', 'https:']).optional(),
  /** One Popbill call's time limit, the answer included. */
  POPBILL_TIMEOUT_MS: intFrom(100, 60_000).default(15_000),
  /** How often a connected account's history is polled (banks' quick-inquiry services allow every 5-10 minutes). */
  HISTORY_POLL_INTERVAL_MS: intFrom(1000, 86_400_000).default(300_000),
  /** Comma-separated delays (ms) of the 6 webhook retries. */
  WEBHOOK_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+){5}\s*$/, 'must be 6 comma-separated whole numbers of milliseconds')
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_TIMEOUT_MS: intFrom(100, 120_000).default(10_000),
  SMTP_URL: urlWith(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.string().min(3).default('no-reply@banktransfer.local'),
  /** Dashboard session lifetime. */
  SESSION_TTL_HOURS: intFrom(1, 24 * 365).default(24 * 14),
  /** Largest request body accepted, in bytes. */
  MAX_BODY_BYTES: intFrom(1024, 50 * 1024 * 1024).default(1024 * 1024),
  /** Requests per second each credential (or, without one, each client address) may make on average; 0 = no limit. */
  RATE_LIMIT_PER_SECOND: intFrom(0, 1_000_000).default(100),
  /** Requests a credential may make at once before the per-second rate applies (the bucket size). */
  RATE_LIMIT_BURST: intFrom(1, 10_000_000).default(1000),
  /** Slow-loris protection: a client must send its request headers within this time … */
  HTTP_HEADERS_TIMEOUT_MS: intFrom(1000, 600_000).default(10_000),
  /** … and its whole request (headers and body) within this time; otherwise 408 and the connection is closed. */
  HTTP_REQUEST_TIMEOUT_MS: intFrom(1000, 3_600_000).default(30_000),
  /** Run background workers (outbox dispatch, webhooks, agency jobs) in this process. */
  WORKERS: bool.default(true),
  /**
   * How long a claimed job is its claimer's: a job whose process died runs again after this. A shop confirmation
   * renews its lease while it runs (src/events/shops/shop-jobs.ts); the other jobs finish well within it.
   */
  JOB_LEASE_MS: intFrom(1000, 3_600_000).default(60_000),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(
      'Invalid configuration:\n' + issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

/** Parses the environment once; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    );
  }
  const c = parsed.data;
  if (c.AGENCY_URL) {
    const missing = (['AGENCY_LINK_ID', 'AGENCY_SECRET_KEY'] as const).filter((k) => !c[k]);
    if (missing.length) throw new ConfigError(missing.map((variable) => ({ variable, message: 'is required when AGENCY_URL is set' })));
  }
  if (c.POPBILL_LINK_ID || c.POPBILL_SECRET_KEY) {
    const missing = (['POPBILL_LINK_ID', 'POPBILL_SECRET_KEY'] as const).filter((k) => !c[k]);
    if (missing.length) throw new ConfigError(missing.map((variable) => ({ variable, message: 'is required when any POPBILL_ credential is set' })));
  }
  if (c.CAFE24_CLIENT_ID || c.CAFE24_CLIENT_SECRET || c.CAFE24_REDIRECT_URI) {
    const missing = (['CAFE24_CLIENT_ID', 'CAFE24_CLIENT_SECRET', 'CAFE24_REDIRECT_URI'] as const).filter((k) => !c[k]);
    if (missing.length) throw new ConfigError(missing.map((variable) => ({ variable, message: 'is required when any CAFE24_ variable is set' })));
  }
  return c;
}

/** Decodes a 32-byte key written as hex or base64; null when it is neither. */
export function decodeKey(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b = Buffer.from(value, 'base64');
  return b.length === 32 ? b : null;
}
