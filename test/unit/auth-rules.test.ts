import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/auth/principal.ts';
import { bearerToken } from '../../src/domain/auth/principal.ts';
import { actorOf, assertCanWrite, assertNotSession, assertReceivingAccountsInScope, bankAccountInScope, invoiceInScope, requirePrincipal, requireSession } from '../../src/domain/auth/rules.ts';
import { DomainError } from '../../src/domain/errors.ts';

const base: Principal = {
  kind: 'API_KEY',
  workspaceId: 'wsp_1',
  workspaceOwnerId: 'acc_1',
  accountId: null,
  apiKeyId: 'apk_1',
  oauthAppId: null,
  credentialId: 'apk_1',
  name: 'key',
  readOnly: false,
  bankAccountIds: null,
};
const limited: Principal = { ...base, bankAccountIds: ['bac_a', 'bac_b'] };
const session: Principal = { ...base, kind: 'SESSION', accountId: 'acc_1', apiKeyId: null };

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof DomainError ? e.code : 'NOT_A_DOMAIN_ERROR';
  }
}

describe('authorization rules (spec: Authentication)', () => {
  it('no principal → UNAUTHENTICATED', () => expect(codeOf(() => requirePrincipal(null))).toBe('UNAUTHENTICATED'));
  it('read-only keys cannot write → READ_ONLY_KEY', () => expect(codeOf(() => assertCanWrite({ ...base, readOnly: true }))).toBe('READ_ONLY_KEY'));
  it('writable keys can write', () => expect(codeOf(() => assertCanWrite(base))).toBeNull());
  it('dashboard session tokens cannot call v1 → SESSION_TOKEN_NOT_ALLOWED', () => expect(codeOf(() => assertNotSession(session))).toBe('SESSION_TOKEN_NOT_ALLOWED'));
  it('dashboard operations need a session → DASHBOARD_ONLY', () => {
    expect(codeOf(() => requireSession(base))).toBe('DASHBOARD_ONLY');
    expect(codeOf(() => requireSession(session))).toBeNull();
  });

  // The account-limited key table.
  it.each([
    ['all-accounts key, all-accounts invoice', base, [], true],
    ['all-accounts key, any invoice', base, ['bac_z'], true],
    ['limited key, invoice within its accounts', limited, ['bac_a'], true],
    ['limited key, invoice on both of its accounts', limited, ['bac_a', 'bac_b'], true],
    ['limited key, invoice partly outside', limited, ['bac_a', 'bac_z'], false],
    ['limited key, all-accounts invoice cannot be handled', limited, [], false],
  ] as const)('%s → in scope: %s', (_name, p, ids, expected) => {
    expect(invoiceInScope(p, ids)).toBe(expected);
    expect(codeOf(() => assertReceivingAccountsInScope(p, ids))).toBe(expected ? null : 'OUT_OF_SCOPE');
  });

  it('deposits: a limited key sees only its accounts', () => {
    expect(bankAccountInScope(limited, 'bac_a')).toBe(true);
    expect(bankAccountInScope(limited, 'bac_z')).toBe(false);
    expect(bankAccountInScope(base, 'bac_z')).toBe(true);
  });

  it('actorOf names the kind of credential', () => {
    expect(actorOf(base)).toEqual({ type: 'SECRET_API_KEY', accountId: null, apiKeyId: 'apk_1', name: 'key' });
    expect(actorOf(session).type).toBe('DASHBOARD');
  });

  it.each([
    ['Bearer sk_live_x', 'sk_live_x'],
    ['bearer   sk_live_x  ', 'sk_live_x'],
    ['Basic abc', null],
    ['Bearer', null],
    ['', null],
    [null, null],
  ])('bearerToken(%j) = %j', (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });
});
