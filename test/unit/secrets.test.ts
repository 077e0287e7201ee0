import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, hashPassword, newSecret, newWebhookSecret, safeEqual, SECRET_PREFIXES, sha256Hex, verifyPassword } from '../../src/domain/secrets.ts';
import { ID_PREFIXES } from '../../src/domain/ids.ts';
import { randomBytes } from 'node:crypto';

describe('secrets', () => {
  it('API key secrets start with sk_live_ and are high-entropy', () => {
    const s = newSecret('apiKey');
    expect(s).toMatch(/^sk_live_[a-z0-9]{40}$/);
    expect(newSecret('apiKey')).not.toBe(s);
  });

  // Spec, Identifier format: "every id is a prefix followed by 24 characters of lowercase letters and digits", and its
  // table lists oat_ (OAuth access token) and oas_ (OAuth client secret). They were 40 characters.
  it.each([
    ['oauthAccessToken', /^oat_[a-z0-9]{24}$/],
    ['oauthClientSecret', /^oas_[a-z0-9]{24}$/],
    ['oauthCode', /^oac_[a-z0-9]{24}$/],
    ['session', /^sess_[a-z0-9]{40}$/],
    ['notificationToken', /^bnt_[a-z0-9]{40}$/],
  ] as const)('%s secrets have the form %s', (kind, form) => {
    expect(newSecret(kind)).toMatch(form);
  });

  it('every secret whose prefix is an identifier prefix has the identifier form (so no new one can drift)', () => {
    const idPrefixes = new Set<string>(Object.values(ID_PREFIXES));
    const kinds = (Object.keys(SECRET_PREFIXES) as (keyof typeof SECRET_PREFIXES)[]).filter((k) => idPrefixes.has(SECRET_PREFIXES[k]));
    expect(kinds.sort()).toEqual(['oauthAccessToken', 'oauthClientSecret', 'oauthCode']);
    for (const k of kinds) expect(newSecret(k)).toMatch(new RegExp(`^${SECRET_PREFIXES[k]}[a-z0-9]{24}$`));
  });

  it('webhook secrets are whsec_ + base64 of 24 bytes', () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(24);
  });

  it('passwords are hashed with scrypt and verified; a wrong password fails', async () => {
    const h = await hashPassword('correct horse');
    expect(h).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(h).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', h)).toBe(true);
    expect(await verifyPassword('correct horsf', h)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });

  it('the same password hashes differently each time (salted)', async () => {
    expect(await hashPassword('pw123456')).not.toBe(await hashPassword('pw123456'));
  });

  it('sealed secrets round-trip and fail with another key or altered text', () => {
    const key = randomBytes(32);
    const sealed = encryptSecret('whsec_abc', key);
    expect(sealed).not.toContain('whsec_abc');
    expect(decryptSecret(sealed, key)).toBe('whsec_abc');
    expect(() => decryptSecret(sealed, randomBytes(32))).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => decryptSecret(parts.join('.'), key)).toThrow();
  });

  it('a secret sealed with a context opens only with that context', () => {
    const key = randomBytes(32);
    const sealed = encryptSecret('sk_live_abc', key, 'idempotency\nwsp_a\napk_a\nkey-1');
    expect(sealed).not.toContain('sk_live_abc');
    expect(decryptSecret(sealed, key, 'idempotency\nwsp_a\napk_a\nkey-1')).toBe('sk_live_abc');
    expect(() => decryptSecret(sealed, key, 'idempotency\nwsp_a\napk_b\nkey-1')).toThrow();
    expect(() => decryptSecret(sealed, key)).toThrow();
    expect(() => decryptSecret(encryptSecret('sk_live_abc', key), key, 'idempotency\nwsp_a\napk_a\nkey-1')).toThrow();
  });

  it('safeEqual compares exactly', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });

  it('sha256Hex is the hex digest', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
