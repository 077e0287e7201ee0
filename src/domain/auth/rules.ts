/**
 * The authorization rules of the spec's Authentication section, once: read-only keys cannot write; dashboard tokens
 * cannot call v1; an account-limited key handles only invoices all of whose accounts it has, and deposits to them.
 */
import { DomainError } from '../errors.ts';
import type { Principal } from './principal.ts';

/** Every operation needs a principal. */
export function requirePrincipal(p: Principal | null): Principal {
  if (!p) throw new DomainError('UNAUTHENTICATED');
  return p;
}

/** Dashboard operations (keys, bank accounts, business info, webhooks, OAuth apps) need a session. */
export function requireSession(p: Principal | null): Principal & { accountId: string } {
  const principal = requirePrincipal(p);
  if (principal.kind !== 'SESSION' || !principal.accountId) throw new DomainError('DASHBOARD_ONLY');
  return principal as Principal & { accountId: string };
}

/** Read-only keys cannot write (v1 403 INSUFFICIENT_PERMISSIONS, v2 290007). */
export function assertCanWrite(p: Principal): void {
  if (p.readOnly) throw new DomainError('READ_ONLY_KEY');
}

/** Dashboard login tokens cannot call v1 (403 INSUFFICIENT_PERMISSIONS). */
export function assertNotSession(p: Principal): void {
  if (p.kind === 'SESSION') throw new DomainError('SESSION_TOKEN_NOT_ALLOWED');
}

/** Whether the principal may see/handle an invoice with these receiving accounts (empty = all accounts). */
export function invoiceInScope(p: Principal, invoiceBankAccountIds: readonly string[]): boolean {
  if (p.bankAccountIds === null) return true;
  if (invoiceBankAccountIds.length === 0) return false;
  const allowed = new Set(p.bankAccountIds);
  return invoiceBankAccountIds.every((id) => allowed.has(id));
}

/** Create/update: a limited key may name only allowed accounts and may not leave the list empty. */
export function assertReceivingAccountsInScope(p: Principal, bankAccountIds: readonly string[]): void {
  if (!invoiceInScope(p, bankAccountIds)) throw new DomainError('OUT_OF_SCOPE');
}

/** Whether the principal may see deposits to this bank account. */
export function bankAccountInScope(p: Principal, bankAccountId: string): boolean {
  return p.bankAccountIds === null || p.bankAccountIds.includes(bankAccountId);
}

/** bankAccountInScope as a query filter on deposits (Transaction.bankAccountId); empty for an unlimited principal. */
export function depositScopeWhere(p: Principal | null): { bankAccountId?: { in: string[] } } {
  return p?.bankAccountIds ? { bankAccountId: { in: [...p.bankAccountIds] } } : {};
}

/** Who did it, as v2 `canceledBy` and history lines show it. */
export function actorOf(p: Principal): { type: string; accountId: string | null; apiKeyId: string | null; name: string } {
  return {
    type: p.kind === 'SESSION' ? 'DASHBOARD' : p.kind === 'API_KEY' ? (p.readOnly ? 'READ_ONLY_API_KEY' : 'SECRET_API_KEY') : 'OAUTH_APP',
    accountId: p.accountId,
    apiKeyId: p.apiKeyId,
    name: p.name,
  };
}
