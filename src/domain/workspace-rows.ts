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
import { countedStatement, type ListedTable as CountedTable } from './list-counts.ts';
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

/**
 * The tables listed this way (the name is written into the SQL, so only these): the lists' own (their totals may be
 * counted from ListCount) and the gram tables of short searches (search-grams.ts; counted by their index).
 */
export type ListedTable = CountedTable | 'InvoiceSearchGram' | 'TransactionSearchGram';

/** How a list's total is taken: `counted` (the filter names only columns ListCount answers, see list-counts.ts), at `now`. */
export interface ListTotal {
  counted: boolean;
  now: Date;
}

/** From which offset a page may be read from the other end (the total read first, in the page's snapshot); tests lower it. */
export const LIST_PAGING = { deepOffset: 1000 };

/**
 * One page of ids matching `w` in `orderBy` order (every key DESC, the last one unique), and how many match in all:
 * from the kept counts when `total.counted`, else by counting the rows. A page past the middle is read from the other
 * end (`orderBy` ascending, offset from the end) and turned round: the rows walked are those after the page, not all
 * before it. Its total and page are then read in one REPEATABLE READ snapshot, so the two agree.
 */
export async function pageOfIds(
  deps: Pick<Deps, 'sql'>,
  table: ListedTable,
  w: SqlWhere,
  orderBy: string,
  page: OffsetPage,
  total: ListTotal,
): Promise<{ ids: string[]; total: number }> {
  const where = w.toString();
  const c = total.counted ? countedStatement(table as CountedTable, where, w.params.length, total.now) : { text: `SELECT count(*) AS n FROM "${table}" WHERE ${where}`, extra: [] };
  const count = async (q: RawSql) => {
    const [row] = await q.query<{ n: bigint | number | string }>(c.text, [...w.params, ...c.extra]);
    return Number(row?.n ?? 0);
  };
  const idsSql = (order: string, offset: number, limit: number) => `SELECT id FROM "${table}" WHERE ${where} ORDER BY ${order} OFFSET ${offset} LIMIT ${limit}`;
  const ids = async (q: RawSql, order: string, offset: number, limit: number) => (await q.query<{ id: string }>(idsSql(order, offset, limit), w.params)).map((r) => r.id);
  if (page.offset < LIST_PAGING.deepOffset) {
    // The total and the page in one statement (one round trip, one snapshot): each is planned as it is alone.
    const [row] = await deps.sql.query<{ n: bigint | number | string; ids: string[] }>(
      `SELECT (${c.text}) AS n, ARRAY(${idsSql(orderBy, page.offset, page.limit)}) AS ids`,
      [...w.params, ...c.extra],
    );
    return { total: Number(row?.n ?? 0), ids: row?.ids ?? [] };
  }
  return deps.sql.transaction(async (q) => {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const n = await count(q);
    if (page.offset >= n) return { total: n, ids: [] };
    const limit = Math.min(page.limit, n - page.offset);
    if (page.offset + limit / 2 <= n / 2) return { total: n, ids: await ids(q, orderBy, page.offset, limit) };
    const reversed = await ids(q, orderBy.replace(/\bDESC\b/g, 'ASC'), n - page.offset - limit, limit);
    return { total: n, ids: reversed.reverse() };
  });
}

type RawSql = Pick<Deps['sql'], 'query'>;
