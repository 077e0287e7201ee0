/**
 * Reading the rows a workspace owns, as the reads of invoices, deposits and cash receipts do: one row by id (missing,
 * deleted or another workspace's refused with the resource's codes) and one page of a filtered list (ids in the list's
 * order and how many match, v1's `totalItems`).
 */
import type { Principal } from './auth/principal.ts';
import type { DateRange } from './dates.ts';
import type { Deps } from './deps.ts';
import { DomainError, type ErrorCode } from './errors.ts';
import { isId, type IdKind } from './ids.ts';
import type { OffsetPage } from './paging.ts';
import type { SqlWhere } from './sql.ts';

/** How a lookup refuses: a malformed id, a missing (or deleted) row, another workspace's row. */
export interface LookupRefusals {
  invalid: ErrorCode;
  notFound: ErrorCode;
  foreign: ErrorCode;
}

/** The row of the principal's workspace with this id (`find` reads a well-formed id), or the lookup's refusal. */
export async function findInWorkspace<T extends { workspaceId: string; deletedAt?: Date | null }>(
  p: Pick<Principal, 'workspaceId'>,
  kind: IdKind,
  id: unknown,
  refusals: LookupRefusals,
  find: (id: string) => Promise<T | null>,
): Promise<T> {
  if (!isId(kind, id)) throw new DomainError(refusals.invalid);
  const row = await find(id);
  if (!row || row.deletedAt) throw new DomainError(refusals.notFound);
  if (row.workspaceId !== p.workspaceId) throw new DomainError(refusals.foreign);
  return row;
}

/** A list's search term as the filters compare it: control characters removed, trimmed ('' = no search). */
export function searchTerm(search: string | null | undefined): string {
  return search ? search.replace(/[\u0000-\u001f]/g, '').trim() : '';
}

/** Limits `column` to a KST date range (from inclusive, until exclusive), where the range has either end. */
export function inRange(w: SqlWhere, column: string, range: DateRange): void {
  if (range.from) w.and((v) => `"${column}" >= ${v(range.from!.toISOString(), '::timestamptz')}`);
  if (range.until) w.and((v) => `"${column}" < ${v(range.until!.toISOString(), '::timestamptz')}`);
}

/** The tables listed this way (the name is written into the SQL, so only these); the gram tables list short searches. */
export type ListedTable = 'Invoice' | 'Transaction' | 'CashReceipt' | 'InvoiceSearchGram' | 'TransactionSearchGram';

/** One page of ids matching `w` in `orderBy` order, and how many match in all. */
export async function pageOfIds(db: Deps['prisma'], table: ListedTable, w: SqlWhere, orderBy: string, page: OffsetPage): Promise<{ ids: string[]; total: number }> {
  const where = w.toString();
  const count = await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${table}" WHERE ${where}`, ...w.params);
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM "${table}" WHERE ${where} ORDER BY ${orderBy} OFFSET ${page.offset} LIMIT ${page.limit}`, ...w.params);
  return { ids: rows.map((r) => r.id), total: Number(count[0]?.n ?? 0) };
}
