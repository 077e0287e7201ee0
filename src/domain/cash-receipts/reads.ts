/** Reading cash receipts (spec: GET /v1/cash-receipts, GET /v1/cash-receipts/{id}): one by id, and the filtered list. */
import type { CashReceipt, CashReceiptStatus } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { requirePrincipal } from '../auth/rules.ts';
import { parseKstRange } from '../dates.ts';
import type { Deps, Tx } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { isId } from '../ids.ts';
import { parseOffsetPage } from '../paging.ts';
import { SqlWhere, likeContains } from '../sql.ts';
import { findInWorkspace, inRange, pageOfIds, searchTerm, type LookupRefusals } from '../workspace-rows.ts';
import { isCashReceiptType } from './identifier.ts';

/** A receipt id's shape (INVALID_CASH_RECEIPT_ID otherwise), checked before anything else of a request. */
export function assertReceiptId(id: unknown): asserts id is string {
  if (!isId('cashReceipt', id)) throw new DomainError('INVALID_CASH_RECEIPT_ID');
}

const RECEIPT_REFUSALS: LookupRefusals = { invalid: 'INVALID_CASH_RECEIPT_ID', notFound: 'CASH_RECEIPT_NOT_FOUND', foreign: 'FOREIGN_CASH_RECEIPT' };

/** Loads a receipt of the principal's workspace (cash receipts are not limited by bank account). */
export async function loadReceiptFor(db: Tx | Deps['prisma'], p: Principal, id: unknown): Promise<CashReceipt> {
  return findInWorkspace(p, 'cashReceipt', id, RECEIPT_REFUSALS, (id) => db.cashReceipt.findUnique({ where: { id } }));
}

/** getCashReceipt (GET /v1/cash-receipts/{id}). */
export async function getCashReceipt(deps: Deps, principal: Principal | null, id: unknown) {
  return loadReceiptFor(deps.prisma, requirePrincipal(principal), id);
}

export interface ReceiptListFilter {
  offset: unknown;
  limit: unknown;
  search?: string | null;
  status?: string | null;
  /** Any of these statuses (v1's REVOKED also finds v2-canceled receipts). */
  statuses?: string[] | null;
  type?: string | null;
  identifier?: string | null;
  corpNum?: string | null;
  dateAfter?: string | null;
  dateBefore?: string | null;
}

/** Every status a receipt can have (spec: Cash receipt state table); the faces read their lists from here. */
export const RECEIPT_STATUSES = ['PENDING', 'ISSUED', 'FAILED', 'REVOKED', 'CANCELED'] as const satisfies readonly CashReceiptStatus[];
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];
const isReceiptStatus = (s: string): s is ReceiptStatus => (RECEIPT_STATUSES as readonly string[]).includes(s);

/** listCashReceipts (GET /v1/cash-receipts): filters, newest first by issuance request date. */
export async function listCashReceiptIds(deps: Deps, principal: Principal | null, f: ReceiptListFilter): Promise<{ ids: string[]; total: number }> {
  const p = requirePrincipal(principal);
  const page = parseOffsetPage(f.offset, f.limit);
  const range = parseKstRange(f.dateAfter, f.dateBefore);
  if (f.status != null && !isReceiptStatus(f.status)) throw new DomainError('BAD_REQUEST', { path: ['status'], message: `status must be one of ${RECEIPT_STATUSES.join(', ')}.` });
  if (f.type != null && !isCashReceiptType(f.type)) throw new DomainError('BAD_REQUEST', { path: ['type'], message: 'type must be PERSONAL or CORPORATE.' });
  const w = new SqlWhere();
  w.and((v) => `"workspaceId" = ${v(p.workspaceId)} AND "deletedAt" IS NULL`);
  if (f.status) w.and((v) => `status::text = ${v(f.status)}`);
  if (f.statuses && f.statuses.length) {
    for (const st of f.statuses) if (!isReceiptStatus(st)) throw new DomainError('BAD_REQUEST', { path: ['statuses'] });
    w.and((v) => `status::text = ANY(${v(f.statuses, '::text[]')})`);
  }
  if (f.type) w.and((v) => `type::text = ${v(f.type)}`);
  if (f.identifier) w.and((v) => `identifier = ${v(f.identifier)}`);
  if (f.corpNum) w.and((v) => `"corpNum" = ${v(f.corpNum!.replace(/-/g, ''))}`);
  inRange(w, 'issuedAt', range);
  const raw = searchTerm(f.search);
  const digits = raw.replace(/-/g, '');
  if (/^\d{3,}$/.test(digits)) {
    // Digits (a phone, a business number): no id has that form, and an identifier or corpNum holding them holds them in
    // searchText too (the same digits, normalised), so the trigram index on searchText narrows the rows first.
    w.and((v) => {
      const d = v(digits);
      return `"searchText" LIKE ${v(likeContains(digits))} AND ("corpNum" = ${d} OR identifier LIKE ${v(likeContains(digits))})`;
    });
  } else if (raw) {
    w.and((v) => {
      const exact = v(raw);
      return `id = ${exact} OR "relatedInvoiceId" = ${exact} OR "corpNum" = ${v(raw.replace(/-/g, ''))} OR identifier LIKE ${v(likeContains(raw.replace(/-/g, '')))}`;
    });
  }
  // Counted from ListCount unless a filter names a column it does not keep (search, dates, identifier, corpNum).
  const counted = !raw && !f.identifier && !f.corpNum && !range.from && !range.until;
  return pageOfIds(deps, 'CashReceipt', w, '"issuedAt" DESC, id DESC', page, { counted, now: deps.clock.now() });
}
