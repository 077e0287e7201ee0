/**
 * API keys (contract: createApiKey, disableApiKey, deleteApiKey). The secret `sk_live_...` is shown once and stored
 * as its SHA-256; a key may be read-only and may be limited to chosen bank accounts (null/absent = all).
 */
import type { Principal } from '../auth/principal.ts';
import { requireSession } from '../auth/rules.ts';
import { assertStorableInstant } from '../dates.ts';
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { isId, newId } from '../ids.ts';
import { newSecret, sha256Hex } from '../secrets.ts';
import { check } from '../validation.ts';

export interface CreateApiKeyInput {
  name: string;
  readOnly?: boolean | null;
  bankAccountIds?: string[] | null;
  expiresAt?: Date | null;
}

/** createApiKey: a new key; its secret is returned once. */
export async function createApiKey(deps: Deps, principal: Principal | null, input: CreateApiKeyInput) {
  const p = requireSession(principal);
  const name = input.name.trim();
  check(name.length >= 1 && name.length <= 100, ['name'], 'name must be 1-100 characters.');
  const now = deps.clock.now();
  if (input.expiresAt) {
    assertStorableInstant(input.expiresAt, ['expiresAt']);
    check(input.expiresAt.getTime() > now.getTime(), ['expiresAt'], 'expiresAt must be in the future.');
  }
  const limited = input.bankAccountIds !== null && input.bankAccountIds !== undefined;
  const ids = limited ? [...new Set(input.bankAccountIds!)] : [];
  if (limited) {
    check(ids.length > 0, ['bankAccountIds'], 'bankAccountIds must name at least one account (null = all accounts).');
    for (const id of ids) check(isId('bankAccount', id), ['bankAccountIds'], `${id} is not a bank account id.`);
    const own = await deps.prisma.bankAccount.findMany({ where: { id: { in: ids }, workspaceId: p.workspaceId, deletedAt: null }, select: { id: true } });
    if (own.length !== ids.length) {
      const known = new Set(own.map((a) => a.id));
      throw new DomainError('BANK_ACCOUNT_NOT_FOUND', { path: ['bankAccountIds'], data: { bankAccountId: ids.find((i) => !known.has(i)) } });
    }
  }
  const secret = newSecret('apiKey');
  const apiKey = await deps.prisma.apiKey.create({
    data: {
      id: newId('apiKey'),
      workspaceId: p.workspaceId,
      name,
      secretHash: sha256Hex(secret),
      secretHint: secret.slice(-4),
      readOnly: input.readOnly ?? false,
      allBankAccounts: !limited,
      bankAccountIds: ids,
      createdById: p.accountId,
      createdAt: now,
      expiresAt: input.expiresAt ?? null,
    },
  });
  return { apiKey, secret };
}

async function ownKey(deps: Deps, p: Principal, id: string) {
  const key = isId('apiKey', id) ? await deps.prisma.apiKey.findUnique({ where: { id } }) : null;
  if (!key || key.workspaceId !== p.workspaceId || key.deletedAt) throw new DomainError('NOT_FOUND', { message: 'API key not found.' });
  return key;
}

/** disableApiKey: the key stops working at once (401 NOT_AUTHORIZED / 290006). */
export async function disableApiKey(deps: Deps, principal: Principal | null, id: string) {
  const p = requireSession(principal);
  const key = await ownKey(deps, p, id);
  if (key.disabledAt) return key;
  return deps.prisma.apiKey.update({ where: { id }, data: { disabledAt: deps.clock.now() } });
}

/** deleteApiKey: the key stops working at once and disappears from lists. */
export async function deleteApiKey(deps: Deps, principal: Principal | null, id: string) {
  const p = requireSession(principal);
  await ownKey(deps, p, id);
  return deps.prisma.apiKey.update({ where: { id }, data: { deletedAt: deps.clock.now() } });
}
