/**
 * The deposit list's filter and page as the address holds them, the address of a list, and why a deposit stayed
 * unmatched in words. Pure: the list reads the address and passes it in.
 */
import { t, type Lang } from '../../i18n.ts';
import { fill, w } from './words.ts';

export const BASE = '/dashboard/deposits';

export const SOURCES = ['NOTIFICATION', 'TEXT', 'HISTORY'] as const;
export type Source = (typeof SOURCES)[number];

/** TransactionFilter's fields the list sets (the query's variables check the two agree). */
export interface DepositFilter {
  matched?: boolean;
  hidden?: boolean;
  bankAccountId?: string;
  dateAfter?: string;
  dateBefore?: string;
  search?: string;
  amount?: number;
  source?: Source;
}

/**
 * The list's filter and page as the address holds them (the API's own names: matched, hidden, bankAccountId,
 * dateAfter, dateBefore, search, amount, source, offset). The default list leaves hidden deposits out (hidden=false);
 * `hidden=all` shows both. An amount that is not a whole number is a problem to show, not a query to send.
 */
export function filterOf(params: URLSearchParams): { filter: DepositFilter; offset: number; problem: 'badAmount' | null } {
  const filter: DepositFilter = {};
  const flag = (name: 'matched' | 'hidden') => params.get(name);
  if (flag('matched') === 'true' || flag('matched') === 'false') filter.matched = flag('matched') === 'true';
  const hidden = flag('hidden');
  if (hidden !== 'all') filter.hidden = hidden === 'true';
  for (const name of ['bankAccountId', 'dateAfter', 'dateBefore', 'search'] as const) {
    const value = params.get(name)?.trim();
    if (value) filter[name] = value;
  }
  const source = params.get('source');
  if (source && (SOURCES as readonly string[]).includes(source)) filter.source = source as Source;
  let problem: 'badAmount' | null = null;
  const amount = params.get('amount')?.trim();
  if (amount) {
    if (/^\d{1,15}$/.test(amount) && Number(amount) > 0) filter.amount = Number(amount);
    else problem = 'badAmount';
  }
  const offset = Math.max(0, Math.floor(Number(params.get('offset')) || 0));
  return { filter, offset, problem };
}

/** The address of the list with `params` (empty values left out). */
export function listAddress(params: URLSearchParams): string {
  const kept = new URLSearchParams([...params].filter(([, v]) => v !== ''));
  const qs = kept.toString();
  return qs ? `${BASE}?${qs}` : BASE;
}

/** Why an unmatched deposit stayed so, in words (the match note's reason), or nothing when it names none. */
export function reasonOf(lang: Lang, note: unknown): string {
  const reason = (note as { reason?: unknown } | null)?.reason;
  return reason === 'AMBIGUOUS' || reason === 'TOO_MANY_CANDIDATES' || reason === 'ALREADY_PAID' ? t(lang, reason) : '';
}

/** An un-match refusal in words: INVOICE_ALREADY_EXISTS names the pending invoice in the way, and what to do. */
export function unmatchRefusal(lang: Lang, refusal: { code: string; message: string }, data: unknown): string {
  const number = (data as { number?: unknown } | null)?.number;
  if (refusal.code === 'INVOICE_ALREADY_EXISTS' && number != null) return `${fill(w(lang, 'unmatchConflict'), { number: String(number) })} (${refusal.code})`;
  return `${refusal.message} (${refusal.code})`;
}
