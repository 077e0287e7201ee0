/**
 * The Deposits screen's logic outside the browser: the list's filter read from the address (the API's names, hidden
 * deposits left out by default, a bad amount a problem shown rather than a query sent), the address of a list, why a
 * deposit stayed unmatched and an un-match refusal in words, an account's label.
 */
import { describe, expect, it } from 'vitest';
import { accountLabel } from '../../src/dashboard/screens/deposits/accounts.ts';
import { BASE, filterOf, listAddress, reasonOf, unmatchRefusal } from '../../src/dashboard/screens/deposits/filters.ts';
import { fill } from '../../src/dashboard/screens/deposits/words.ts';

const read = (qs: string) => filterOf(new URLSearchParams(qs));

describe("the deposit list's filter in the address", () => {
  it('the default list: hidden deposits left out, first page, nothing else', () => {
    expect(read('')).toEqual({ filter: { hidden: false }, offset: 0, problem: null });
    expect(read('hidden=all').filter).toEqual({});
    expect(read('hidden=true').filter).toEqual({ hidden: true });
    // Anything else than true/all reads as the default.
    expect(read('hidden=yes').filter).toEqual({ hidden: false });
  });

  it('reads every filter by the API name, trimmed, empty ones left out', () => {
    expect(read('matched=false&bankAccountId=bac_1&dateAfter=2026-11-01&dateBefore=%202026-11-30%20&search=%ED%99%8D&amount=12000&source=TEXT&offset=40')).toEqual({
      filter: { matched: false, hidden: false, bankAccountId: 'bac_1', dateAfter: '2026-11-01', dateBefore: '2026-11-30', search: '홍', amount: 12_000, source: 'TEXT' },
      offset: 40,
      problem: null,
    });
    expect(read('matched=true&search=%20%20&bankAccountId=').filter).toEqual({ matched: true, hidden: false });
  });

  it('reads a malformed address safely: an unknown source or flag is none, a bad page the first', () => {
    expect(read('source=SMS&matched=maybe').filter).toEqual({ hidden: false });
    expect(read('source=text').filter).toEqual({ hidden: false });
    expect(read('offset=-40').offset).toBe(0);
    expect(read('offset=abc').offset).toBe(0);
    expect(read('offset=20.7').offset).toBe(20);
    // A malformed date goes to the API as typed, which refuses it in words (INVALID_DATE_RANGE_FORMAT).
    expect(read('dateAfter=2026-02-30').filter.dateAfter).toBe('2026-02-30');
  });

  it('an amount that is not a whole number of won, 1 or more, is a problem to show, not a query to send', () => {
    for (const amount of ['0', '-5', '1.5', '1,000', '12원', '1e3', '1234567890123456']) {
      const { filter, problem } = read(`amount=${encodeURIComponent(amount)}`);
      expect(problem, amount).toBe('badAmount');
      expect(filter.amount, amount).toBeUndefined();
    }
    expect(read('amount=%201000%20')).toMatchObject({ filter: { amount: 1000 }, problem: null });
  });

  it("the list's address keeps what is set, drops what is empty, and reads back to the same filter", () => {
    expect(listAddress(new URLSearchParams('matched=&hidden=false&search=&amount='))).toBe(`${BASE}?hidden=false`);
    expect(listAddress(new URLSearchParams(''))).toBe(BASE);
    const address = listAddress(new URLSearchParams([['search', '김 & 이'], ['source', 'HISTORY'], ['amount', '500'], ['offset', '20']]));
    expect(read(address.slice(BASE.length + 1))).toEqual({ filter: { hidden: false, search: '김 & 이', source: 'HISTORY', amount: 500 }, offset: 20, problem: null });
  });
});

describe('a deposit in words', () => {
  it('why it stayed unmatched, from the match note: a reason the API gives, nothing otherwise', () => {
    expect(reasonOf('ko', { reason: 'AMBIGUOUS' })).toBe('같은 조건의 주문서가 여럿');
    expect(reasonOf('en', { reason: 'TOO_MANY_CANDIDATES' })).toBe('Too many candidates');
    expect(reasonOf('en', { reason: 'ALREADY_PAID' })).toBe('Invoice already paid');
    expect(reasonOf('en', { reason: 'SOMETHING_ELSE' })).toBe('');
    expect(reasonOf('en', null)).toBe('');
  });

  it('an un-match refused because a pending invoice is in the way names it; another refusal keeps the API words', () => {
    const conflict = { code: 'INVOICE_ALREADY_EXISTS', message: 'exists' };
    expect(unmatchRefusal('en', conflict, { number: 42 })).toContain('42');
    expect(unmatchRefusal('en', conflict, { number: 42 })).toMatch(/\(INVOICE_ALREADY_EXISTS\)$/);
    expect(unmatchRefusal('ko', conflict, { number: 42 })).not.toBe(unmatchRefusal('en', conflict, { number: 42 }));
    expect(unmatchRefusal('en', conflict, null)).toBe('exists (INVOICE_ALREADY_EXISTS)');
    expect(unmatchRefusal('en', { code: 'TRANSACTION_NOT_FOUND', message: 'No such deposit.' }, { number: 1 })).toBe('No such deposit. (TRANSACTION_NOT_FOUND)');
  });

  it('fills placeholders it has and leaves the others as written', () => {
    expect(fill('#{number} of {total}', { number: 3 })).toBe('#3 of {total}');
  });

  it("an account's label: alias, bank and number; the id when it is not listed", () => {
    const accounts = [
      { id: 'bac_1', alias: '주거래', number: '110123456789', provider: 'SHINHAN', active: true, verifiedAt: null },
      { id: 'bac_2', alias: '', number: '1002', provider: 'WOORI', active: true, verifiedAt: null },
    ];
    expect(accountLabel(accounts, 'bac_1')).toBe('주거래 · SHINHAN 110123456789');
    expect(accountLabel(accounts, 'bac_2')).toBe('WOORI 1002');
    expect(accountLabel(accounts, 'bac_gone')).toBe('bac_gone');
    expect(accountLabel(undefined, 'bac_1')).toBe('bac_1');
  });
});
