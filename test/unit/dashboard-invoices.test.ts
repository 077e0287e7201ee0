/**
 * The Invoices screen's logic outside the browser: the list's filters in the address (REST names) and back, malformed
 * addresses read safely, the GraphQL filter they send; the edit form's changes only, with its expiry typed in KST; the
 * refusals in words, each a code the API has.
 */
import { describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/domain/errors.ts';
import { filterOf, listStateOf, narrowed, queryOf, type ListState } from '../../src/dashboard/screens/invoices/filters.ts';
import { cashReceiptOf, changesOf, fromKst, optionalText, toKstLocal, type Editable } from '../../src/dashboard/screens/invoices/form.ts';
import { REFUSALS, refusalWords } from '../../src/dashboard/screens/invoices/words.ts';

const stateOf = (qs: string) => listStateOf(new URLSearchParams(qs));
const EMPTY: ListState = { search: '', statuses: [], paid: null, expired: null, dateAfter: '', dateBefore: '', hideCanceled: false, offset: 0 };

describe("the invoice list's filters in the address", () => {
  it('reads every REST filter by its REST name', () => {
    expect(stateOf('search=%ED%99%8D%EA%B8%B8%EB%8F%99&status=PENDING,EXPIRED&paid=false&expired=true&dateAfter=2026-11-01&dateBefore=2026-11-30&includeCanceled=false&offset=40')).toEqual({
      search: '홍길동',
      statuses: ['PENDING', 'EXPIRED'],
      paid: false,
      expired: true,
      dateAfter: '2026-11-01',
      dateBefore: '2026-11-30',
      hideCanceled: true,
      offset: 40,
    });
    expect(stateOf('')).toEqual(EMPTY);
  });

  it('reads a malformed address as the filters it can, never as a broken query', () => {
    // An unknown or lower-case status is left out; the known ones stay.
    expect(stateOf('status=PENDING,SHIPPED,paid,,CANCELED').statuses).toEqual(['PENDING', 'CANCELED']);
    expect(stateOf('status=NOPE').statuses).toEqual([]);
    // A page that is not a positive whole number is the first.
    for (const offset of ['-20', '1.5', 'abc', '', 'Infinity', '1e400']) expect(stateOf(`offset=${offset}`).offset, offset).toBe(0);
    // A flag other than true/false is "any".
    expect(stateOf('paid=yes&expired=TRUE')).toMatchObject({ paid: null, expired: null });
    // includeCanceled=true (or anything but false) is the default: canceled invoices listed.
    expect(stateOf('includeCanceled=true').hideCanceled).toBe(false);
    // A malformed date goes to the API as typed: the API refuses it in words (INVALID_DATE_RANGE_FORMAT).
    expect(filterOf(stateOf('dateAfter=2026-13-45')).dateAfter).toBe('2026-13-45');
  });

  it('round-trips: filters → query → the same filters, and the query names only what narrows the list', () => {
    const states: ListState[] = [
      EMPTY,
      { ...EMPTY, search: '김 & 이=?#', statuses: ['PAID', 'CANCELED'], paid: true, expired: false, dateAfter: '2026-01-01', dateBefore: '2026-12-31', hideCanceled: true, offset: 20 },
      { ...EMPTY, expired: true },
      { ...EMPTY, offset: 60 },
    ];
    for (const s of states) {
      const query = queryOf(s);
      expect(stateOf(query.replace(/^\?/, ''))).toEqual(s);
      // And the query of that state is the same text: an address is stable across reloads.
      expect(queryOf(stateOf(query.replace(/^\?/, '')))).toBe(query);
    }
    expect(queryOf(EMPTY)).toBe('');
    expect(queryOf({ ...EMPTY, paid: false })).toBe('?paid=false');
    expect(queryOf({ ...EMPTY, statuses: ['PENDING', 'EXPIRED'] })).toBe('?status=PENDING%2CEXPIRED');
  });

  it('is narrowed by any filter, never by the page alone', () => {
    expect(narrowed(EMPTY)).toBe(false);
    expect(narrowed({ ...EMPTY, offset: 20 })).toBe(false);
    expect(narrowed({ ...EMPTY, paid: false })).toBe(true);
    expect(narrowed({ ...EMPTY, hideCanceled: true })).toBe(true);
  });

  it('sends the GraphQL filter: empty fields as null, canceled included unless hidden', () => {
    expect(filterOf(EMPTY)).toEqual({ search: null, statuses: null, paid: null, expired: null, dateAfter: null, dateBefore: null, includeCanceled: true });
    expect(filterOf(stateOf('status=PAID&search=inv_1&dateBefore=2026-11-30&includeCanceled=false'))).toEqual({
      search: 'inv_1',
      statuses: ['PAID'],
      paid: null,
      expired: null,
      dateAfter: null,
      dateBefore: '2026-11-30',
      includeCanceled: false,
    });
  });
});

const form = (fields: Record<string, string | string[]>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) f.append(k, x);
  return f;
};

