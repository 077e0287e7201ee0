/**
 * The receipt list's filters and page as the address holds them (?status=&type=&from=&to=&q=&offset=), the address of
 * a set of filters, and the CashReceiptFilter they send. Pure: the list reads the address and passes it in.
 */
import type { Lang } from '../../i18n.ts';
import { w } from './words.ts';

export const LIST = '/dashboard/receipts';

export const STATUSES = ['PENDING', 'ISSUED', 'FAILED', 'CANCELED', 'REVOKED'] as const;
export const TYPES = ['PERSONAL', 'CORPORATE'] as const;
export type Status = (typeof STATUSES)[number];
export type ReceiptType = (typeof TYPES)[number];

export interface Filters {
  status: Status | null;
  type: ReceiptType | null;
  /** Korean dates (YYYY-MM-DD) as typed: the API refuses a malformed one (INVALID_DATE_RANGE_FORMAT). */
  from: string;
  to: string;
  q: string;
  offset: number;
}

/** The filters as the address holds them; unknown values read as none, a page that is not a positive whole number is the first. */
export function filtersOf(search: URLSearchParams): Filters {
  const status = search.get('status');
  const type = search.get('type');
  const offset = Number(search.get('offset'));
  return {
    status: STATUSES.find((s) => s === status) ?? null,
    type: TYPES.find((x) => x === type) ?? null,
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
    q: search.get('q') ?? '',
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** The list's address for a set of filters: only what narrows the list. */
export function addressOf(f: Filters): string {
  const p = new URLSearchParams();
  if (f.status) p.set('status', f.status);
  if (f.type) p.set('type', f.type);
  if (f.from) p.set('from', f.from);
  if (f.to) p.set('to', f.to);
  if (f.q) p.set('q', f.q);
  if (f.offset) p.set('offset', String(f.offset));
  const qs = p.toString();
  return qs ? `${LIST}?${qs}` : LIST;
}

/** The CashReceiptFilter of a set of filters (the page is the query's offset, not a filter). */
export function receiptFilterOf(f: Filters) {
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.type ? { type: f.type } : {}),
    ...(f.from ? { dateAfter: f.from } : {}),
    ...(f.to ? { dateBefore: f.to } : {}),
    ...(f.q ? { search: f.q } : {}),
  };
}

/** The list's refusal as shown: a malformed date says how to write one; any other keeps the API's words and code. */
export function listRefusal<R extends { code: string }>(lang: Lang, refusal: R): R | string {
  return refusal.code === 'INVALID_DATE_RANGE_FORMAT' ? w(lang, 'badDate') : refusal;
}
