/**
 * Receiving bank accounts (contract: registerBankAccount) and their 1-won verification: registering returns a
 * verification code and a per-account notification token; the account is verified when a 1-won deposit whose
 * depositor name equals the code arrives on it.
 */
import type { Principal } from '../auth/principal.ts';
import { requireSession } from '../auth/rules.ts';
import type { Deps, RawQuery, Tx } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../ids.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { newSecret, sha256Hex } from '../secrets.ts';
import { check, digitsOnly } from '../validation.ts';
import { BANK_PROVIDERS, isBankProviderId } from './bank-providers.ts';
import { randomInt } from 'node:crypto';

export interface RegisterBankAccountInput {
  provider: string;
  type: 'PERSONAL' | 'CORPORATE';
  number: string;
  alias: string;
}

/** Validates a bank account: known provider, 10-16 digits (hyphens removed), alias 1-50 characters. */
export function validateBankAccount(input: RegisterBankAccountInput): RegisterBankAccountInput {
  check(isBankProviderId(input.provider), ['provider'], `provider must be one of ${BANK_PROVIDERS.map((p) => p.id).join(', ')}.`);
  check(input.type === 'PERSONAL' || input.type === 'CORPORATE', ['type'], 'type must be PERSONAL or CORPORATE.');
  const number = digitsOnly(input.number);
  check(number !== null && number.length >= 10 && number.length <= 16, ['number'], 'number must be 10-16 digits (hyphens allowed).');
  return { provider: input.provider, type: input.type, number: number!, alias: validAlias(input.alias) };
}

/** An account's dashboard alias, trimmed: 1-50 characters (at registration and when renamed). */
export function validAlias(raw: string): string {
  const alias = raw.trim();
  check(alias.length >= 1 && alias.length <= 50, ['alias'], 'alias must be 1-50 characters.');
  return alias;
}

/** A 6-digit code the owner sends as the depositor name of a 1-won transfer. */
export function newVerificationCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** registerBankAccount: stores the account unverified; returns it with its verification code and notification token. */
export async function registerBankAccount(deps: Deps, principal: Principal | null, raw: RegisterBankAccountInput) {
  const p = requireSession(principal);
  const input = validateBankAccount(raw);
  const notificationToken = newSecret('notificationToken');
  const verificationCode = newVerificationCode();
  try {
    const bankAccount = await deps.prisma.bankAccount.create({
      data: {
        id: newId('bankAccount'),
        workspaceId: p.workspaceId,
        ownerId: p.workspaceOwnerId,
        provider: input.provider,
        type: input.type,
        number: input.number,
        alias: input.alias,
        verificationCode,
        notificationTokenHash: sha256Hex(notificationToken),
        createdAt: deps.clock.now(),
      },
    });
    return { bankAccount, verificationCode, notificationToken };
  } catch (e) {
    if (isUniqueViolation(e)) throw new DomainError('BANK_ACCOUNT_ALREADY_REGISTERED', { path: ['number'] });
    throw e;
  }
}

export interface UpdateBankAccountInput {
  bankAccountId: string;
  alias?: string | null;
  active?: boolean | null;
}

/**
 * updateBankAccount (dashboard): renames an account (the alias rule of registration) or takes it out of use and back
 * (`active`, the spec's "in use"). An account out of use still takes its bank's notifications (the money arrived and is
 * recorded), but its deposits are not matched, no new invoice or shop install may name it (BANK_ACCOUNT_INACTIVE), and
 * payment-guide e-mails leave it out; invoices that already name it stay as they are. Deposits keep the snapshot of the
 * account as it was when they arrived. Another workspace's account is BANK_ACCOUNT_NOT_FOUND, as a missing one.
 */
export async function updateBankAccount(deps: Deps, principal: Principal | null, raw: UpdateBankAccountInput) {
  const p = requireSession(principal);
  const alias = raw.alias == null ? undefined : validAlias(raw.alias);
  const active = raw.active == null ? undefined : raw.active;
  if (alias === undefined && active === undefined) throw new DomainError('NO_FIELD_TO_CHANGE', { message: 'Send alias, active or both.' });
  // One conditional statement: the workspace's own, not deleted, account, or nothing changes. Its row lock waits for
  // the invoices being written that name the account (holdUsableReceivingAccounts), and those written after it read
  // the account as it now is: no invoice is written naming an account already out of use.
  const changed = await deps.sql.query(
    `UPDATE "BankAccount" SET alias = COALESCE($3, alias), active = COALESCE($4, active), "updatedAt" = $5::timestamptz
      WHERE id = $1 AND "workspaceId" = $2 AND "deletedAt" IS NULL RETURNING id`,
    [raw.bankAccountId, p.workspaceId, alias ?? null, active ?? null, deps.clock.now().toISOString()],
  );
  if (changed.length === 0) throw new DomainError('BANK_ACCOUNT_NOT_FOUND', { message: 'Bank account not found.', path: ['bankAccountId'] });
  return { bankAccountId: raw.bankAccountId };
}