describe('the invoice forms', () => {
  it('an optional field left empty (or only spaces) is absent', () => {
    expect(optionalText(form({ email: '  ' }), 'email')).toBeNull();
    expect(optionalText(form({}), 'email')).toBeNull();
    expect(optionalText(form({ email: ' a@b.kr ' }), 'email')).toBe('a@b.kr');
  });

  it('a cash receipt is a kind and its number in digits, or none', () => {
    expect(cashReceiptOf(form({ cashReceiptType: 'PERSONAL', cashReceiptIdentifier: '010-1234 5678' }))).toEqual({ type: 'PERSONAL', identifier: '01012345678' });
    expect(cashReceiptOf(form({ cashReceiptType: '', cashReceiptIdentifier: '0101234' }))).toBeNull();
    expect(cashReceiptOf(form({ cashReceiptType: 'personal' }))).toBeNull();
  });

  it('an expiry typed as KST wall time is that instant, across the Korean midnight', () => {
    expect(fromKst('2026-11-27T00:00')).toBe('2026-11-26T15:00:00.000Z');
    expect(fromKst('2026-11-26T23:59')).toBe('2026-11-26T14:59:00.000Z');
    expect(fromKst('2027-01-01T08:59')).toBe('2026-12-31T23:59:00.000Z');
    expect(toKstLocal('2026-11-26T15:00:00.000Z')).toBe('2026-11-27T00:00');
    expect(toKstLocal(fromKst('2026-03-01T00:30'))).toBe('2026-03-01T00:30');
  });
});

describe("an edit's changes", () => {
  const invoice: Editable = {
    id: 'inv_1',
    amount: 10_000,
    bankAccountIds: ['bac_a', 'bac_b'],
    expiresAt: '2026-11-26T15:00:00.000Z', // 2026-11-27 00:00 KST
    customer: { name: '홍길동', email: 'a@b.kr', phoneNumber: '01012345678' },
    cashReceipt: { type: 'PERSONAL', identifier: '01012345678' },
  };
  const unchanged = {
    name: '홍길동',
    email: 'a@b.kr',
    phoneNumber: '010-1234-5678',
    amount: '10000',
    bankAccountIds: ['bac_b', 'bac_a'],
    expiresAt: '2026-11-27T00:00',
    cashReceiptType: 'PERSONAL',
    cashReceiptIdentifier: '010-1234-5678',
  };

  it('the form as it started sends nothing (accounts in another order, the phone with hyphens are the same)', () => {
    expect(changesOf(invoice, form(unchanged))).toEqual({});
  });

  it('sends only what differs: a cleared e-mail as null, a new expiry as the KST instant', () => {
    expect(changesOf(invoice, form({ ...unchanged, email: '', amount: '12000', expiresAt: '2026-11-30T09:00' }))).toEqual({
      customer: { email: null },
      amount: 12_000,
      expiresAt: '2026-11-30T00:00:00.000Z',
    });
    expect(changesOf(invoice, form({ ...unchanged, bankAccountIds: ['bac_a'] }))).toEqual({ bankAccountIds: ['bac_a'] });
    expect(changesOf(invoice, form({ ...unchanged, cashReceiptType: '' }))).toEqual({ cashReceipt: null });
  });

  it('removing the expiry wins over extending it, which wins over a new expiry', () => {
    expect(changesOf(invoice, form({ ...unchanged, removeExpiry: 'on', extendDays: '3' }))).toEqual({ expiresAt: null });
    expect(changesOf(invoice, form({ ...unchanged, extendDays: '3', expiresAt: '2026-12-01T00:00' }))).toEqual({ extendDays: 3 });
    // Removing an expiry there is none of is no change.
    expect(changesOf({ ...invoice, expiresAt: null }, form({ ...unchanged, expiresAt: '', removeExpiry: 'on' }))).toEqual({});
    expect(changesOf(invoice, form({ ...unchanged, resendGuideEmail: 'on' }))).toEqual({ resendGuideEmail: true });
  });
});

describe("the invoices' refusals in words", () => {
  it('each code is one the API has, in both languages; another code keeps the API message', () => {
    for (const [code, words] of Object.entries(REFUSALS)) {
      expect(isErrorCode(code), code).toBe(true);
      expect(words.ko.trim(), code).not.toBe('');
      expect(words.en.trim(), code).not.toBe('');
    }
    expect(refusalWords('ko', 'INVALID_DATE_RANGE_FORMAT', 'Dates must be YYYY-MM-DD.')).toBe('날짜는 YYYY-MM-DD 형식이어야 합니다.');
    expect(refusalWords('en', 'SOMETHING_NEW', 'The API says why.')).toBe('The API says why.');
  });
});
