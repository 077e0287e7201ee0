/** Reads every resource shares: one row of the principal's workspace by id, and one page of a filtered list's ids. */
import type { Principal } from './auth/principal.ts';
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

/** One page of the ids of `table`'s rows matching `where`, in `orderBy` order, and how many match in all. */
export async function pageOfIds(db: Deps['prisma'], table: string, where: SqlWhere, orderBy: string, page: OffsetPage): Promise<{ ids: string[]; total: number }> {
  const condition = where.toString();
  const countRows = await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${table}" WHERE ${condition}`, ...where.params);
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id FROM "${table}" WHERE ${condition} ORDER BY ${orderBy} OFFSET ${page.offset} LIMIT ${page.limit}`,
    ...where.params,
  );
  return { ids: rows.map((r) => r.id), total: Number(countRows[0]?.n ?? 0) };
}
