/**
 * Secrets: API keys, tokens and signing secrets are random, shown once and stored hashed (SHA-256 — they are
 * high-entropy) or, when the service needs them back (webhook signing), encrypted with AES-256-GCM.
 * Passwords use scrypt (a slow KDF). Comparisons are constant-time.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { ID_PREFIXES, randomAlnum } from './ids.ts';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

export const SECRET_PREFIXES = {
  apiKey: 'sk_live_',
  session: 'sess_',
  oauthAccessToken: 'oat_',
  oauthClientSecret: 'oas_',
  oauthCode: 'oac_',
  webhookSecret: 'whsec_',
  notificationToken: 'bnt_',
} as const;

/** Prefixes the spec lists as identifiers (`oat_`, `oas_`, and our `oac_`): their secrets take the identifier format. */
const IDENTIFIER_PREFIXES: ReadonlySet<string> = new Set(Object.values(ID_PREFIXES));

/**
 * A new secret: its prefix and random [a-z0-9]. A secret whose prefix is an identifier prefix (spec: Identifier
 * format, "every id, oas_ and oat_ included") is the prefix and 24 characters (124 bits); the others (sk_live_, sess_,
 * bnt_) carry 40 (206 bits).
 */
export function newSecret(kind: keyof typeof SECRET_PREFIXES): string {
  const prefix = SECRET_PREFIXES[kind];
  return prefix + randomAlnum(IDENTIFIER_PREFIXES.has(prefix) ? 24 : 40);
}

/** A Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIXES.webhookSecret + randomBytes(24).toString('base64');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time string comparison (false for different lengths, without leaking where they differ). */
export function safeEqual(a: string, b: string): boolean {
  const ab = createHash('sha256').update(a).digest();
  const bb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ab, bb) && a.length === b.length;
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/** Hashes a password with scrypt: `scrypt$N$r$p$salt$hash` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Verifies a password against a stored scrypt hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A precomputed hash to verify against when the account does not exist, so timing does not reveal it. */
export const DUMMY_PASSWORD_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/**
 * Encrypts with AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>` (base64url). `context` (associated data, not stored) binds the
 * ciphertext to where it belongs: decrypting it with another context fails.
 */
export function encryptSecret(plain: string, key: Buffer, context?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

/** Decrypts what encryptSecret produced; throws if the key or the context is wrong or the text was altered. */
export function decryptSecret(sealed: string, key: Buffer, context?: string): string {
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('Unreadable sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