/**
 * The 1-won verification's depositor name while the deposit is still awaited (null once verified): readable again, so
 * a merchant who reloaded the page (or lost the registration's answer) still knows what to send. No secret: it proves
 * the account's deposits reach us, not who sent them.
 */
export function awaitedVerificationCode(a: { verifiedAt: Date | null; verificationCode: string }): string | null {
  return a.verifiedAt ? null : a.verificationCode;
}

/** The bank-account snapshot stored on each deposit (spec: transaction.bankAccount). */
export function bankAccountSnapshot(a: {
  id: string;
  active: boolean;
  ownerId: string;
  alias: string;
  provider: string;
  type: string;
  number: string;
  createdAt: Date;
  verifiedAt: Date | null;
  deletedAt: Date | null;
}) {
  return {
    id: a.id,
    active: a.active,
    ownerId: a.ownerId,
    alias: a.alias,
    provider: a.provider,
    type: a.type,
    number: a.number,
    createdAt: a.createdAt.toISOString(),
    verifiedAt: a.verifiedAt ? a.verifiedAt.toISOString() : null,
    deletedAt: a.deletedAt ? a.deletedAt.toISOString() : null,
  };
}

type UsableAccountRow = { id: string; workspaceId: string; verifiedAt: Date | null; active: boolean };
const USABLE_ACCOUNTS = `SELECT id, "workspaceId", "verifiedAt", active FROM "BankAccount" WHERE id = ANY($1::text[]) AND "deletedAt" IS NULL`;

/**
 * Checks the receiving accounts an invoice names: each in the workspace (else BANK_ACCOUNT_NOT_FOUND, or OUT_OF_SCOPE
 * if another workspace's), verified (BANK_ACCOUNT_NOT_VERIFIED) and in use (BANK_ACCOUNT_INACTIVE). One raw statement:
 * through the driver for a RawQuery, else as raw SQL in the Prisma client or transaction given.
 */
export async function assertUsableReceivingAccounts(db: Tx | Deps['prisma'] | RawQuery, workspaceId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const params = [[...ids]];
  const found =
    typeof db === 'function'
      ? await db<UsableAccountRow>(USABLE_ACCOUNTS, params, { prepare: true })
      : await db.$queryRawUnsafe<UsableAccountRow[]>(USABLE_ACCOUNTS, ...params);
  refuseUnusable(found, workspaceId, ids);
}

/**
 * The same check in the transaction that writes an invoice naming the accounts, holding the workspace's own rows (FOR
 * SHARE) until it commits: taking an account out of use (an UPDATE of its row) waits for the invoice, and an invoice
 * that waited for such an update reads the account as it now is (the locked rows are read at their latest version).
 * Another invoice naming the account does not wait. Another workspace's accounts are read, unlocked, only to be
 * refused (OUT_OF_SCOPE).
 */
const HELD_ACCOUNTS = `WITH own AS (SELECT id, "workspaceId", "verifiedAt", active FROM "BankAccount"
                       WHERE id = ANY($1::text[]) AND "deletedAt" IS NULL AND "workspaceId" = $2 FOR SHARE)
  SELECT * FROM own
  UNION ALL SELECT id, "workspaceId", "verifiedAt", active FROM "BankAccount" WHERE id = ANY($1::text[]) AND "deletedAt" IS NULL AND "workspaceId" <> $2`;

export async function holdUsableReceivingAccounts(q: RawQuery, workspaceId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  refuseUnusable(await q<UsableAccountRow>(HELD_ACCOUNTS, [[...ids], workspaceId], { prepare: true }), workspaceId, ids);
}

function refuseUnusable(found: UsableAccountRow[], workspaceId: string, ids: readonly string[]): void {
  const byId = new Map(found.map((a) => [a.id, a]));
  for (const id of ids) {
    const a = byId.get(id);
    if (!a) throw new DomainError('BANK_ACCOUNT_NOT_FOUND', { path: ['bankAccountIds'], data: { bankAccountId: id } });
    if (a.workspaceId !== workspaceId) throw new DomainError('OUT_OF_SCOPE', { path: ['bankAccountIds'] });
  }
  for (const id of ids) {
    if (!byId.get(id)!.verifiedAt) throw new DomainError('BANK_ACCOUNT_NOT_VERIFIED', { path: ['bankAccountIds'], data: { bankAccountId: id } });
  }
  for (const id of ids) {
    if (!byId.get(id)!.active) throw new DomainError('BANK_ACCOUNT_INACTIVE', { path: ['bankAccountIds'], data: { bankAccountId: id } });
  }
}
