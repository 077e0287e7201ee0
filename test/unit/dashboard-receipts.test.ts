/**
 * The Cash receipts screen's logic outside the browser: the list's filters in the address and back (unknown values
 * read as none), the CashReceiptFilter they send, a malformed date's refusal in words, and a refusal's sentence and
 * the receipt it points at.
 */
import { describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/domain/errors.ts';
import { addressOf, filtersOf, LIST, listRefusal, receiptFilterOf, type Filters } from '../../src/dashboard/screens/receipts/filters.ts';
import { EXPLAINED_CODES, receiptNamed, sentence } from '../../src/dashboard/screens/receipts/refusals.ts';

const read = (qs: string) => filtersOf(new URLSearchParams(qs));
const NONE: Filters = { status: null, type: null, from: '', to: '', q: '', offset: 0 };

describe("the receipt list's filters in the address", () => {
  it('reads each filter, unknown values as none, a bad page as the first', () => {
    expect(read('status=ISSUED&type=CORPORATE&from=2026-11-01&to=2026-11-30&q=010&offset=20')).toEqual({ status: 'ISSUED', type: 'CORPORATE', from: '2026-11-01', to: '2026-11-30', q: '010', offset: 20 });
    expect(read('status=issued&type=BOTH')).toEqual(NONE);
    for (const offset of ['-20', '2.5', 'x', '9007199254740993']) expect(read(`offset=${offset}`).offset, offset).toBe(0);
  });

  it('round-trips: filters → address → the same filters', () => {
    const cases: Filters[] = [NONE, { status: 'REVOKED', type: 'PERSONAL', from: '2026-01-01', to: '2026-01-31', q: '김 & 이', offset: 40 }, { ...NONE, to: '2026-12-31' }];
    for (const f of cases) {
      const address = addressOf(f);
      expect(address.startsWith(LIST)).toBe(true);
      expect(read(address.slice(LIST.length).replace(/^\?/, ''))).toEqual(f);
    }
    expect(addressOf(NONE)).toBe(LIST);
  });

  it('sends only the filters set, under the API names (dateAfter, dateBefore, search)', () => {
    expect(receiptFilterOf(NONE)).toEqual({});
    expect(receiptFilterOf({ status: 'FAILED', type: null, from: '2026-11-01', to: '2026-11-30', q: 'crt_1', offset: 20 })).toEqual({ status: 'FAILED', dateAfter: '2026-11-01', dateBefore: '2026-11-30', search: 'crt_1' });
  });

  it("a malformed date's refusal says how to write one, in the page's language; another refusal is kept", () => {
    const bad = { code: 'INVALID_DATE_RANGE_FORMAT', message: 'Dates must be YYYY-MM-DD.' };
    expect(listRefusal('ko', bad)).toBe('날짜는 YYYY-MM-DD 형식으로 입력하세요.');
    expect(listRefusal('en', bad)).toBe('Dates are YYYY-MM-DD.');
    const other = { code: 'UNAUTHENTICATED', message: 'no' };
    expect(listRefusal('en', other)).toBe(other);
  });
});

describe("a cash receipt's refusal in words", () => {
  it('each code explained is one the API has', () => {
    for (const code of EXPLAINED_CODES) expect(isErrorCode(code), code).toBe(true);
  });

  it("by its reason first, then by its code (the API's RECEIPT_INVALID_IDENTIFIER as the identifier rule), else the API message", () => {
    const r = (code: string, data: Record<string, unknown> | null = null) => ({ code, message: 'API words', data });
    expect(sentence('en', r('INVOICE_RECEIPT_NOT_ISSUABLE', { reason: 'NOT_PAID' }))).toBe('Only a paid invoice gets a cash receipt.');
    expect(sentence('ko', r('INVOICE_RECEIPT_NOT_ISSUABLE', { reason: 'NOT_PAID' }))).toBe('입금 완료된 주문서에만 발행할 수 있습니다.');
    expect(sentence('en', r('RECEIPT_INVALID_IDENTIFIER'))).toBe(sentence('en', r('INVALID_CASH_RECEIPT_IDENTIFIER')));
    expect(sentence('en', r('INVOICE_RECEIPT_NOT_ISSUABLE', { reason: 'A_NEW_REASON' }))).toBe('API words');
    expect(sentence('en', r('SOMETHING_NEW'))).toBe('API words');
  });

  it('points at the receipt in the way, or the one a failed agency call left', () => {
    expect(receiptNamed({ code: 'X', message: '', data: { cashReceiptId: 'crt_1' } })).toBe('crt_1');
    expect(receiptNamed({ code: 'X', message: '', data: { receipt: { id: 'crt_2' } } })).toBe('crt_2');
    expect(receiptNamed({ code: 'X', message: '', data: { receipt: { id: 7 } } })).toBeNull();
    expect(receiptNamed({ code: 'X', message: '', data: null })).toBeNull();
  });
});
