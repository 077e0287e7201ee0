/** Reading deposits (spec: GET /v1/transactions, the Transaction object): one, a filtered page, and what of a note a key sees. */
import type { Transaction } from '../../generated/prisma/client.ts';
import { DepositSource } from '../../generated/prisma/enums.ts';
import type { Principal } from '../auth/principal.ts';
import { bankAccountInScope, invoiceInScope, requirePrincipal } from '../auth/rules.ts';
import { parseKstRange } from '../dates.ts';
import type { Deps, Tx } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { parseOffsetPage } from '../paging.ts';
import { findInWorkspace, inRange, pageOfIds, searchTerm, type LookupRefusals } from '../workspace-rows.ts';
import { SqlWhere, likeContains } from '../sql.ts';
import { shortSearchGram } from '../search-grams.ts';
import { searchNormalize } from '../validation.ts';

/**
 * What of a deposit's `matchNote` the principal sees: an account-limited key sees only the candidate invoices it may
 * handle (spec: account-limited keys), never the ids of invoices outside its accounts.
 */
export async function matchNoteVisibleTo(deps: Pick<Deps, 'prisma'>, p: Principal | null, note: unknown): Promise<unknown> {
  const ids = (note as { candidateInvoiceIds?: unknown } | null)?.candidateInvoiceIds;
  if (!p || p.bankAccountIds === null || !Array.isArray(ids) || ids.length === 0) return note;
  const rows = await deps.prisma.invoice.findMany({ where: { id: { in: ids.filter((x): x is string => typeof x === 'string') } }, select: { id: true, bankAccountIds: true } });
  const visible = new Set(rows.filter((r) => invoiceInScope(p, r.bankAccountIds)).map((r) => r.id));
  return { ...(note as Record<string, unknown>), candidateInvoiceIds: ids.filter((id) => visible.has(id as string)) };
}

/**
 * The ids of the invoices a deposit's match note names as its candidates (AMBIGUOUS, TOO_MANY_CANDIDATES,
 * ALREADY_PAID) that the principal may see: of its workspace and, for a key limited to bank accounts, within them.
 */
export async function matchCandidateIdsVisibleTo(deps: Pick<Deps, 'prisma'>, p: Principal | null, note: unknown): Promise<string[]> {
  const ids = (note as { candidateInvoiceIds?: unknown } | null)?.candidateInvoiceIds;
  if (!p || !Array.isArray(ids) || ids.length === 0) return [];
  const rows = await deps.prisma.invoice.findMany({
    where: { id: { in: ids.filter((x): x is string => typeof x === 'string') }, workspaceId: p.workspaceId },
    select: { id: true, bankAccountIds: true },
  });
  const visible = new Set(rows.filter((r) => p.bankAccountIds === null || invoiceInScope(p, r.bankAccountIds)).map((r) => r.id));
  return ids.filter((id): id is string => typeof id === 'string' && visible.has(id));
}

/** Loads a deposit the principal may see: malformed or missing → TRANSACTION_NOT_FOUND; another workspace's → FOREIGN_TRANSACTION; outside the key's accounts → OUT_OF_SCOPE. */
export async function loadTransactionFor(db: Tx | Deps['prisma'], p: Principal, id: unknown): Promise<Transaction> {
  const t = await findInWorkspace(p, 'transaction', id, TRANSACTION_REFUSALS, (id) => db.transaction.findUnique({ where: { id } }));
  if (!bankAccountInScope(p, t.bankAccountId)) throw new DomainError('OUT_OF_SCOPE');
  return t;
}

const TRANSACTION_REFUSALS: LookupRefusals = { invalid: 'TRANSACTION_NOT_FOUND', notFound: 'TRANSACTION_NOT_FOUND', foreign: 'FOREIGN_TRANSACTION' };

export async function getTransaction(deps: Deps, principal: Principal | null, id: unknown) {
  return loadTransactionFor(deps.prisma, requirePrincipal(principal), id);
}

