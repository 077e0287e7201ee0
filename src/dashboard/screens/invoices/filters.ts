/**
 * The invoice list's filters and page as the address's query string holds them, under the REST names (GET /v1/invoices:
 * search, paid, expired, dateAfter, dateBefore; GET /v2/invoices: status, includeCanceled; offset), and as the GraphQL
 * filter invoicePage reads. Pure: the list reads the address and passes it in.
 */

export const STATUSES = ['PENDING', 'EXPIRED', 'PAID', 'CANCELED'] as const;
export type Status = (typeof STATUSES)[number];

/** The list's filters and page. */
export interface ListState {
  search: string;
  statuses: Status[];
  paid: boolean | null;
  expired: boolean | null;
  dateAfter: string;
  dateBefore: string;
  hideCanceled: boolean;
  offset: number;
}

/** A yes/no/any choice: 'true', 'false', anything else (absent, empty, misspelt) is any. */
export const flag = (v: string | null): boolean | null => (v === 'true' ? true : v === 'false' ? false : null);

/**
 * The state a query string names. An unknown status is left out, a page that is not a positive whole number is the
 * first. Dates go to the API as typed, which refuses a malformed one in words (INVALID_DATE_RANGE_FORMAT).
 */
export function listStateOf(q: URLSearchParams): ListState {
  const offset = Number(q.get('offset') ?? '0');
  return {
    search: q.get('search') ?? '',
    statuses: (q.get('status') ?? '').split(',').filter((s): s is Status => (STATUSES as readonly string[]).includes(s)),
    paid: flag(q.get('paid')),
    expired: flag(q.get('expired')),
    dateAfter: q.get('dateAfter') ?? '',
    dateBefore: q.get('dateBefore') ?? '',
    hideCanceled: q.get('includeCanceled') === 'false',
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** The query string of a state: only what narrows the list. */
export function queryOf(s: ListState): string {
  const q = new URLSearchParams();
  if (s.search) q.set('search', s.search);
  if (s.statuses.length) q.set('status', s.statuses.join(','));
  if (s.paid !== null) q.set('paid', String(s.paid));
  if (s.expired !== null) q.set('expired', String(s.expired));
  if (s.dateAfter) q.set('dateAfter', s.dateAfter);
  if (s.dateBefore) q.set('dateBefore', s.dateBefore);
  if (s.hideCanceled) q.set('includeCanceled', 'false');
  if (s.offset) q.set('offset', String(s.offset));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The GraphQL filter of a state (invoicePage reads it as GET /v1/invoices and /v2/invoices read theirs). */
export function filterOf(s: ListState) {
  return {
    search: s.search || null,
    statuses: s.statuses.length ? s.statuses : null,
    paid: s.paid,
    expired: s.expired,
    dateAfter: s.dateAfter || null,
    dateBefore: s.dateBefore || null,
    includeCanceled: !s.hideCanceled,
  };
}

/** Whether the state narrows the list (whatever its page): the empty list then says no invoice matches. */
export const narrowed = (s: ListState) => queryOf({ ...s, offset: 0 }) !== '';