export interface TransactionListFilter {
  offset: unknown;
  limit: unknown;
  search?: string | null;
  bankAccountId?: string | null;
  matched?: boolean | null;
  hidden?: boolean | null;
  dateAfter?: string | null;
  dateBefore?: string | null;
  /** How the deposits first reached the service (NOTIFICATION, TEXT, HISTORY). */
  source?: string | null;
  /** Only deposits of exactly this many won. */
  amount?: number | null;
}

const DEPOSIT_SOURCES: readonly string[] = Object.values(DepositSource);

/**
 * listTransactions (GET /v1/transactions): filters by createdAt (KST dates), key scope, newest first; GraphQL's filter
 * adds how a deposit arrived (source) and its exact amount.
 */
export async function listTransactionIds(deps: Deps, principal: Principal | null, f: TransactionListFilter): Promise<{ ids: string[]; total: number }> {
  const p = requirePrincipal(principal);
  const page = parseOffsetPage(f.offset, f.limit);
  const range = parseKstRange(f.dateAfter, f.dateBefore);
  if (f.bankAccountId !== undefined && f.bankAccountId !== null && !bankAccountInScope(p, f.bankAccountId)) {
    throw new DomainError('OUT_OF_SCOPE', { path: ['bankAccountId'] });
  }
  if (f.source != null && !DEPOSIT_SOURCES.includes(f.source)) {
    throw new DomainError('VALIDATION_FAILED', { message: `source must be one of ${DEPOSIT_SOURCES.join(', ')}.`, path: ['source'] });
  }
  if (f.amount != null && !(Number.isSafeInteger(f.amount) && f.amount > 0)) {
    throw new DomainError('VALIDATION_FAILED', { message: 'amount must be a whole number of won greater than 0.', path: ['amount'] });
  }
  const w = new SqlWhere();
  w.and((v) => `"workspaceId" = ${v(p.workspaceId)} AND "deletedAt" IS NULL`);
  if (p.bankAccountIds !== null) w.and((v) => `"bankAccountId" = ANY(${v(p.bankAccountIds, '::text[]')})`);
  if (f.bankAccountId) w.and((v) => `"bankAccountId" = ${v(f.bankAccountId)}`);
  if (f.matched === true) w.and(`"matchedInvoiceId" IS NOT NULL`);
  if (f.matched === false) w.and(`"matchedInvoiceId" IS NULL`);
  if (f.hidden === true) w.and(`hidden`);
  if (f.hidden === false) w.and(`NOT hidden`);
  if (f.source != null) w.and((v) => `source = ${v(f.source, '::"DepositSource"')}`);
  if (f.amount != null) w.and((v) => `amount = ${v(f.amount, '::int')}`);
  inRange(w, 'createdAt', range);
  const raw = searchTerm(f.search);
  const term = searchNormalize(raw);
  // A term of one or two characters (never an id: those are 28) is looked up in the deposits' n-grams; when nothing
  // else but the date limits the list, the page and the count read the grams' key alone.
  const gram = shortSearchGram(term);
  if (gram && p.bankAccountIds === null && !f.bankAccountId && f.matched == null && f.hidden == null && f.source == null && f.amount == null) {
    const g = new SqlWhere();
    g.and((v) => `"workspaceId" = ${v(p.workspaceId)} AND gram = ${v(gram)}`);
    inRange(g, 'createdAt', range);
    return pageOfIds(deps, 'TransactionSearchGram', g, '"createdAt" DESC, id DESC', page, { counted: false, now: deps.clock.now() });
  }
  if (gram) {
    w.and((v) => `id IN (SELECT id FROM "TransactionSearchGram" WHERE "workspaceId" = ${v(p.workspaceId)} AND gram = ${v(gram)})`);
  } else if (term) {
    w.and((v) => {
      const exact = v(raw);
      return `id = ${exact} OR "bankAccountId" = ${exact} OR "matchedInvoiceId" = ${exact} OR "searchText" LIKE ${v(likeContains(term))}`;
    });
  }
  // Counted from ListCount unless a filter names a column it does not keep (search, dates, source, amount).
  const counted = !term && !range.from && !range.until && f.source == null && f.amount == null;
  return pageOfIds(deps, 'Transaction', w, '"createdAt" DESC, id DESC', page, { counted, now: deps.clock.now() });
}
